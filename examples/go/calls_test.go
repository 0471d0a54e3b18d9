package voiceapp

import (
	"regexp"
	"testing"

	svcsandbox "github.com/svc-sandbox/svc-sandbox/clients/go"
)

// A call's lifecycle on the session's virtual clock: no sleeps, time moves when the test says so.

var callID = regexp.MustCompile(`^call_[0-9A-Za-z]{16}$`)

func TestACallRingsIsAnsweredAndCompletes(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: seed})

	call := createCall(t, s, "+14155550123")
	if !callID.MatchString(call.ID) || call.Status != "ringing" || call.Fields["ai_handler"] != "none" {
		t.Fatalf("created %+v", call)
	}

	// Any ordinary number rings 5 s, is answered, and talks 60 s.
	res, err := s.Advance("65s")
	if err != nil {
		t.Fatal(err)
	}
	if res.Now != "2026-01-01T00:01:05.000Z" {
		t.Errorf("now = %s", res.Now)
	}
	if got := types(res.Events); !equal(got, []string{"call.answered", "call.completed"}) {
		t.Errorf("events during the advance: %v", got)
	}
	done := getCall(t, s, call.ID)
	if done.Status != "completed" || done.Disposition != "answered" || done.Duration == nil || *done.Duration != 60 {
		t.Errorf("after 65 s: %+v", done)
	}
}

func TestTheMagicNumbersOfTheSimulatedNetwork(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: seed})

	unreachable := request(t, s, "POST", "/v1/calls", map[string]string{"to": "+15005550001", "from": "+14155550100"})
	if unreachable.Status != 422 || unreachable.apiError().Code != "unreachable_destination" {
		t.Fatalf("unreachable: %d %s", unreachable.Status, unreachable.Body)
	}
	busy := createCall(t, s, "+15005550002")
	noAnswer := createCall(t, s, "+15005550003")
	if _, err := s.Advance("30s"); err != nil {
		t.Fatal(err)
	}
	if got := getCall(t, s, busy.ID).Disposition; got != "busy" {
		t.Errorf("busy number: %s", got)
	}
	if got := getCall(t, s, noAnswer.ID).Disposition; got != "no_answer" {
		t.Errorf("no-answer number: %s", got)
	}
}

func TestABadBodyIs400NamingTheField(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: seed})

	answer := request(t, s, "POST", "/v1/calls", map[string]string{"to": "4155550123", "from": "+14155550100"})
	if apiErr := answer.apiError(); answer.Status != 400 || apiErr.Code != "invalid_parameter" || apiErr.Param != "to" {
		t.Fatalf("a number without +: %d %s", answer.Status, answer.Body)
	}
	if answer.Header.Get("X-Request-Id") == "" || answer.Header.Get("X-RateLimit-Remaining") == "" {
		t.Errorf("headers of every answer missing: %v", answer.Header)
	}
}

func TestSessionsWithTheSameSeedGiveTheSameIdsAndKeepTheirOwnTime(t *testing.T) {
	t.Parallel()
	mine := svcsandbox.NewSession(t, svcsandbox.Options{Seed: seed})
	twin := svcsandbox.NewSession(t, svcsandbox.Options{Seed: seed})

	a := createCall(t, mine, "+14155550123")
	b := createCall(t, twin, "+14155550123")
	if a.ID != b.ID {
		t.Errorf("same seed, different ids: %s %s", a.ID, b.ID)
	}
	if _, err := mine.Advance("65s"); err != nil {
		t.Fatal(err)
	}
	if got := getCall(t, mine, a.ID).Status; got != "completed" {
		t.Errorf("mine: %s", got)
	}
	if got := getCall(t, twin, b.ID).Status; got != "ringing" {
		t.Errorf("the twin's clock moved too: %s", got)
	}
}
