package svcsandbox

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// failedTB is a test that has failed, whose cleanups the test runs and whose logs it keeps.
type failedTB struct {
	testing.TB
	cleanups []func()
	logs     []string
}

func (f *failedTB) Failed() bool      { return true }
func (f *failedTB) Helper()           {}
func (f *failedTB) Name() string      { return "TestThis/case a:b" }
func (f *failedTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *failedTB) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *failedTB) end() { runCleanups(f.cleanups) }
func runCleanups(fns []func()) {
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

// Regression: the command printed for a failed test's snapshot must run as printed in the user's
// shell: the executable's full path when the helper used one.
func TestAFailedTestKeepsItsSnapshotAndPrintsACommandThatRuns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for svc-sandbox")
	}
	dir := filepath.Join(t.TempDir(), "snap shots")
	t.Setenv(SnapshotsEnv, dir)
	bin := filepath.Join(t.TempDir(), "svc-sandbox")
	ran := filepath.Join(t.TempDir(), "ran")
	writeFile(t, bin, "#!/bin/sh\nprintf '%s\\n' \"$@\" > '"+ran+"'\n", 0o755)
	t.Setenv("SVC_SANDBOX_BIN", bin)
	fake := newFakeControl(t, func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/snapshot") {
			reply(w, 200, map[string]any{"format": "svc-sandbox-snapshot"})
			return true
		}
		return false
	})
	srv, err := Connect(context.Background(), fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	tb := &failedTB{TB: t}
	NewSession(tb, Options{Server: srv})
	tb.end()

	path := filepath.Join(dir, "TestThis_case_a_b.json")
	if raw, err := os.ReadFile(path); err != nil || !strings.Contains(string(raw), "svc-sandbox-snapshot") {
		t.Fatalf("the snapshot file: %q %v", raw, err)
	}
	want := "svcsandbox: the session of this test is in " + path + "; open it with: " + bin + " show '" + path + "'"
	if len(tb.logs) != 1 || tb.logs[0] != want {
		t.Fatalf("logs %q, want %q", tb.logs, want)
	}
	command := strings.TrimPrefix(tb.logs[0], tb.logs[0][:strings.Index(tb.logs[0], "open it with: ")+len("open it with: ")])
	if out, err := exec.Command("sh", "-c", command).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", command, err, out)
	}
	if args, err := os.ReadFile(ran); err != nil || string(args) != "show\n"+path+"\n" {
		t.Errorf("the printed command ran with %q %v", args, err)
	}
}

func TestTheShowCommandIsNpxForAServerFromNodeModules(t *testing.T) {
	project := t.TempDir()
	local := filepath.Join(project, "node_modules", ".bin", "svc-sandbox")
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, local, "#!/bin/sh\n", 0o755)
	t.Setenv("SVC_SANDBOX_BIN", "")
	t.Setenv("PATH", t.TempDir())
	inDir(t, project)
	if got := showCommand(&Server{}); got != "npx svc-sandbox" {
		t.Errorf("from node_modules: %s", got)
	}
	t.Setenv("SVC_SANDBOX_BIN", local)
	if got := showCommand(&Server{}); got != "npx svc-sandbox" {
		t.Errorf("SVC_SANDBOX_BIN in node_modules/.bin: %s", got)
	}
	if got := snapshotName(strings.Repeat("x", 200)); len(got) != 120 {
		t.Errorf("a long name: %d %s", len(got), got)
	}
}
