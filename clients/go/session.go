package svcsandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultTimeout bounds each control call made without a context (and with a context that has
// no deadline) unless Options.Timeout says otherwise. An advance waits for the webhook attempts
// that fall due in it, each up to the server's --webhook-timeout (10 s by default), so the bound
// is generous; a session whose receivers may hang is best made with WebhookTimeout "2s".
const DefaultTimeout = 60 * time.Second

// Options says how NewSession makes a session. The zero value is a session of seed 0 on the
// shared server, its clock starting at the server's start time.
type Options struct {
	// Seed of the session's ids and generated content: same seed, same requests, same ids.
	// Sent always, so 0 is seed 0 (createSandbox's default), whatever the server's --seed;
	// left out with Snapshot or From, which carry their own.
	Seed int
	// StartTime is the virtual clock's start, ISO 8601; empty: the server's.
	StartTime string
	// Clock is "manual" (time moves only by Advance) or "realtime" (it also flows with the wall
	// clock); empty: the server's.
	Clock string
	// WebhookTimeout is the real time a webhook attempt may take ("2s"); empty: the server's.
	WebhookTimeout string
	// Deprecation marks the session's /v1 deprecated (Deprecation, Sunset and Link headers).
	Deprecation *Deprecation
	// Chaos is a seeded chaos profile (docs/chaos.md), as JSON-ready values.
	Chaos map[string]any
	// Snapshot starts the session from a snapshot (Session.Snapshot); From forks a live session
	// (its snapshot now). Either one: the new session's APIKey opens the original's account.
	Snapshot json.RawMessage
	From     string
	// Timeout bounds each control call made without a context; 0 means DefaultTimeout.
	Timeout time.Duration
	// Server is where the session is made; nil: the shared server (SVC_SANDBOX_URL under
	// `svc-sandbox exec`, else one started once per test binary).
	Server *Server
}

// Deprecation marks a session's /v1 deprecated.
type Deprecation struct {
	Sunset string `json:"sunset"`
	Link   string `json:"link,omitempty"`
	Date   string `json:"date,omitempty"`
}

// Session is one sandbox of the server: its own virtual clock, seed, ids, accounts, events and
// webhook queues. Its methods are safe for concurrent use.
type Session struct {
	// ID is the session's id (ses_…).
	ID string
	// APIKey is a test key that routes to this session on the API.
	APIKey string
	// BaseURL is the API's base, http://HOST:PORT: point your SDK at it (requests go to
	// BaseURL+"/v1/…").
	BaseURL string
	// Server is the server the session lives on.
	Server *Server
	// Timeout bounds each control call made without a context (Options.Timeout or DefaultTimeout).
	Timeout time.Duration

	// tb is the test that made the session (NewSession); Sleep reports its failures there.
	tb testing.TB
	// clock is held by one Sleep at a time while it reads now and advances; flight counts the
	// requests of HTTPClient that await their answer, which Sleep lets finish first.
	clock  chan struct{}
	flight *flight

	mu       sync.Mutex
	closed   bool
	sleepErr error
}

// NewSession makes a session for the test, deleted when the test ends (t.Cleanup). A session that
// cannot be made fails the test at once (t.Fatalf), the message naming the fix.
//
//	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: 42})
//	// your SDK: base URL s.BaseURL, key s.APIKey
//	res, err := s.Advance("65s")
func NewSession(t testing.TB, opts Options) *Session {
	t.Helper()
	srv := opts.Server
	if srv == nil {
		var err error
		if srv, err = shared.get(); err != nil {
			t.Fatalf("svcsandbox.NewSession: %s", strings.TrimPrefix(err.Error(), "svcsandbox: "))
		}
	}
	s, err := srv.NewSession(context.Background(), opts)
	if err != nil {
		t.Fatalf("svcsandbox.NewSession: %s", strings.TrimPrefix(err.Error(), "svcsandbox: "))
	}
	s.tb = t
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("svcsandbox: deleting the session at the end of the test: %v", err)
		}
	})
	return s
}

// NewSession makes a session on this server (POST /__sandbox/sessions). Close deletes it. ctx
// bounds the call (opts.Timeout, else DefaultTimeout, when ctx has no deadline). opts.Server is
// not used.
func (srv *Server) NewSession(ctx context.Context, opts Options) (*Session, error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	body := map[string]any{}
	if opts.Snapshot == nil && opts.From == "" {
		body["seed"] = opts.Seed // a snapshot carries its own
	}
	for name, value := range map[string]string{"startTime": opts.StartTime, "clock": opts.Clock, "webhookTimeout": opts.WebhookTimeout, "from": opts.From} {
		if value != "" {
			body[name] = value
		}
	}
	if opts.Deprecation != nil {
		body["deprecation"] = opts.Deprecation
	}
	if opts.Chaos != nil {
		body["chaos"] = opts.Chaos
	}
	if opts.Snapshot != nil {
		body["snapshot"] = opts.Snapshot
	}
	var made struct {
		ID     string `json:"id"`
		APIKey string `json:"apiKey"`
	}
	if err := srv.call(ctx, op{name: "NewSession", timeout: timeout}, http.MethodPost, "/sessions", body, &made); err != nil {
		return nil, err
	}
	return &Session{ID: made.ID, APIKey: made.APIKey, BaseURL: srv.URL, Server: srv, Timeout: timeout, clock: make(chan struct{}, 1), flight: newFlight()}, nil
}

