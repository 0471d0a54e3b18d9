package svcsandbox

import (
	"regexp"
	"testing"
)

// A call's lifecycle on the session's virtual clock: no sleeps, time moves when the test says so.

var callID = regexp.MustCompile(`^call_[0-9A-Za-z]{16}$`)

func TestACallRingsIsAnsweredAndCompletes(t *testing.T) {
	t.Parallel()
	session, api := newSession(t)

	call := createCall(t, api, "+14155550123", nil)
	if !callID.MatchString(call.ID) || call.Status != "ringing" || call.AIHandler != "none" {
		t.Fatalf("created %+v", call)
	}

	// Any ordinary number rings 5 s, is answered, and talks 60 s.
	now, events, err := session.Advance("65s")
	if err != nil {
		t.Fatal(err)
	}
	if now != "2026-01-01T00:01:05.000Z" {
		t.Errorf("now = %s", now)
	}
	if got := types(events); !equal(got, []string{"call.answered", "call.completed"}) {
		t.Errorf("events during the advance: %v", got)
	}
	done := getCall(t, api, call.ID)
	if done.Status != "completed" || done.Disposition != "answered" || done.Duration != 60 {
		t.Errorf("after 65 s: %+v", done)
	}
}

func TestTheMagicNumbersOfTheSimulatedNetwork(t *testing.T) {
	t.Parallel()
	session, api := newSession(t)

	unreachable, err := api.Request("POST", "/v1/calls", map[string]string{"to": "+15005550001", "from": "+14155550100"})
	if err != nil || unreachable.Status != 422 || unreachable.Error().Code != "unreachable_destination" {
		t.Fatalf("unreachable: %v %v", unreachable, err)
	}
	busy := createCall(t, api, "+15005550002", nil)
	noAnswer := createCall(t, api, "+15005550003", nil)
	if _, _, err := session.Advance("30s"); err != nil {
		t.Fatal(err)
	}
	if got := getCall(t, api, busy.ID).Disposition; got != "busy" {
		t.Errorf("busy number: %s", got)
	}
	if got := getCall(t, api, noAnswer.ID).Disposition; got != "no_answer" {
		t.Errorf("no-answer number: %s", got)
	}
}

func TestABadBodyIs400NamingTheField(t *testing.T) {
	t.Parallel()
	_, api := newSession(t)

	answer, err := api.Request("POST", "/v1/calls", map[string]string{"to": "4155550123", "from": "+14155550100"})
	if err != nil {
		t.Fatal(err)
	}
	if apiErr := answer.Error(); answer.Status != 400 || apiErr == nil || apiErr.Code != "invalid_parameter" || apiErr.Param != "to" {
		t.Fatalf("a number without +: %v", answer)
	}
	if answer.Header.Get("X-Request-Id") == "" || answer.Header.Get("X-RateLimit-Remaining") == "" {
		t.Errorf("headers of every answer missing: %v", answer.Header)
	}
}

func TestSessionsWithTheSameSeedGiveTheSameIdsAndKeepTheirOwnTime(t *testing.T) {
	t.Parallel()
	mine, myAPI := newSession(t)
	_, twinAPI := newSession(t)

	a := createCall(t, myAPI, "+14155550123", nil)
	b := createCall(t, twinAPI, "+14155550123", nil)
	if a.ID != b.ID {
		t.Errorf("same seed, different ids: %s %s", a.ID, b.ID)
	}
	if _, _, err := mine.Advance("65s"); err != nil {
		t.Fatal(err)
	}
	if got := getCall(t, myAPI, a.ID).Status; got != "completed" {
		t.Errorf("mine: %s", got)
	}
	if got := getCall(t, twinAPI, b.ID).Status; got != "ringing" {
		t.Errorf("the twin's clock moved too: %s", got)
	}
}
