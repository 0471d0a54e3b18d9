package svcsandbox

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A hostile SVC_SANDBOX_URL: the helper trusts the server it names no further than it must.

func TestTheBoundsAreTheDocumentedOnes(t *testing.T) {
	if MaxAnswerBytes != 64<<20 || maxAnswerBytes != 64<<20 || MaxPages != 10000 || maxPages != 10000 || DefaultTimeout != time.Minute {
		t.Errorf("bounds: %d %d %d %d %s", MaxAnswerBytes, maxAnswerBytes, MaxPages, maxPages, DefaultTimeout)
	}
}

// Regression: a 307 to another origin was followed, the request body sent there again.
func TestARedirectIsAnErrorAndNothingIsSentElsewhere(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		reply(w, 200, map[string]any{"now": "2026-01-01T00:00:01.000Z", "events": []any{}})
	}))
	defer other.Close()
	fake := newFakeControl(t, func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/advance") || strings.HasSuffix(r.URL.Path, "/events") {
			w.Header().Set("Location", other.URL+r.URL.Path)
			w.WriteHeader(http.StatusTemporaryRedirect)
			return true
		}
		return false
	})
	s := fakeSession(t, fake)
	_, err := s.Advance("1s")
	if err == nil || !strings.Contains(err.Error(), "the server at "+fake.URL+" answered 307 Temporary Redirect to \""+other.URL) ||
		!strings.Contains(err.Error(), "follows no redirect") {
		t.Errorf("advance: %v", err)
	}
	_, err = s.Events()
	if err == nil || !strings.Contains(err.Error(), "Events on session "+s.ID) || !strings.Contains(err.Error(), "307") {
		t.Errorf("events: %v", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("%d requests went to the other origin", n)
	}
}

// Regression: SVC_SANDBOX_TIMEOUT was ignored, and a bound applied per read, so an answer dripped
// a byte at a time never timed out.
func TestSVCSandboxTimeoutBoundsTheWholeCall(t *testing.T) {
	t.Setenv(TimeoutEnv, "0.3")
	fake := newFakeControl(t, func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/events") {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, `{"data": [`)
		for {
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return true
			case <-time.After(20 * time.Millisecond):
			}
			_, _ = io.WriteString(w, " ")
		}
	})
	s := fakeSession(t, fake)
	if s.Timeout != 300*time.Millisecond {
		t.Fatalf("the session's Timeout: %s", s.Timeout)
	}
	started := time.Now()
	_, err := s.Events()
	elapsed := time.Since(started)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no whole answer within 300ms") ||
		!strings.Contains(err.Error(), TimeoutEnv) {
		t.Errorf("error: %v", err)
	}
	// A hang would reach the 60 s default; quick is far below it and far above 300 ms.
	if elapsed < 300*time.Millisecond || elapsed > quick {
		t.Errorf("took %s, expected the 300ms of %s", elapsed, TimeoutEnv)
	}
}

func TestABadSVCSandboxTimeoutIsAnErrorNamingIt(t *testing.T) {
	t.Setenv(TimeoutEnv, "ten")
	fake := newFakeControl(t, nil)
	srv, err := Connect(context.Background(), fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = srv.NewSession(context.Background(), Options{})
	if err == nil || err.Error() != `svcsandbox: SVC_SANDBOX_TIMEOUT="ten" is not a number of seconds above 0 (e.g. SVC_SANDBOX_TIMEOUT=60)` {
		t.Errorf("error: %v", err)
	}
	if _, err := srv.NewSession(context.Background(), Options{Timeout: time.Second}); err != nil {
		t.Errorf("Options.Timeout wins over the variable: %v", err)
	}
}

// Regression: a listing followed has_more: true forever.
func TestAListingWalksAtMostMaxPages(t *testing.T) {
	saved := maxPages
	maxPages = 50
	t.Cleanup(func() { maxPages = saved })
	var pages atomic.Int32
	fake := newFakeControl(t, func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/events") {
			return false
		}
		n := pages.Add(1)
		reply(w, 200, map[string]any{"data": []any{map[string]any{"id": "evt_" + r.URL.Query().Get("cursor")}}, "has_more": true, "next_cursor": "c" + string(rune('a'+n%26))})
		return true
	})
	s := fakeSession(t, fake)
	events, err := s.Events()
	if err == nil || !strings.Contains(err.Error(), "Events on session "+s.ID) ||
		!strings.Contains(err.Error(), "the server at "+fake.URL+" answered 50 pages and said there were more") {
		t.Errorf("error: %v", err)
	}
	if pages.Load() != 50 || len(events) != 50 {
		t.Errorf("walked %d pages, kept %d events", pages.Load(), len(events))
	}
}

// Regression: an answer of any size was read whole into memory.
func TestAnAnswerLargerThanTheCapIsAnError(t *testing.T) {
	saved := maxAnswerBytes
	maxAnswerBytes = 1000
	t.Cleanup(func() { maxAnswerBytes = saved })
	var sent atomic.Int64
	fake := newFakeControl(t, func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/snapshot") {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, `{"pad": "`)
		chunk := strings.Repeat("x", 1000)
		for i := 0; i < 1000; i++ { // up to 1 MB, unless the client hangs up first
			n, err := io.WriteString(w, chunk)
			sent.Add(int64(n))
			if err != nil {
				return true
			}
		}
		_, _ = io.WriteString(w, `"}`)
		return true
	})
	s := fakeSession(t, fake)
	_, err := s.Snapshot()
	if err == nil || !strings.Contains(err.Error(), "Snapshot on session "+s.ID) ||
		!strings.Contains(err.Error(), "the answer of the server at "+fake.URL+" is larger than 1000 bytes") {
		t.Errorf("error: %v", err)
	}
	// Under the cap, an answer is read as usual.
	if _, err := s.Events(); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a small answer: %v", err)
	}
}

// A stream's read stops at the cap like any answer, and at its bound with the events it read.
func TestAStreamIsReadToTheCapAndToItsBound(t *testing.T) {
	saved := maxAnswerBytes
	maxAnswerBytes = 1000
	t.Cleanup(func() { maxAnswerBytes = saved })
	fake := newFakeControl(t, func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/stream") {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, "event: change\ndata: {\"now\": 1}\n\n")
		w.(http.Flusher).Flush()
		for i := 0; i < 1000; i++ { // comments, never an event: up to 14 kB, unless the client hangs up first
			if r.URL.Query().Get("drip") == "" {
				if _, err := io.WriteString(w, ": keep-alive\n"); err != nil {
					return true
				}
				continue
			}
			select {
			case <-r.Context().Done():
				return true
			case <-time.After(20 * time.Millisecond): // a drip on real I/O: what the bound must end
			}
			_, _ = io.WriteString(w, ":")
			w.(http.Flusher).Flush()
		}
		return true
	})
	s := fakeSession(t, fake)
	events, err := s.Control().StreamSession(context.Background(), 5)
	if err == nil || !strings.Contains(err.Error(), "the stream of the server at "+fake.URL+" sent more than 1000 bytes") || len(events) != 1 {
		t.Errorf("a stream past the cap: %d events, %v", len(events), err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	got, err := s.Server.stream(ctx, op{name: "StreamSession"}, "/sessions/"+fakeSessionID+"/stream?drip=1", 5)
	if err != nil || len(got) != 1 || got[0].Event != "change" || string(got[0].Data) != `{"now": 1}` {
		t.Errorf("a dripped stream at its bound: %+v %v", got, err)
	}
}
