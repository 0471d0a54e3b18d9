package svcsandbox

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultTimeout bounds each whole control call whose context has no deadline, unless
// Options.Timeout or SVC_SANDBOX_TIMEOUT (seconds) says otherwise. An advance waits for the webhook attempts
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
	// Timeout bounds each control call whose context has no deadline; 0: SVC_SANDBOX_TIMEOUT
	// seconds, else DefaultTimeout.
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
	// Timeout bounds each control call whose context has no deadline (Options.Timeout, else
	// SVC_SANDBOX_TIMEOUT seconds, else DefaultTimeout): the whole call, its answer's body included.
	Timeout time.Duration

	// ctx is the session's own context, which the methods without a context argument run on: for
	// NewSession, one canceled when the test ends, before the session is deleted.
	ctx    context.Context
	cancel context.CancelFunc

	// tb is the test that made the session (NewSession); Sleep reports its failures there.
	tb testing.TB
	// clock is held by one Sleep at a time while it reads now and advances; flight counts the
	// requests of HTTPClient that await their answer, which Sleep lets finish first.
	clock  chan struct{}
	flight *flight

	mu       sync.Mutex
	closed   bool
	sleepErr error
	// sleeps is the record of every Sleep and SleepContext, in the order they began.
	sleeps []time.Duration
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
	s.ctx, s.cancel = context.WithCancel(context.Background())
	// Cleanups run last registered first: the session's context is canceled (a goroutine the test
	// left sleeping or advancing stops), then the session is deleted.
	t.Cleanup(func() {
		s.keepIfFailed(t)
		if err := s.Close(); err != nil {
			t.Errorf("svcsandbox: deleting the session at the end of the test: %v", err)
		}
	})
	t.Cleanup(s.cancel)
	return s
}

// NewSession makes a session on this server (POST /__sandbox/sessions). Close deletes it. ctx
// bounds the call (opts.Timeout, else SVC_SANDBOX_TIMEOUT, else DefaultTimeout, when ctx has no
// deadline); the session's own context, which its ctx-free methods run on, is
// context.Background(). opts.Server is not used.
func (srv *Server) NewSession(ctx context.Context, opts Options) (*Session, error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		var err error
		if timeout, err = envTimeout(); err != nil {
			return nil, err
		}
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
	if err := (ServerControl{srv: srv, name: "NewSession", timeout: timeout}).CreateSession(ctx, body, &made); err != nil {
		return nil, err
	}
	return &Session{ID: made.ID, APIKey: made.APIKey, BaseURL: srv.URL, Server: srv, Timeout: timeout,
		ctx: context.Background(), clock: make(chan struct{}, 1), flight: newFlight()}, nil
}

// Close deletes the session: its keys are 401 from then on. Closing a session already deleted is
// not an error. For a session made without a test (Server.NewSession), Close also returns the
// first failure of Sleep, which had no test to report it to. Close runs on a fresh context (the
// session's own has ended when NewSession's cleanup calls it), bounded by the session's Timeout.
func (s *Session) Close() error { return s.CloseContext(context.Background()) }

// CloseContext is Close on ctx.
func (s *Session) CloseContext(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	sleepErr := s.sleepErr
	s.mu.Unlock()
	err := s.ctl("Close").DeleteSession(ctx)
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
