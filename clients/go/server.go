package svcsandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of the waits a server costs; a context with a deadline of its own replaces them.
const (
	// StartTimeout bounds the wait for a started server's ready line (npx on a busy machine can
	// take seconds; a healthy start takes well under one).
	StartTimeout = 30 * time.Second
	// ConnectTimeout bounds the first health check of a server someone else runs.
	ConnectTimeout = 10 * time.Second
	// stopGrace is how long Close lets a server end by itself once its stdin is closed, and then
	// after SIGTERM, before it kills the server's process group.
	stopGrace = 5 * time.Second
)

// Server is a running svc-sandbox server: one this process started (StartServer), or one it
// connected to (Connect).
type Server struct {
	// URL is http://HOST:PORT: the API is under URL+"/v1", the control API under URL+"/__sandbox".
	URL string

	client *http.Client
	// proc is the server process when this process started it; nil when connected.
	proc *process
	// origin says where the server came from, for errors: "SVC_SANDBOX_URL=…", "started from …".
	origin string
}

// ServerOptions says how StartServer starts a server.
type ServerOptions struct {
	// Bin is the svc-sandbox executable (or dist/server/cli.js of a built checkout). Empty:
	// SVC_SANDBOX_BIN, else svc-sandbox on PATH, else `npx --no-install svc-sandbox`.
	Bin string
	// Args are more flags for `svc-sandbox serve`: "--seed", "7", "--clock", "realtime",
	// "--webhook-timeout", "2s" (svc-sandbox serve --help lists them).
	Args []string
}

// StartServer starts `svc-sandbox serve --port 0 --exit-on-stdin-close` and returns once it has
// printed its ready line. The server ends when Close is called or when this process ends,
// however it ends: only this process holds its stdin. ctx bounds the start (StartTimeout when ctx
// has no deadline).
//
//	srv, err := svcsandbox.StartServer(ctx, svcsandbox.ServerOptions{Args: []string{"--clock", "realtime"}})
//	if err != nil { ... }
//	defer srv.Close()
//	s, err := srv.NewSession(ctx, svcsandbox.Options{Seed: 1})
func StartServer(ctx context.Context, opts ServerOptions) (*Server, error) {
	path, args, err := serverCommand(opts.Bin, os.Getenv, exec.LookPath)
	if err != nil {
		return nil, err
	}
	args = append(append(args, "serve", "--port", "0", "--exit-on-stdin-close"), opts.Args...)
	ctx, cancel := bounded(ctx, StartTimeout)
	defer cancel()
	proc, url, err := startProcess(ctx, path, args)
	if err != nil && len(args) > 0 && args[0] == "--no-install" {
		// npx's own words (a registry 404, "could not determine executable") do not say the fix.
		return nil, fmt.Errorf("svcsandbox: npx found no installed svc-sandbox to start: %s. What npx said: %w", noServerFix, trimPrefix(err))
	}
	if err != nil {
		return nil, err
	}
	return &Server{URL: url, client: newClient(), proc: proc, origin: "started by this process: " + proc.command}, nil
}

// Connect returns the server at url (http://HOST:PORT, or its control URL
// http://HOST:PORT/__sandbox) once its health check answers. ctx bounds the check
// (ConnectTimeout when ctx has no deadline). Close of a connected server stops nothing.
func Connect(ctx context.Context, url string) (*Server, error) {
	srv, err := connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("svcsandbox: %w", err)
	}
	return srv, nil
}

// connect is Connect, its errors without the package's prefix, for callers that add their own.
func connect(ctx context.Context, url string) (*Server, error) {
	base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(url), "/"), "/__sandbox")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("%q is not an http:// URL; give the server's http://HOST:PORT (or its /__sandbox URL)", url)
	}
	srv := &Server{URL: base, client: newClient(), origin: "connected at " + base}
	ctx, cancel := bounded(ctx, ConnectTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.ControlURL()+"/health", nil)
	if err != nil {
		return nil, err
	}
	res, err := srv.client.Do(req)
	if err != nil {
		// The transport's own error repeats the method and URL: keep only its cause.
		var ue *neturl.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("no svc-sandbox server answers at %s: %w", base, err)
	}
	res.Body.Close()
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		return nil, fmt.Errorf("the server at %s answered GET /__sandbox/health with %s to %q; the helper follows no redirect: give the svc-sandbox server's own URL", base, res.Status, res.Header.Get("Location"))
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answers, but is no svc-sandbox server: GET /__sandbox/health answered %s", base, res.Status)
	}
	return srv, nil
}

