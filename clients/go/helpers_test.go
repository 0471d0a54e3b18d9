package svcsandbox_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	svcsandbox "github.com/svc-sandbox/svc-sandbox/clients/go"
)

// What a user's suite writes beside the helper: requests to /v1 (their SDK does this), and a
// webhook receiver.

type answer struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// api sends one /v1 request with key, a body as JSON.
func api(t *testing.T, s *svcsandbox.Session, key, method, path string, body any) answer {
	t.Helper()
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, s.BaseURL+path, reader)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &a.Body)
	return a
}

// placeCall creates a call from the session's key and returns its id.
func placeCall(t *testing.T, s *svcsandbox.Session, to string) string {
	t.Helper()
	created := api(t, s, s.APIKey, "POST", "/v1/calls", map[string]any{"to": to, "from": "+14155550100"})
	if created.Status != 201 {
		t.Fatalf("POST /v1/calls: %d %s", created.Status, created.Raw)
	}
	return created.Body["id"].(string)
}

func types(events []svcsandbox.Event) []string {
	names := []string{}
	for _, e := range events {
		names = append(names, e.Type)
	}
	return names
}

// receiver records the raw webhooks it gets and answers with a status a test can change.
type receiver struct {
	*httptest.Server
	status  atomic.Int32
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
	arrived chan struct{} // closed and replaced at every arrival
}

func startReceiver(t *testing.T, status int) *receiver {
	r := &receiver{arrived: make(chan struct{})}
	r.status.Store(int32(status))
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, raw)
		r.headers = append(r.headers, req.Header.Clone())
		close(r.arrived)
		r.arrived = make(chan struct{})
		r.mu.Unlock()
		w.WriteHeader(int(r.status.Load()))
	}))
	t.Cleanup(r.Close)
	return r
}

// waitFor returns the first n webhooks once they have arrived, or fails the test after 10 s.
func (r *receiver) waitFor(t *testing.T, n int) ([][]byte, []http.Header) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		bodies, headers, arrived := r.bodies, r.headers, r.arrived
		r.mu.Unlock()
		if len(bodies) >= n {
			return bodies[:n], headers[:n]
		}
		select {
		case <-arrived:
		case <-deadline:
			t.Fatalf("%d webhooks arrived, expected %d", len(bodies), n)
		}
	}
}

// subscribe subscribes the receiver to events and returns the subscription's secret.
func subscribe(t *testing.T, s *svcsandbox.Session, r *receiver, events ...string) string {
	t.Helper()
	sub := api(t, s, s.APIKey, "POST", "/v1/webhooks", map[string]any{"url": r.URL + "/hooks", "events": events})
	if sub.Status != 201 {
		t.Fatalf("POST /v1/webhooks: %d %s", sub.Status, sub.Raw)
	}
	return sub.Body["secret"].(string)
}
