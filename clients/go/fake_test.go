package svcsandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeControl is a stand-in for the control API of one session, for what a real server cannot be
// made to do on demand: hang, or hold an advance until the test lets it go.
type fakeControl struct {
	*httptest.Server
	mu       sync.Mutex
	now      time.Time
	reads    int     // GET /sessions/{id}: reads of the virtual now
	advances []int64 // the durations advanced, in ms
	// beforeAdvance, when set, runs before an advance moves the clock; onRead after each read
	// of the now, with the count so far.
	beforeAdvance func()
	onRead        func(reads int)
}

const fakeSessionID = "ses_fake0000000000"

// quick is how long a failure "at once" may take on a loaded machine: far below any timeout.
const quick = 5 * time.Second

// newFakeControl serves the health check, one session and its clock; override answers a
// request first when it returns true.
func newFakeControl(t *testing.T, override func(http.ResponseWriter, *http.Request) bool) *fakeControl {
	f := &fakeControl{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if override != nil && override(w, r) {
			return
		}
		session := "/__sandbox/sessions/" + fakeSessionID
		switch {
		case r.Method == "GET" && r.URL.Path == "/__sandbox/health":
			reply(w, 200, map[string]any{"status": "ok"})
		case r.Method == "POST" && r.URL.Path == "/__sandbox/sessions":
			reply(w, 201, map[string]any{"id": fakeSessionID, "apiKey": "SVC_TEST_" + fakeSessionID + "_key", "now": f.nowText()})
		case r.Method == "GET" && r.URL.Path == session:
			// The now this read answers is taken with its count, before onRead: a test that lets an
			// advance go once the reads it waits for have come must never see one of them answer
			// the advanced now.
			f.mu.Lock()
			f.reads++
			reads := f.reads
			now := f.now.Format(nowLayout)
			f.mu.Unlock()
			if f.onRead != nil {
				f.onRead(reads)
			}
			reply(w, 200, map[string]any{"id": fakeSessionID, "seed": 0, "now": now})
		case r.Method == "POST" && r.URL.Path == session+"/advance":
			var body struct{ Duration int64 }
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				reply(w, 400, map[string]any{"error": map[string]any{"code": "invalid_json", "message": err.Error()}})
				return
			}
			if f.beforeAdvance != nil {
				f.beforeAdvance()
			}
			f.mu.Lock()
			f.advances = append(f.advances, body.Duration)
			f.now = f.now.Add(time.Duration(body.Duration) * time.Millisecond)
			f.mu.Unlock()
			reply(w, 200, map[string]any{"now": f.nowText(), "events": []any{}})
		case r.Method == "DELETE" && strings.HasPrefix(r.URL.Path, session):
			w.WriteHeader(204)
		default:
			reply(w, 404, map[string]any{"error": map[string]any{"code": "not_found", "message": "no fake route " + r.Method + " " + r.URL.Path}})
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// nowLayout is how the control API writes an instant.
const nowLayout = "2006-01-02T15:04:05.000Z"

func (f *fakeControl) nowText() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now.Format(nowLayout)
}

func reply(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// useSharedServer makes sh the shared server for the test (which must not be parallel).
func useSharedServer(t *testing.T, sh *sharedServer) {
	saved := shared
	shared = sh
	t.Cleanup(func() {
		_ = sh.shutdown()
		shared = saved
	})
}

// fatalOf runs fn with a testing.TB whose Fatalf ends fn, and returns the message it was given.
func fatalOf(t *testing.T, fn func(testing.TB)) string {
	t.Helper()
	tb := &recordingTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(tb)
	}()
	<-done
	if tb.fatal == "" {
		t.Fatal("Fatalf was not called")
	}
	return tb.fatal
}

// recordingTB is a test whose Fatalf stops the goroutine and keeps the message, and whose
// Cleanups run when the real test ends.
type recordingTB struct {
	testing.TB
	fatal  string
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func writeFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}