// Health checks that the server answers (GET /__sandbox/health).
func (srv *Server) Health(ctx context.Context) error {
	return srv.Control().Health(ctx, nil)
}

// ControlURL is the control API's base, URL+"/__sandbox" (what `svc-sandbox exec` puts in
// SVC_SANDBOX_URL).
func (srv *Server) ControlURL() string { return srv.URL + "/__sandbox" }

// Close stops the server if this process started it: its stdin is closed and it exits by itself;
// one that has not within 5 s gets SIGTERM, then SIGKILL. A connected server is left running.
// Close is safe to call more than once.
func (srv *Server) Close() error {
	if srv.proc == nil {
		return nil
	}
	return srv.proc.stop()
}

// noServerFix is what to do when no server can be found or started: said the same way by the
// three helpers.
const noServerFix = "set SVC_SANDBOX_BIN to the svc-sandbox executable (`npm run build:binary` in a checkout writes " +
	"dist/bin/svc-sandbox; dist/server/cli.js of a built checkout works too), or SVC_SANDBOX_URL to a running server's " +
	"/__sandbox URL (`svc-sandbox exec -- go test ./...` sets it)"

// workingDir is where the search for node_modules/.bin/svc-sandbox begins (tests replace it).
var workingDir = os.Getwd

// serverCommand finds the command that runs svc-sandbox: bin, else SVC_SANDBOX_BIN, else
// svc-sandbox on PATH, else node_modules/.bin/svc-sandbox in the working directory or a parent,
// else npx --no-install svc-sandbox (which may still ask the registry, so it comes last). The
// errors name what was looked for and the fix.
func serverCommand(bin string, getenv func(string) string, lookPath func(string) (string, error)) (string, []string, error) {
	name := "ServerOptions.Bin"
	if bin == "" {
		bin, name = getenv("SVC_SANDBOX_BIN"), "SVC_SANDBOX_BIN"
	}
	if bin != "" {
		path, err := checkExecutable(bin)
		if err != nil {
			return "", nil, fmt.Errorf("svcsandbox: %s=%s %w; point it at the svc-sandbox executable "+
				"(npm run build:binary writes dist/bin/svc-sandbox) or at dist/server/cli.js of a built checkout", name, bin, err)
		}
		return path, nil, nil
	}
	if path, err := lookPath("svc-sandbox"); err == nil {
		return path, nil, nil
	}
	dir, _ := workingDir()
	if path := localBin(dir); path != "" {
		return path, nil, nil
	}
	if path, err := lookPath("npx"); err == nil {
		return path, []string{"--no-install", "svc-sandbox"}, nil
	}
	return "", nil, errors.New("svcsandbox: no svc-sandbox server found: SVC_SANDBOX_URL and SVC_SANDBOX_BIN are not set, and " +
		"there is no svc-sandbox on PATH, in node_modules/.bin of " + dir + " or a parent, nor npx; " + noServerFix)
}

