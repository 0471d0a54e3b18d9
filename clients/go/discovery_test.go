//go:build unix

package svcsandbox

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Finding the server, and failing fast and clearly when it cannot be found, started or reached.

func TestTheServerCommandIsTheBinThenSvcSandboxOnPathThenNpx(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "svc-sandbox")
	writeFile(t, bin, "#!/bin/sh\n", 0o755)
	onPath := map[string]string{"svc-sandbox": "/usr/local/bin/svc-sandbox", "npx": "/usr/bin/npx"}
	lookPath := func(name string) (string, error) {
		if path, ok := onPath[name]; ok {
			return path, nil
		}
		return "", errors.New("not found")
	}
	env := map[string]string{}
	getenv := func(name string) string { return env[name] }
	command := func() string {
		t.Helper()
		path, args, err := serverCommand("", getenv, lookPath)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(append([]string{path}, args...), " ")
	}

	env["SVC_SANDBOX_BIN"] = bin
	if got := command(); got != bin {
		t.Errorf("with SVC_SANDBOX_BIN: %s", got)
	}
	delete(env, "SVC_SANDBOX_BIN")
	if got := command(); got != "/usr/local/bin/svc-sandbox" {
		t.Errorf("with svc-sandbox on PATH: %s", got)
	}
	delete(onPath, "svc-sandbox")
	// node_modules/.bin/svc-sandbox of the working directory or a parent comes before npx, which
	// may ask the registry.
	project := t.TempDir()
	local := filepath.Join(project, "node_modules", ".bin", "svc-sandbox")
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, local, "#!/bin/sh\n", 0o755)
	nested := filepath.Join(project, "go", "pkg")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	inDir(t, nested)
	if got := command(); got != local {
		t.Errorf("with node_modules/.bin/svc-sandbox in a parent: %s", got)
	}
	inDir(t, t.TempDir())
	if got := command(); got != "/usr/bin/npx --no-install svc-sandbox" {
		t.Errorf("with npx only: %s", got)
	}
	delete(onPath, "npx")
	_, _, err := serverCommand("", getenv, lookPath)
	for _, want := range []string{"no svc-sandbox server found", "SVC_SANDBOX_URL", "SVC_SANDBOX_BIN", "npm run build:binary", "nor npx", "svc-sandbox exec -- go test"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("with nothing to run, the error should name %q: %v", want, err)
		}
	}
	if err != nil && (strings.Contains(err.Error(), "npm install") || strings.Contains(err.Error(), "\n")) {
		t.Errorf("registry advice, or more than one line: %v", err)
	}
	// An explicit ServerOptions.Bin comes before SVC_SANDBOX_BIN.
	env["SVC_SANDBOX_BIN"] = filepath.Join(dir, "elsewhere")
	if path, _, err := serverCommand(bin, getenv, lookPath); err != nil || path != bin {
		t.Errorf("ServerOptions.Bin: %s %v", path, err)
	}
}

func TestABadSvcSandboxBinFailsAtOnceNamingTheVariableAndTheFix(t *testing.T) {
	dir := t.TempDir()
	notExecutable := filepath.Join(dir, "cli.js")
	writeFile(t, notExecutable, "console.log('hi')\n", 0o644)
	cases := map[string]struct{ bin, want string }{
		"missing":        {filepath.Join(dir, "nope", "svc-sandbox"), "does not exist"},
		"not executable": {notExecutable, "is not executable (chmod +x " + notExecutable + ")"},
		"a directory":    {dir, "is a directory"},
	}
	if runtime.GOOS == "windows" {
		delete(cases, "not executable") // Windows has no executable bit
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("SVC_SANDBOX_BIN", c.bin)
			started := time.Now()
			srv, err := StartServer(context.Background(), ServerOptions{})
			if err == nil {
				srv.Close()
				t.Fatal("started a server")
			}
			for _, want := range []string{"SVC_SANDBOX_BIN=" + c.bin, c.want, "dist/server/cli.js"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error should say %q: %v", want, err)
				}
			}
			if elapsed := time.Since(started); elapsed > quick {
				t.Errorf("took %s", elapsed)
			}
		})
	}
}