// Close deletes the session: its keys are 401 from then on. Closing a session already deleted is
// not an error. For a session made without a test (Server.NewSession), Close also returns the
// first failure of Sleep, which had no test to report it to.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	sleepErr := s.sleepErr
	s.mu.Unlock()
	err := s.do(context.Background(), "Close", http.MethodDelete, "", nil, nil)
	var se *SandboxError
	if errors.As(err, &se) && se.Status == http.StatusNotFound {
		err = nil
	}
	if err == nil && s.tb == nil {
		err = sleepErr
	}
	return err
}

// ConsoleURL is the address of the session's account console, to open in a browser.
func (s *Session) ConsoleURL() string {
	return s.Server.ControlURL() + "/console?session=" + url.QueryEscape(s.ID)
}

// do makes a control call about the session: path is below /__sandbox/sessions/{id}.
func (s *Session) do(ctx context.Context, name, method, path string, body, out any) error {
	return s.Server.call(ctx, op{name: name, session: s.ID, timeout: s.Timeout}, method, "/sessions/"+url.PathEscape(s.ID)+path, body, out)
}

// op names a control call for its errors, and bounds it.
type op struct {
	name, session string
	// timeout bounds the call when its context has no deadline; 0: DefaultTimeout.
	timeout time.Duration
}

func (o op) String() string {
	if o.session == "" {
		return o.name
	}
	return o.name + " on session " + o.session
}

// call sends one control request (path below /__sandbox) with body as JSON, and decodes a 2xx
// answer into out. A 4xx or 5xx answer is a *SandboxError; anything else an error that says
// what the server is and whether it is still running.
func (srv *Server) call(ctx context.Context, o op, method, path string, body, out any) error {
	timeout := o.timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if ctx == nil {
		ctx = context.Background()
	}
	_, hadDeadline := ctx.Deadline()
	ctx, cancel := bounded(ctx, timeout)
	defer cancel()
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("svcsandbox: %s: the request body cannot be JSON: %w", o, err)
		}
		reader = bytes.NewReader(data)
	}
	target := srv.ControlURL() + path
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return fmt.Errorf("svcsandbox: %s: %w", o, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := srv.client.Do(req)
	var raw []byte
	if err == nil {
		raw, err = io.ReadAll(res.Body)
		res.Body.Close()
	}
	if err != nil {
		return srv.unanswered(ctx, o, method, target, err, hadDeadline, timeout)
	}
	if res.StatusCode >= 400 {
		return answerError(o, method, "/__sandbox"+path, res.StatusCode, raw)
	}
	if out == nil || len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("svcsandbox: %s (%s %s): the answer %d is not the JSON expected (%s): %w", o, method, target, res.StatusCode, snippet(raw), err)
	}
	return nil
}

// unanswered explains a call that got no answer: a timeout, a server that died, or one that
// does not listen.
func (srv *Server) unanswered(ctx context.Context, o op, method, target string, err error, hadDeadline bool, timeout time.Duration) error {
	why := fmt.Sprintf("no answer from the svc-sandbox server (%s)", srv.origin)
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		why = "the context was canceled"
	case ctx.Err() != nil && hadDeadline:
		why = "no answer within " + timeoutOf(ctx)
	case ctx.Err() != nil:
		why = fmt.Sprintf("no answer within %s (the session's Timeout: raise Options.Timeout, or give the ...Context variant a longer deadline)", timeout)
	}
	if p := srv.proc; p != nil {
		// A refused connection may be seen a moment before the process is reaped.
		waitFor(p.exited, time.Second)
		if died := p.died(); died != "" {
			why = died
		}
	}
	return fmt.Errorf("svcsandbox: %s (%s %s): %s: %w", o, method, target, why, err)
}

// answerError turns a 4xx or 5xx answer into a *SandboxError.
func answerError(o op, method, path string, status int, raw []byte) error {
	var envelope struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Param   string `json:"param"`
		} `json:"error"`
	}
	se := &SandboxError{Op: o.name, Session: o.session, Method: method, Path: path, Status: status}
	if json.Unmarshal(raw, &envelope) == nil && envelope.Error.Code != "" {
		se.Code, se.Message, se.Param = envelope.Error.Code, envelope.Error.Message, envelope.Error.Param
	} else {
		se.Message = "not an svc-sandbox error answer: " + snippet(raw)
	}
	return se
}

func snippet(raw []byte) string {
	text := strings.TrimSpace(string(raw))
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	return fmt.Sprintf("%q", text)
}

// bounded gives ctx a deadline d from now when it has none.
func bounded(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// timeoutOf describes ctx's deadline for errors.
func timeoutOf(ctx context.Context) string {
	deadline, ok := ctx.Deadline()
	if !ok {
		return "the context's life"
	}
	return "the context's deadline (" + deadline.Format(time.RFC3339Nano) + ")"
}

// newClient is the HTTP client of one server: never through a proxy (the server is on loopback),
// and enough idle connections for many goroutines sleeping at once.
func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}}
}
