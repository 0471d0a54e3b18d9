//go:build unix

package svcsandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Servers this process starts: they die, they are stopped, and none outlives its test binary.

func TestAServerThatDiesMidRunFailsTheNextCallAtOnceSayingSo(t *testing.T) {
	t.Parallel()
	srv, err := StartServer(context.Background(), ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	s, err := srv.NewSession(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(-srv.proc.cmd.Process.Pid, syscall.SIGKILL)
	if !waitFor(srv.proc.exited, quick) {
		t.Fatal("the server survived SIGKILL")
	}

	started := time.Now()
	_, err = s.Advance("1s")
	for _, want := range []string{"Advance on session " + s.ID, "the svc-sandbox server this process started", "ended (signal: killed)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the error should say %q: %v", want, err)
		}
	}
	if _, err := srv.NewSession(context.Background(), Options{}); err == nil || !strings.Contains(err.Error(), "ended (signal: killed)") {
		t.Errorf("a session on the dead server: %v", err)
	}
	if elapsed := time.Since(started); elapsed > quick {
		t.Errorf("took %s", elapsed)
	}
}

func TestShutdownStopsTheSharedServerAndTheNextSessionStartsAnother(t *testing.T) {
	t.Setenv("SVC_SANDBOX_URL", "")
	useSharedServer(t, &sharedServer{connectTimeout: ConnectTimeout, startTimeout: StartTimeout})
	first, err := shared.get()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := shared.get(); again != first {
		t.Error("a second session did not share the server")
	}
	s, err := first.NewSession(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	pid := first.proc.cmd.Process.Pid

	if err := Shutdown(); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	assertGone(t, pid)
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "was stopped (Server.Close, or Shutdown)") {
		t.Errorf("closing a session of the stopped server: %v", err)
	}
	second, err := shared.get()
	if err != nil || second == first || second.proc.cmd.Process.Pid == pid {
		t.Fatalf("after Shutdown: %v %v", second, err)
	}
	if _, err := second.NewSession(context.Background(), Options{}); err != nil {
		t.Error(err)
	}
	if err := second.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := second.Close(); err != nil {
		t.Errorf("Close twice: %v", err)
	}
}

func TestNoServerOutlivesItsTestBinary(t *testing.T) {
	if mode := os.Getenv(orphanMode); mode != "" {
		orphanChild(t, mode)
		return
	}
	for mode, ends := range map[string]string{"pass": "exit status 0", "fail": "exit status 1", "panic": "exit status 2", "exit": "exit status 3", "kill": "signal: killed"} {
		mode, ends := mode, ends
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			report := filepath.Join(t.TempDir(), "server")
			// Every process that inherits held's write end keeps it open: the child, and the
			// server it starts (the helper passes it nothing, but fd 3 is not close-on-exec in
			// the child). EOF on held means they have all ended.
			held, holder, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
			child := exec.Command(os.Args[0], "-test.run=^TestNoServerOutlivesItsTestBinary$", "-test.count=1")
			child.Env = append(withoutEnv("SVC_SANDBOX_URL"), orphanMode+"="+mode, "SVCSANDBOX_ORPHAN_REPORT="+report)
			child.ExtraFiles = []*os.File{holder}
			output, err := child.CombinedOutput()
			holder.Close()
			if got := exitOf(err); got != ends {
				t.Fatalf("the child ended with %s, expected %s:\n%s", got, ends, output)
			}
			raw, err := os.ReadFile(report)
			if err != nil {
				t.Fatalf("the child reported no server: %v\n%s", err, output)
			}
			var pid int
			var url string
			if _, err := fmt.Sscan(string(raw), &pid, &url); err != nil {
				t.Fatalf("report %q: %v", raw, err)
			}

			gone := make(chan struct{})
			go func() {
				_, _ = io.Copy(io.Discard, held)
				close(gone)
			}()
			if !waitFor(gone, 15*time.Second) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the server (pid %d) still runs 15 s after its test binary ended (%s)", pid, ends)
			}
			assertGone(t, pid)
			if res, err := http.Get(url + "/__sandbox/health"); err == nil {
				res.Body.Close()
				t.Errorf("%s still answers", url)
			}
		})
	}
}

func orphanChild(t *testing.T, mode string) {
	s := NewSession(t, Options{})
	report := []byte(strings.Join([]string{strconv.Itoa(s.Server.proc.cmd.Process.Pid), s.Server.URL}, " "))
	if err := os.WriteFile(os.Getenv("SVCSANDBOX_ORPHAN_REPORT"), report, 0o600); err != nil {
		t.Fatal(err)
	}
	switch mode {
	case "fail":
		t.Fatal("failing on purpose")
	case "panic":
		// In a goroutine of its own: the binary dies at once, no cleanup or deferred call runs.
		go panic("panicking on purpose")
		select {}
	case "exit":
		os.Exit(3)
	case "kill":
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}

func withoutEnv(name string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, name+"=") {
			env = append(env, kv)
		}
	}
	return env
}

func exitOf(err error) string {
	var exit *exec.ExitError
	switch {
	case err == nil:
		return "exit status 0"
	case errors.As(err, &exit):
		return exit.Error()
	default:
		return err.Error()
	}
}
