package voiceapp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// delivery is one webhook request as it arrived.
type delivery struct {
	Path   string
	Header http.Header
	Body   []byte // the raw bytes: what the signature covers
}

// receiver is a webhook receiver for tests: an httptest server on 127.0.0.1, a free port. It
// records every request and answers with a status (200 at first) that a test can change at any
// time (500 to make deliveries fail).
type receiver struct {
	status atomic.Int32
	server *httptest.Server

	mu         sync.Mutex
	deliveries []delivery
	arrived    chan struct{} // closed and replaced at every arrival
}

// startReceiver starts a receiver, closed when the test ends.
func startReceiver(t *testing.T) *receiver {
	r := &receiver{arrived: make(chan struct{})}
	r.status.Store(200)
	r.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.deliveries = append(r.deliveries, delivery{Path: req.URL.Path, Header: req.Header.Clone(), Body: raw})
		close(r.arrived)
		r.arrived = make(chan struct{})
		r.mu.Unlock()
		w.WriteHeader(int(r.status.Load()))
	}))
	t.Cleanup(r.server.Close)
	return r
}

// url is the URL to subscribe.
func (r *receiver) url() string { return r.server.URL + "/hooks" }

// waitFor returns the deliveries once count have arrived, or false after 5 real seconds. Advance
// answers once the deliveries it started have settled, so they are normally here already.
func (r *receiver) waitFor(count int) ([]delivery, bool) {
	deadline := time.After(5 * time.Second)
	for {
		r.mu.Lock()
		got, arrived := append([]delivery(nil), r.deliveries...), r.arrived
		r.mu.Unlock()
		if len(got) >= count {
			return got, true
		}
		select {
		case <-arrived:
		case <-deadline:
			return got, false
		}
	}
}
