package svcsandbox

import (
	"context"
	"fmt"
	"time"
)

// Sleep advances the session's virtual clock by d instead of sleeping: inject it into an SDK
// that takes a sleep function, and its back-off (a 429's Retry-After, a 5xx's exponential retry)
// is tested exactly and at once.
//
//	client := yoursdk.New(s.APIKey, yoursdk.WithBaseURL(s.BaseURL), yoursdk.WithSleep(s.Sleep))
//
// A sleep means "until virtual time reaches the virtual now when the sleep began, plus d", so
// sleeps that overlap share the time they wait: 250 goroutines sleeping 600 ms from the same
// virtual instant move the clock 600 ms, not 150 s. Each sleep reads the session's now when it
// begins, then, one sleep at a time, reads it again, lets the requests of HTTPClient that await
// their answer finish, and advances only what is left.
//
// Sleep has no error to return: a failure (the server gone) fails the test that made the session
// (t.Errorf). For a session made with Server.NewSession, Close returns the first failure.
// SleepContext returns it.
func (s *Session) Sleep(d time.Duration) {
	if err := s.SleepContext(s.context(), d); err != nil {
		s.mu.Lock()
		if s.sleepErr == nil {
			s.sleepErr = err
		}
		s.mu.Unlock()
		// Once the test has ended (its context canceled) there is no test left to fail.
		if s.tb != nil && s.context().Err() == nil {
			s.tb.Errorf("%v", err)
		}
	}
}

// Sleeps is the record of the sleeps asked of Sleep and SleepContext, in the order they began:
// what your SDK's back-off asked for, to assert exactly (Python's sleeps.calls). A sleep of 0 or
// less is recorded too, though it moves nothing.
//
//	client.CreateCall(...) // a 503 with Retry-After: 2, twice, then a 201
//	if got := s.Sleeps(); !reflect.DeepEqual(got, []time.Duration{2 * time.Second, 2 * time.Second}) {
//		t.Errorf("sleeps: %v", got)
//	}
func (s *Session) Sleeps() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration{}, s.sleeps...)
}

// SleepContext is Sleep bounded by ctx, its failure returned. Its signature,
// func(context.Context, time.Duration) error, fits SDKs that take a context-aware sleep.
func (s *Session) SleepContext(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.sleeps = append(s.sleeps, d)
	s.mu.Unlock()
	if d <= 0 {
		return nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	// The whole sleep, its waits for other sleeps and for answers included, is bounded.
	within := "the context's deadline"
	if _, ok := ctx.Deadline(); !ok {
		within = fmt.Sprintf("%s (the session's Timeout)", s.Timeout)
	}
	ctx, cancel := bounded(ctx, s.Timeout)
	defer cancel()
	begin, err := s.now(ctx, "Sleep")
	if err != nil {
		return err
	}
	target := begin.Add(d)
	select {
	case s.clock <- struct{}{}:
		defer func() { <-s.clock }()
	case <-ctx.Done():
		return fmt.Errorf("svcsandbox: Sleep(%s) on session %s: the sleeps before it did not end within %s: %w", d, s.ID, within, ctx.Err())
	}
	now, err := s.now(ctx, "Sleep")
	if err != nil {
		return err
	}
	gap := target.Sub(now)
	if gap <= 0 {
		return nil
	}
	if err := s.flight.wait(ctx); err != nil {
		return fmt.Errorf("svcsandbox: Sleep(%s) on session %s: within %s, %w", d, s.ID, within, err)
	}
	// Whole milliseconds, rounded up: the clock's resolution, and never short of the target.
	ms := (gap + time.Millisecond - 1) / time.Millisecond
	_, err = s.advance(ctx, "Sleep", int64(ms))
	return err
}
