package svcsandbox_test

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	svcsandbox "github.com/svc-sandbox/svc-sandbox/clients/go"
)

// An SDK's back-off, tested through Sleep: a burst over the 100 requests per virtual second of a
// standard key, each 429 retried after its Retry-After, the waiting done on the virtual clock.

// sdk is what a service SDK does: it retries a 429 after Retry-After, with a sleep it is given.
type sdk struct {
	baseURL, key string
	sleep        func(time.Duration)
	client       *http.Client
}

// attempt is one try of a request as the SDK saw it.
type attempt struct {
	status int
	date   time.Time // the answer's Date: the session's virtual now
	reset  int64     // X-RateLimit-Reset, epoch seconds
}

func (c *sdk) createCall(to string) ([]attempt, error) {
	var tries []attempt
	for {
		req, err := http.NewRequest("POST", c.baseURL+"/v1/calls", bytes.NewBufferString(`{"to": "`+to+`", "from": "+14155550100"}`))
		if err != nil {
			return tries, err
		}
		req.Header.Set("Authorization", "Bearer "+c.key)
		req.Header.Set("Content-Type", "application/json")
		res, err := c.client.Do(req)
		if err != nil {
			return tries, err
		}
		res.Body.Close()
		date, _ := http.ParseTime(res.Header.Get("Date"))
		reset, _ := strconv.ParseInt(res.Header.Get("X-RateLimit-Reset"), 10, 64)
		tries = append(tries, attempt{res.StatusCode, date, reset})
		if res.StatusCode != http.StatusTooManyRequests || len(tries) == 10 {
			return tries, nil
		}
		seconds, err := strconv.Atoi(res.Header.Get("Retry-After"))
		if err != nil {
			return tries, err
		}
		c.sleep(time.Duration(seconds) * time.Second)
	}
}

func TestAnSDKBacksOffA429BurstOnTheVirtualClock(t *testing.T) {
	t.Parallel()
	const burst = 250
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: 9})
	client := &sdk{baseURL: s.BaseURL, key: s.APIKey, sleep: s.Sleep, client: s.HTTPClient()}
	start, err := s.Now()
	if err != nil {
		t.Fatal(err)
	}

	results := make([][]attempt, burst)
	var wg sync.WaitGroup
	for i := 0; i < burst; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			tries, err := client.createCall("+14155550123")
			if err != nil {
				t.Error(err)
			}
			results[i] = tries
		}(i)
	}
	wg.Wait()

	limited, slept := 0, time.Duration(0)
	for _, tries := range results {
		if last := tries[len(tries)-1]; last.status != http.StatusCreated {
			t.Fatalf("a call was never created: %+v", tries)
		}
		for i, try := range tries[:len(tries)-1] {
			limited++
			slept += time.Second
			// Sleep waited the whole Retry-After on the virtual clock: the retry came in the
			// next window, never early.
			if next := tries[i+1]; next.date.Unix() < try.reset {
				t.Errorf("a retry at %s, before the window's reset at %d", next.date, try.reset)
			}
		}
	}
	if limited == 0 {
		t.Fatalf("no request of a burst of %d over a limit of 100 was answered 429", burst)
	}
	end, err := s.Now()
	if err != nil {
		t.Fatal(err)
	}
	// 250 calls need three one-second windows at least. Each sleep advances the clock by what is
	// left of its own wait, at most its second, and sleeps that overlap share their wait: the
	// clock moves seconds, never more than the sum of every sleep. (How many answers are 429
	// depends on how the goroutines interleave with the server; that sleeps beginning at one
	// instant advance the clock once is shown exactly in TestSleepersThatBeginAtTheSameInstantMoveTheClockOnce.)
	elapsed := end.Sub(start)
	t.Logf("%d calls, %d answered 429, %s slept in all, the clock moved %s", burst, limited, slept, elapsed)
	if elapsed < 2*time.Second || elapsed > slept {
		t.Errorf("the clock moved %s for %d sleeps of a second each", elapsed, limited)
	}
}
