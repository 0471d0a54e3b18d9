package svcsandbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"
)

// VerifyWebhook is the SDK's webhook check: X-Service-Signature is the lowercase hex
// HMAC-SHA256 of the raw body, keyed with the whole whsec_… secret. Verify the exact bytes
// received, before parsing them, and compare in constant time.
func VerifyWebhook(rawBody []byte, signature, secret string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(rawBody)
	expected := hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(expected), []byte(signature))
}

// Delivery is one webhook request as it arrived.
type Delivery struct {
	Path   string
	Header http.Header
	Body   []byte // the raw bytes: what the signature covers
}

// Receiver is a webhook receiver for tests: an httptest server on 127.0.0.1, a free port.
// It records every request and answers with a status (200 at first) that a test can change at any time
// (500 to make deliveries fail).
type Receiver struct {
	status int32
	server *httptest.Server

	mu         sync.Mutex
	deliveries []Delivery
	arrived    chan struct{} // closed and replaced at every arrival
}

// StartReceiver starts a receiver; stop it with Close.
func StartReceiver() *Receiver {
	r := &Receiver{status: 200, arrived: make(chan struct{})}
	r.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.deliveries = append(r.deliveries, Delivery{Path: req.URL.Path, Header: req.Header.Clone(), Body: raw})
		close(r.arrived)
		r.arrived = make(chan struct{})
		r.mu.Unlock()
		w.WriteHeader(int(atomic.LoadInt32(&r.status)))
	}))
	return r
}

// SetStatus changes the status the receiver answers with.
func (r *Receiver) SetStatus(status int) { atomic.StoreInt32(&r.status, int32(status)) }

// URL is the URL to subscribe.
func (r *Receiver) URL() string { return r.server.URL + "/hooks" }

// Close stops the receiver.
func (r *Receiver) Close() { r.server.Close() }

// WaitFor returns the deliveries once `count` have arrived, or false after 5 real seconds.
func (r *Receiver) WaitFor(count int) ([]Delivery, bool) {
	deadline := time.After(5 * time.Second)
	for {
		r.mu.Lock()
		got, arrived := append([]Delivery(nil), r.deliveries...), r.arrived
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
