package voiceapp

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"
	"time"

	svcsandbox "github.com/svc-sandbox/svc-sandbox/clients/go"
)

// Testing back-off: the SDK's retries wait on the session's virtual clock, so a test of a
// two-second Retry-After takes milliseconds, and knows exactly how much time passed.

// retryingClient stands in for an SDK that retries a 503 or 429 after its Retry-After, at most
// three times. Real SDKs take a sleep function and an *http.Client the same way.
type retryingClient struct {
	baseURL, key string
	http         *http.Client
	sleep        func(time.Duration)
}

func (c *retryingClient) createCall(to string) (status, tries int, err error) {
	for tries = 1; ; tries++ {
		req, err := http.NewRequest("POST", c.baseURL+"/v1/calls", bytes.NewBufferString(`{"to": "`+to+`", "from": "+14155550100"}`))
		if err != nil {
			return 0, tries, err
		}
		req.Header.Set("Authorization", "Bearer "+c.key)
		req.Header.Set("Content-Type", "application/json")
		res, err := c.http.Do(req)
		if err != nil {
			return 0, tries, err
		}
		res.Body.Close()
		retryable := res.StatusCode == 429 || res.StatusCode == 503
		if !retryable || tries == 3 {
			return res.StatusCode, tries, nil
		}
		seconds, _ := strconv.Atoi(res.Header.Get("Retry-After"))
		c.sleep(time.Duration(seconds) * time.Second)
	}
}

func TestTheClientRetriesAnOutageAfterItsRetryAfter(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: seed})
	client := &retryingClient{baseURL: s.BaseURL, key: s.APIKey, http: s.HTTPClient(), sleep: s.Sleep}
	// The next two calls placed get 503 with Retry-After: 2.
	if _, err := s.InjectFault(svcsandbox.Fault{Method: "POST", Path: "/v1/calls", Status: 503, RetryAfter: 2, Times: 2}); err != nil {
		t.Fatal(err)
	}

	status, tries, err := client.createCall("+14155550123")
	if err != nil || status != 201 || tries != 3 {
		t.Fatalf("status %d after %d tries: %v", status, tries, err)
	}
	now, err := s.Now()
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 1, 1, 0, 0, 4, 0, time.UTC); !now.Equal(want) {
		t.Errorf("two waits of 2 s left the clock at %s, expected %s", now, want)
	}
	journal, err := s.Requests()
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, r := range journal {
		seen = append(seen, r.At+" "+strconv.Itoa(r.Status))
	}
	want := []string{"2026-01-01T00:00:00.000Z 503", "2026-01-01T00:00:02.000Z 503", "2026-01-01T00:00:04.000Z 201"}
	if !equal(seen, want) {
		t.Errorf("requests: %v, expected %v", seen, want)
	}
}