func TestWithNoServerAnywhereNewSessionFailsTheTestNamingTheFix(t *testing.T) {
	t.Setenv("SVC_SANDBOX_URL", "")
	t.Setenv("SVC_SANDBOX_BIN", "")
	t.Setenv("PATH", t.TempDir()) // no svc-sandbox, no npx
	useSharedServer(t, &sharedServer{connectTimeout: time.Second, startTimeout: time.Second})

	started := time.Now()
	message := fatalOf(t, func(tb testing.TB) { NewSession(tb, Options{}) })
	inDir(t, t.TempDir())
	for _, want := range []string{"svcsandbox.NewSession: no svc-sandbox server found", "svc-sandbox exec -- go test ./...", "SVC_SANDBOX_BIN", "npm run build:binary"} {
		if !strings.Contains(message, want) {
			t.Errorf("the failure should say %q: %s", want, message)
		}
	}
	// The failure is kept: the next test fails at once with the same message.
	if again := fatalOf(t, func(tb testing.TB) { NewSession(tb, Options{}) }); again != message {
		t.Errorf("second failure: %s", again)
	}
	if elapsed := time.Since(started); elapsed > quick {
		t.Errorf("took %s", elapsed)
	}
}

func TestAnUnreachableSvcSandboxURLFailsAtOnceNamingTheVariable(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + listener.Addr().String() + "/__sandbox"
	listener.Close()
	t.Setenv("SVC_SANDBOX_URL", closed)

	started := time.Now()
	_, err = (&sharedServer{connectTimeout: ConnectTimeout, startTimeout: StartTimeout}).get()
	for _, want := range []string{"SVC_SANDBOX_URL=" + closed, "no svc-sandbox server answers", "svc-sandbox exec", "Unset SVC_SANDBOX_URL"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the error should say %q: %v", want, err)
		}
	}
	// Short: the URL said once, the cause on the same line.
	if err != nil && (strings.Count(err.Error(), closed) != 1 || strings.Contains(err.Error(), "\n") || strings.Count(err.Error(), "svcsandbox:") != 1) {
		t.Errorf("not short: %v", err)
	}
	if elapsed := time.Since(started); elapsed > quick {
		t.Errorf("a refused connection took %s", elapsed)
	}
}

func TestASvcSandboxURLThatNeverAnswersFailsWithinTheConnectTimeout(t *testing.T) {
	url := silentListener(t)
	t.Setenv("SVC_SANDBOX_URL", url)
	started := time.Now()
	_, err := (&sharedServer{connectTimeout: 300 * time.Millisecond, startTimeout: StartTimeout}).get()
	if err == nil || !strings.Contains(err.Error(), "SVC_SANDBOX_URL="+url) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("expected a timeout naming SVC_SANDBOX_URL: %v", err)
	}
	if elapsed := time.Since(started); elapsed < 300*time.Millisecond || elapsed > quick {
		t.Errorf("took %s, expected the 300ms connect timeout", elapsed)
	}
}

func TestAServerThatPrintsNoReadyLineIsStoppedWithinTheStartTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv(fakeServerEnv, "silent")
	t.Setenv("SVCSANDBOX_FAKE_PIDFILE", pidFile)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	started := time.Now()
	srv, err := StartServer(ctx, ServerOptions{Bin: os.Args[0]})
	if err == nil {
		srv.Close()
		t.Fatal("a silent server was taken for a ready one")
	}
	if !strings.Contains(err.Error(), "printed no ready line") || !strings.Contains(err.Error(), "it was stopped") {
		t.Errorf("error: %v", err)
	}
	if elapsed := time.Since(started); elapsed > quick {
		t.Errorf("took %s", elapsed)
	}
	assertGone(t, readPid(t, pidFile))
}