// localBin is node_modules/.bin/svc-sandbox of dir or its nearest parent that has one, or "".
func localBin(dir string) string {
	for dir != "" {
		path := filepath.Join(dir, "node_modules", ".bin", "svc-sandbox")
		if _, err := checkExecutable(path); err == nil {
			return path
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

// checkExecutable returns the absolute path of bin, or why it cannot be run.
func checkExecutable(bin string) (string, error) {
	path, err := filepath.Abs(bin)
	if err != nil {
		return "", fmt.Errorf("is not a usable path (%v)", err)
	}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("does not exist (looked at %s)", path)
	case err != nil:
		return "", fmt.Errorf("cannot be read (%v)", err)
	case info.IsDir():
		return "", errors.New("is a directory, not an executable")
	case !isExecutable(info):
		return "", fmt.Errorf("is not executable (chmod +x %s)", path)
	}
	return path, nil
}

// readyLine is the first line `svc-sandbox serve` prints.
var readyLine = regexp.MustCompile(`^svc-sandbox listening on (http://\S+)$`)

// process is a server process this process started, and what it said.
type process struct {
	cmd     *exec.Cmd
	command string
	// stdin is the only write end of the server's stdin: closing it, or ending this process,
	// ends the server (--exit-on-stdin-close).
	stdin  *os.File
	stderr *tail
	// exited is closed once the process has exited and been waited for; waitErr says how.
	exited  chan struct{}
	waitErr error

	stopOnce sync.Once
	stopErr  error
	// stopping is set once Close has begun to stop it: its end is then no failure.
	stopping atomic.Bool
}

// startProcess starts the server and waits for its ready line, its end or ctx's.
func startProcess(ctx context.Context, path string, args []string) (*process, string, error) {
	command := strings.Join(append([]string{path}, args...), " ")
	// Pipes made here are close-on-exec, so no other child of this process holds an end; the
	// child gets its ends, and this process keeps only what it reads and the stdin write end.
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, "", fmt.Errorf("svcsandbox: starting %s: %w", command, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return nil, "", fmt.Errorf("svcsandbox: starting %s: %w", command, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, outR, outW)
		return nil, "", fmt.Errorf("svcsandbox: starting %s: %w", command, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, outW, errW
	ownProcessGroup(cmd)
	err = cmd.Start()
	closeAll(stdinR, outW, errW)
	if err != nil {
		closeAll(stdinW, outR, errR)
		return nil, "", fmt.Errorf("svcsandbox: could not start %s: %w; check that it is the svc-sandbox executable", command, err)
	}
	p := &process{cmd: cmd, command: command, stdin: stdinW, stderr: newTail(20), exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	// Both outputs are read to their end, so the server never blocks on a full pipe.
	go p.stderr.drain(errR)
	first := make(chan string, 1)
	go func() {
		defer outR.Close()
		reader := bufio.NewReader(outR)
		line, err := readLine(reader)
		if err != nil {
			close(first)
			return
		}
		first <- line
		_, _ = io.Copy(io.Discard, reader)
	}()

	fail := func(format string, args ...any) (*process, string, error) {
		_ = p.kill()
		return nil, "", fmt.Errorf("svcsandbox: %s %s%s", command, fmt.Sprintf(format, args...), p.stderr.describe())
	}
	select {
	case line, ok := <-first:
		if !ok {
			<-p.exited // stdout ended: the process is ending too
			return fail("exited (%v) before printing its ready line", p.waitErr)
		}
		match := readyLine.FindStringSubmatch(line)
		if match == nil {
			return fail("printed %q first, not its ready line (svc-sandbox listening on http://HOST:PORT); is it svc-sandbox?", line)
		}
		return p, match[1], nil
	case <-p.exited:
		return fail("exited (%v) before printing its ready line", p.waitErr)
	case <-ctx.Done():
		return fail("printed no ready line within %s (%v); it was stopped", timeoutOf(ctx), ctx.Err())
	}
}

// readLine reads one line, without its end, cut to 1000 bytes.
func readLine(r *bufio.Reader) (string, error) {
	var line []byte
	for {
		chunk, more, err := r.ReadLine()
		if err != nil {
			return "", err
		}
		if len(line) < 1000 {
			line = append(line, chunk...)
		}
		if !more {
			if len(line) > 1000 {
				line = line[:1000]
			}
			return strings.TrimRight(string(line), "\r"), nil
		}
	}
}

// died says how the server process ended, or "" while it runs.
func (p *process) died() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	how := "exited"
	switch {
	case p.stopping.Load():
		how = "was stopped (Server.Close, or Shutdown)"
	case p.waitErr != nil:
		how = fmt.Sprintf("ended (%v)", p.waitErr)
	}
	return fmt.Sprintf("the svc-sandbox server this process started (pid %d, %s) %s%s", p.cmd.Process.Pid, p.command, how, p.stderr.describe())
}

// stop ends the server: stdin closed, then SIGTERM, then SIGKILL, each after stopGrace.
func (p *process) stop() error {
	p.stopOnce.Do(func() {
		p.stopping.Store(true)
		p.stdin.Close()
		if waitFor(p.exited, stopGrace) {
			return
		}
		signalGroup(p.cmd, false)
		if waitFor(p.exited, stopGrace) {
			p.stopErr = fmt.Errorf("svcsandbox: the svc-sandbox server (pid %d) did not stop when its stdin closed; it got SIGTERM", p.cmd.Process.Pid)
			return
		}
		p.stopErr = p.kill()
	})
	return p.stopErr
}

// kill ends the server's process group at once and waits (bounded) for the end.
func (p *process) kill() error {
	p.stdin.Close()
	signalGroup(p.cmd, true)
	if !waitFor(p.exited, stopGrace) {
		return fmt.Errorf("svcsandbox: the svc-sandbox server (pid %d) is still running %s after SIGKILL", p.cmd.Process.Pid, stopGrace)
	}
	return fmt.Errorf("svcsandbox: the svc-sandbox server (pid %d) had to be killed", p.cmd.Process.Pid)
}

func waitFor(done <-chan struct{}, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	}
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// tail keeps the last lines of a stream (the server's stderr), for errors.
type tail struct {
	mu    sync.Mutex
	lines []string
	max   int
}

func newTail(max int) *tail { return &tail{max: max} }

// drain reads r to its end, keeping its last lines.
func (t *tail) drain(r io.ReadCloser) {
	defer r.Close()
	reader := bufio.NewReader(r)
	for {
		line, err := readLine(reader)
		if err != nil {
			return
		}
		t.mu.Lock()
		t.lines = append(t.lines, line)
		if len(t.lines) > t.max {
			t.lines = t.lines[len(t.lines)-t.max:]
		}
		t.mu.Unlock()
	}
}

// describe is the kept lines as the end of an error message, or "" when there are none.
func (t *tail) describe() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == 0 {
		return "; it wrote nothing on stderr"
	}
	return "; its last lines on stderr:\n\t" + strings.Join(t.lines, "\n\t")
}

// shared is the server NewSession uses: connected under `svc-sandbox exec`, else started once
// per test binary, the first time a session is asked for.
var shared = &sharedServer{connectTimeout: ConnectTimeout, startTimeout: StartTimeout}

type sharedServer struct {
	mu  sync.Mutex
	srv *Server
	// err is kept: a server that could not be found or started fails every later session at
	// once with the same message, instead of each test waiting for its own failure.
	err                          error
	connectTimeout, startTimeout time.Duration
}

func (sh *sharedServer) get() (*Server, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.srv == nil && sh.err == nil {
		sh.srv, sh.err = sh.find()
	}
	return sh.srv, sh.err
}

func (sh *sharedServer) find() (*Server, error) {
	if url := os.Getenv("SVC_SANDBOX_URL"); url != "" {
		ctx, cancel := context.WithTimeout(context.Background(), sh.connectTimeout)
		defer cancel()
		srv, err := connect(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("svcsandbox: SVC_SANDBOX_URL=%s: %w. Is the `svc-sandbox exec` that set it still running? "+
				"Unset SVC_SANDBOX_URL to let the helper start a server of its own", url, err)
		}
		srv.origin = "SVC_SANDBOX_URL=" + url
		return srv, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sh.startTimeout)
	defer cancel()
	return StartServer(ctx, ServerOptions{})
}

func (sh *sharedServer) shutdown() error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	srv := sh.srv
	sh.srv, sh.err = nil, nil
	if srv == nil {
		return nil
	}
	return srv.Close()
}

// Shutdown stops the server the helper started for this test binary (a server of
// `svc-sandbox exec` is left to exec). Without it the server ends with the test binary anyway;
// call it from TestMain to stop it before the binary exits. A later NewSession starts a new one.
//
//	func TestMain(m *testing.M) {
//		code := m.Run()
//		if err := svcsandbox.Shutdown(); err != nil {
//			fmt.Fprintln(os.Stderr, err)
//		}
//		os.Exit(code)
//	}
func Shutdown() error { return shared.shutdown() }

// trimPrefix drops the package's prefix from an error that another one wraps, so it is said once.
func trimPrefix(err error) error { return prefixless{err} }

type prefixless struct{ error }

func (p prefixless) Error() string { return strings.TrimPrefix(p.error.Error(), "svcsandbox: ") }
func (p prefixless) Unwrap() error { return p.error }
