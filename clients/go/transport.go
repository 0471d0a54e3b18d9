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
	"os"
	"strconv"
	"strings"
	"time"
)

// What the helper trusts a server with (SVC_SANDBOX_URL may name anything): each refusal is an
// error naming the server.
const (
	// MaxAnswerBytes bounds one control answer: at most this many bytes are read (64 MiB).
	MaxAnswerBytes = 64 << 20
	// MaxPages bounds the pages a listing (Events, Deliveries, ...) walks: 10,000 of 200 items.
	MaxPages = 10000
	// TimeoutEnv names the variable that sets the default bound of a whole control call, in
	// seconds (connecting, the headers and the whole body); DefaultTimeout when unset.
	TimeoutEnv = "SVC_SANDBOX_TIMEOUT"
)

// The bounds the tests lower, to meet them quickly.
var (
	maxAnswerBytes int64 = MaxAnswerBytes
	maxPages             = MaxPages
)

// envTimeout is the bound of a control call when neither Options.Timeout nor a context's
// deadline gives one: SVC_SANDBOX_TIMEOUT seconds, else DefaultTimeout.
func envTimeout() (time.Duration, error) {
	text := strings.TrimSpace(os.Getenv(TimeoutEnv))
	if text == "" {
		return DefaultTimeout, nil
	}
	seconds, err := strconv.ParseFloat(text, 64)
	if err != nil || seconds <= 0 || seconds > 1e9 {
		return 0, fmt.Errorf("svcsandbox: %s=%q is not a number of seconds above 0 (e.g. %s=60)", TimeoutEnv, text, TimeoutEnv)
	}
	return time.Duration(seconds * float64(time.Second)), nil
}

// op names a control call for its errors, and bounds it.
type op struct {
	name, session string
	// timeout bounds the call when its context has no deadline; 0: envTimeout.
	timeout time.Duration
}

func (o op) String() string {
	if o.session == "" {
		return o.name
	}
	return o.name + " on session " + o.session
}

// SessionControl makes the control operations of one session (Session.Control), one method per
// operation of the served control document, named after its operationId (operations.go, generated).
// Each takes a context first; path parameters are percent-encoded; body is sent as JSON and the
// answer decoded into out, as json.Unmarshal does. The Session's own methods are typed wrappers over
// these: reach for SessionControl when you need a field they do not carry.
//
//	var res struct{ Now string }
//	err := s.Control().Advance(ctx, map[string]any{"duration": "65s"}, &res)
type SessionControl struct {
	srv     *Server
	session string
	// name is the Op of the errors: the typed method's ("Trigger"), or "" for the operation's.
	name    string
	timeout time.Duration
}

func (c SessionControl) op(name string) op {
	if c.name != "" {
		name = c.name
	}
	return op{name: name, session: c.session, timeout: c.timeout}
}

// ServerControl makes the server-wide control operations (Server.Control): health, sessions,
// coverage, as SessionControl does for one session.
type ServerControl struct {
	srv     *Server
	name    string
	timeout time.Duration
}

func (c ServerControl) op(name string) op {
	if c.name != "" {
		name = c.name
	}
	return op{name: name, timeout: c.timeout}
}

// Control is the server-wide control operations, each taking a context first.
func (srv *Server) Control() ServerControl { return ServerControl{srv: srv} }

// send makes one control request (path below /__sandbox, already encoded) with body as JSON, and
// decodes a 2xx answer into out. A 4xx or 5xx answer is a *SandboxError; anything else an error
// that says what the server is and, for one this process started, whether it still runs.
func (srv *Server) send(ctx context.Context, o op, method, path string, query url.Values, body, out any) error {
	timeout := o.timeout
	if timeout <= 0 {
		var err error
		if timeout, err = envTimeout(); err != nil {
			return err
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	_, hadDeadline := ctx.Deadline()
	// The deadline covers the whole call: connecting, the headers, and reading the whole body.
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
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return fmt.Errorf("svcsandbox: %s: %w", o, err)
	}
	req.Header.Set("Accept", "application/json")
	switch out.(type) {
	case *[]byte, *string:
		req.Header.Set("Accept", "*/*")
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := srv.client.Do(req)
	if err != nil {
		return srv.unanswered(ctx, o, method, target, err, hadDeadline, timeout)
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		return fmt.Errorf("svcsandbox: %s (%s %s): the server at %s answered %s to %q; the helper follows no redirect: "+
			"point SVC_SANDBOX_URL (or Connect) at the svc-sandbox server itself", o, method, target, srv.URL, res.Status, res.Header.Get("Location"))
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes+1))
	if err != nil {
		return srv.unanswered(ctx, o, method, target, err, hadDeadline, timeout)
	}
	if int64(len(raw)) > maxAnswerBytes {
		return fmt.Errorf("svcsandbox: %s (%s %s): the answer of the server at %s is larger than %d bytes; the helper reads no more", o, method, target, srv.URL, maxAnswerBytes)
	}
	if res.StatusCode >= 400 {
		return answerError(o, method, strings.TrimPrefix(target, srv.URL), res.StatusCode, raw)
	}
	// An answer that is no JSON (the console's page, a recording's WAV) is returned as it came.
	switch v := out.(type) {
	case *[]byte:
		*v = raw
		return nil
	case *string:
		*v = string(raw)
		return nil
	}
	if out == nil || len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("svcsandbox: %s (%s %s): the answer %d is not the JSON expected (%s): %v", o, method, target, res.StatusCode, snippet(raw), err)
	}
	return nil
}

// unanswered explains a call that got no (whole) answer: a timeout, a server that died, or one
// that does not listen.
func (srv *Server) unanswered(ctx context.Context, o op, method, target string, err error, hadDeadline bool, timeout time.Duration) error {
	why := fmt.Sprintf("no answer from the svc-sandbox server (%s)", srv.origin)
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		why = "the context was canceled"
	case ctx.Err() != nil && hadDeadline:
		why = "no whole answer within " + timeoutOf(ctx)
	case ctx.Err() != nil:
		why = fmt.Sprintf("no whole answer within %s (the session's Timeout: raise Options.Timeout or %s, or give the ...Context variant a longer deadline)", timeout, TimeoutEnv)
	}
	if p := srv.proc; p != nil {
		// A refused connection may be seen a moment before the process is reaped.
		waitFor(p.exited, time.Second)
		if died := p.died(); died != "" {
			why = died
		}
	}
	// The transport's own error repeats the method and URL: keep only its cause.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
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
// enough idle connections for many goroutines sleeping at once, and no redirect followed: a 3xx is
// returned as it is, so no request (nor its body) goes anywhere but the server named.
func newClient() *http.Client {
	return &http.Client{
		Transport:     &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
