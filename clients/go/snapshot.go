package svcsandbox

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// SnapshotsEnv names the folder where a failed test's session is kept (as the Python and Ruby
// helpers do): with it set, NewSession's cleanup writes the snapshot of the session of a test that
// failed to DIR/<test name>.json and logs the command that opens it.
const SnapshotsEnv = "SVC_SANDBOX_SNAPSHOTS"

// keepIfFailed writes the session's snapshot when the test failed and SVC_SANDBOX_SNAPSHOTS is
// set, and logs the `show` command for it, one the user's shell runs as printed.
func (s *Session) keepIfFailed(t testing.TB) {
	dir := os.Getenv(SnapshotsEnv)
	if dir == "" || !t.Failed() {
		return
	}
	snapshot, err := s.SnapshotContext(context.Background()) // the session's own context has ended
	if err == nil {
		var path string
		if path, err = writeSnapshot(dir, snapshotName(t.Name()), snapshot); err == nil {
			t.Logf("svcsandbox: the session of this test is in %s; open it with: %s show %s", path, showCommand(s.Server), shellQuote(path))
			return
		}
	}
	t.Logf("svcsandbox: no snapshot of session %s kept in %s: %v", s.ID, dir, err)
}

// showCommand is how the user's shell runs svc-sandbox: the executable's full path when the helper
// used one (SVC_SANDBOX_BIN, PATH), npx when it came from node_modules or npx.
func showCommand(srv *Server) string {
	var path string
	var args []string
	if srv.proc != nil {
		path, args = srv.proc.cmd.Path, srv.proc.cmd.Args[1:]
	} else {
		// A server this process connected to (svc-sandbox exec): the executable it would have used.
		var err error
		if path, args, err = serverCommand("", os.Getenv, exec.LookPath); err != nil {
			return "npx svc-sandbox"
		}
	}
	if len(args) > 0 || filepath.Base(filepath.Dir(path)) == ".bin" {
		return "npx svc-sandbox"
	}
	return shellQuote(path)
}

// shellQuote quotes text for a POSIX shell when it needs it.
func shellQuote(text string) string {
	if text != "" && safeWord.MatchString(text) {
		return text
	}
	return "'" + strings.ReplaceAll(text, "'", `'\''`) + "'"
}

var safeWord = regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`)

// snapshotName is a file name made safe from a test's name: runs of characters outside
// [A-Za-z0-9._-] become one "_"; a long one is cut and ends with a digest of the whole name.
func snapshotName(test string) string {
	safe := strings.Trim(unsafeRun.ReplaceAllString(test, "_"), "._-")
	if safe == "" {
		safe = "test"
	}
	if len(safe) > 120 {
		digest := sha1.Sum([]byte(test))
		safe = safe[:109] + "_" + hex.EncodeToString(digest[:])[:10]
	}
	return safe
}

var unsafeRun = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// usedNames are the file names written by this process: each is used once per run.
var usedNames = struct {
	sync.Mutex
	names map[string]bool
}{names: map[string]bool{}}

// writeSnapshot writes raw to dir/name.json (name-2.json, ... when taken in this run) through a
// temporary file renamed into place, so it is never half written; it returns the path.
func writeSnapshot(dir, name string, raw []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	usedNames.Lock()
	defer usedNames.Unlock()
	var path string
	for n := 1; ; n++ {
		file := name + ".json"
		if n > 1 {
			file = fmt.Sprintf("%s-%d.json", name, n)
		}
		path = filepath.Join(dir, file)
		if usedNames.names[path] {
			continue
		}
		// A file left by an earlier run is replaced, but only a regular file.
		if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
			continue
		}
		break
	}
	temp, err := os.CreateTemp(dir, ".snapshot-*")
	if err != nil {
		return "", err
	}
	_, err = temp.Write(raw)
	if closeErr := temp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(temp.Name(), path)
	}
	if err != nil {
		os.Remove(temp.Name())
		return "", err
	}
	usedNames.names[path] = true
	return path, nil
}
