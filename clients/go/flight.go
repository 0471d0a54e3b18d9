package svcsandbox

import (
	"context"
	"fmt"
	"net/http"
	"sync"
)

// HTTPClient is an *http.Client for your SDK's requests to the session. Sleep never moves the
// clock while a request sent through it awaits its answer: a burst from many goroutines is
// answered at one virtual instant, and only then does a back-off move time on. Give your SDK both:
//
//	client := yoursdk.New(s.APIKey, yoursdk.WithBaseURL(s.BaseURL),
//		yoursdk.WithHTTPClient(s.HTTPClient()), yoursdk.WithSleep(s.Sleep))
func (s *Session) HTTPClient() *http.Client { return &http.Client{Transport: s.Transport(nil)} }

// Transport wraps base (nil: http.DefaultTransport) as HTTPClient's transport does, for an SDK
// that takes a RoundTripper, or an http.Client of your own.
func (s *Session) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &countingTransport{base: base, flight: s.flight}
}

type countingTransport struct {
	base   http.RoundTripper
	flight *flight
}

// RoundTrip counts the request until its answer's headers arrive: by then the server has
// answered it at the virtual time it had, and reading the body takes no virtual time.
func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.flight.start()
	defer c.flight.end()
	return c.base.RoundTrip(req)
}

// flight counts the requests of a session's HTTPClient that await their answer.
type flight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed while n is 0
	// onWait, when set (by tests), runs when a sleep begins to wait for requests to be answered.
	onWait func()
}

func newFlight() *flight {
	f := &flight{idle: make(chan struct{})}
	close(f.idle)
	return f
}

func (f *flight) start() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
}

func (f *flight) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 {
		close(f.idle)
	}
}

// wait returns once no request is awaiting its answer, or with ctx's error.
func (f *flight) wait(ctx context.Context) error {
	f.mu.Lock()
	n, idle, onWait := f.n, f.idle, f.onWait
	f.mu.Unlock()
	if n == 0 {
		return nil
	}
	if onWait != nil {
		onWait()
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%d requests through the session's HTTPClient were still unanswered: %w", n, ctx.Err())
	}
}
