package svcsandbox

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// Sleep's arithmetic, on a fake control API that can hold the first advance until every sleeper
// has begun: the one order a real server cannot be made to show on demand.

func TestSleepersThatBeginAtTheSameInstantMoveTheClockOnce(t *testing.T) {
	const sleepers = 250
	fake := newFakeControl(t, nil)
	begun := make(chan struct{})
	// Every sleeper reads the now once when it begins; the first to hold the clock reads it
	// once more before it advances.
	fake.onRead = func(reads int) {
		if reads == sleepers+1 {
			close(begun)
		}
	}
	fake.beforeAdvance = func() {
		select {
		case <-begun:
		case <-time.After(10 * time.Second):
		}
	}
	s := fakeSession(t, fake)

	errs := make(chan error, sleepers)
	var wg sync.WaitGroup
	for i := 0; i < sleepers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.SleepContext(context.Background(), 600*time.Millisecond)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(fake.advances, []int64{600}) {
		t.Errorf("250 sleeps of 600ms from one instant advanced %v, expected [600]", fake.advances)
	}

	// A sleep that begins later waits from its own beginning, rounded up to whole milliseconds.
	fake.beforeAdvance = nil
	s.Sleep(1500 * time.Microsecond)
	s.Sleep(0)
	if !reflect.DeepEqual(fake.advances, []int64{600, 2}) || fake.nowText() != "2026-01-01T00:00:00.602Z" {
		t.Errorf("advances %v, now %s", fake.advances, fake.nowText())
	}
}

func TestSleepLetsTheRequestsOfTheSessionsClientBeAnsweredFirst(t *testing.T) {
	received, release := make(chan struct{}), make(chan struct{})
	var pendingAtAdvance []bool
	var mu sync.Mutex
	pending := false
	fake := newFakeControl(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/v1/calls" {
			return false
		}
		mu.Lock()
		pending = true
		mu.Unlock()
		close(received)
		<-release
		mu.Lock()
		pending = false
		mu.Unlock()
		reply(w, 201, map[string]any{"id": "call_1"})
		return true
	})
	fake.beforeAdvance = func() {
		mu.Lock()
		pendingAtAdvance = append(pendingAtAdvance, pending)
		mu.Unlock()
	}
	s := fakeSession(t, fake)
	var once sync.Once
	letGo := func() { once.Do(func() { close(release) }) }
	s.flight.onWait = letGo // the sleep waits for the request: let it be answered

	answered := make(chan error, 1)
	go func() {
		res, err := s.HTTPClient().Post(fake.URL+"/v1/calls", "application/json", strings.NewReader("{}"))
		if err == nil {
			res.Body.Close()
		}
		answered <- err
	}()
	<-received
	err := s.SleepContext(context.Background(), time.Second)
	letGo() // had the sleep not waited, the request would still hang
	if err != nil {
		t.Fatal(err)
	}
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pendingAtAdvance, []bool{false}) || !reflect.DeepEqual(fake.advances, []int64{1000}) {
		t.Errorf("the clock moved while a request was unanswered: %v %v", pendingAtAdvance, fake.advances)
	}
}

func TestARequestThatIsNeverAnsweredCannotHoldASleepForever(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	received := make(chan struct{}, 1)
	fake := newFakeControl(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/v1/calls" {
			return false
		}
		received <- struct{}{}
		<-hang
		return true
	})
	s := fakeSession(t, fake)
	go func() {
		if res, err := s.HTTPClient().Get(fake.URL + "/v1/calls"); err == nil {
			res.Body.Close()
		}
	}()
	<-received

	s.Timeout = 300 * time.Millisecond
	started := time.Now()
	err := s.SleepContext(context.Background(), time.Second)
	if err == nil || !strings.Contains(err.Error(), "within 300ms (the session's Timeout), 1 requests through the session's HTTPClient were still unanswered") {
		t.Errorf("error: %v", err)
	}
	if elapsed := time.Since(started); elapsed > quick {
		t.Errorf("took %s", elapsed)
	}
	if len(fake.advances) != 0 {
		t.Errorf("the clock moved: %v", fake.advances)
	}
}

func TestASleepThatFailsFailsTheTestOrTheClose(t *testing.T) {
	fake := newFakeControl(t, func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/advance") {
			reply(w, 500, map[string]any{"error": map[string]any{"code": "internal_error", "message": "the clock broke"}})
			return true
		}
		return false
	})
	tb := &recordingTB{TB: t}
	withTest := fakeSession(t, fake)
	withTest.tb = tb
	withTest.Sleep(time.Second)
	if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], "Sleep on session "+fakeSessionID) || !strings.Contains(tb.errors[0], "the clock broke") {
		t.Errorf("reported to the test: %q", tb.errors)
	}

	alone := fakeSession(t, fake)
	alone.Sleep(time.Second)
	alone.Sleep(time.Second)
	if err := alone.Close(); err == nil || !strings.Contains(err.Error(), "500 internal_error") {
		t.Errorf("Close of a session made without a test: %v", err)
	}
}

func fakeSession(t *testing.T, fake *fakeControl) *Session {
	t.Helper()
	srv, err := Connect(context.Background(), fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := srv.NewSession(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Regression: Go had no record of the sleeps asked, as Python's sleeps.calls gives.
func TestSleepsRecordsEverySleepInOrder(t *testing.T) {
	fake := newFakeControl(t, nil)
	s := fakeSession(t, fake)
	s.Sleep(2 * time.Second)
	if err := s.SleepContext(context.Background(), 500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	s.Sleep(0)
	want := []time.Duration{2 * time.Second, 500 * time.Millisecond, 0}
	if got := s.Sleeps(); !reflect.DeepEqual(got, want) {
		t.Errorf("Sleeps() = %v, want %v", got, want)
	}
	got := s.Sleeps()
	got[0] = time.Hour // a copy: the record is not the caller's to change
	if s.Sleeps()[0] != 2*time.Second {
		t.Error("Sleeps returned the record itself")
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if !reflect.DeepEqual(fake.advances, []int64{2000, 500}) {
		t.Errorf("advanced %v", fake.advances)
	}
}