func TestAServerThatPrintsSomethingElseFirstIsRefused(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv(fakeServerEnv, "wrongline")
	t.Setenv("SVCSANDBOX_FAKE_PIDFILE", pidFile)
	_, err := StartServer(context.Background(), ServerOptions{Bin: os.Args[0]})
	if err == nil || !strings.Contains(err.Error(), `printed "Welcome to a server that is not svc-sandbox" first`) {
		t.Errorf("error: %v", err)
	}
	assertGone(t, readPid(t, pidFile))
}

func TestAServerThatExitsAtStartShowsItsStderr(t *testing.T) {
	t.Setenv(fakeServerEnv, "crash")
	_, err := StartServer(context.Background(), ServerOptions{Bin: os.Args[0]})
	for _, want := range []string{"exited (exit status 3) before printing its ready line", "boom: the configuration is broken"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the error should say %q: %v", want, err)
		}
	}
}

func TestAControlCallThatHangsFailsWithinTheSessionTimeout(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	fake := newFakeControl(t, func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/advance") {
			select { // answers nothing until the client gives up (or the test ends)
			case <-r.Context().Done():
			case <-hang:
			}
			return true
		}
		return false
	})
	srv, err := Connect(context.Background(), fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := srv.NewSession(context.Background(), Options{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}

	started := time.Now()
	_, err = s.Advance("1s")
	elapsed := time.Since(started)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "Advance on session "+s.ID) ||
		!strings.Contains(err.Error(), "no whole answer within 300ms (the session's Timeout: raise Options.Timeout") {
		t.Errorf("error: %v", err)
	}
	if elapsed < 300*time.Millisecond || elapsed > quick {
		t.Errorf("took %s, expected the 300ms timeout", elapsed)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	started = time.Now()
	_, err = s.AdvanceContext(ctx, "1s")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "the context's deadline") {
		t.Errorf("AdvanceContext: %v", err)
	}
	if elapsed := time.Since(started); elapsed > quick {
		t.Errorf("AdvanceContext took %s", elapsed)
	}
}

func TestConnectingToAListenerThatNeverAnswersFailsWithTheContext(t *testing.T) {
	url := silentListener(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := Connect(ctx, url)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no svc-sandbox server answers at "+url) {
		t.Errorf("error: %v", err)
	}
	if _, err := Connect(context.Background(), "127.0.0.1:12111"); err == nil || !strings.Contains(err.Error(), `svcsandbox: "127.0.0.1:12111" is not an http:// URL`) {
		t.Errorf("a URL without a scheme: %v", err)
	}
}

// silentListener accepts connections and never answers; it returns its URL.
func silentListener(t *testing.T) string {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := listener.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		listener.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, conn := range conns {
			conn.Close()
		}
	})
	return "http://" + listener.Addr().String()
}

// inDir makes dir the working directory of the node_modules search for the test.
func inDir(t *testing.T, dir string) {
	saved := workingDir
	workingDir = func() (string, error) { return dir, nil }
	t.Cleanup(func() { workingDir = saved })
}

// Regression: when npx found nothing, the error quoted only npx's words (a registry 404).
func TestWhenNpxFindsNothingTheErrorSaysTheFix(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for npx")
	}
	path := t.TempDir()
	writeFile(t, filepath.Join(path, "npx"), "#!/bin/sh\necho 'npm error 404 Not Found - GET https://registry.example/svc-sandbox' >&2\nexit 1\n", 0o755)
	t.Setenv("PATH", path)
	t.Setenv("SVC_SANDBOX_BIN", "")
	inDir(t, t.TempDir())
	srv, err := StartServer(context.Background(), ServerOptions{})
	if err == nil {
		srv.Close()
		t.Fatal("started a server")
	}
	message := err.Error()
	for _, want := range []string{"svcsandbox: npx found no installed svc-sandbox to start: set SVC_SANDBOX_BIN", "npm run build:binary", "SVC_SANDBOX_URL", "What npx said:", "404 Not Found"} {
		if !strings.Contains(message, want) {
			t.Errorf("the error should say %q: %s", want, message)
		}
	}
	if strings.Count(message, "svcsandbox:") != 1 || strings.Contains(message, "npm install") {
		t.Errorf("the prefix twice, or registry advice: %s", message)
	}
}
