package svcsandbox_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	svcsandbox "github.com/svc-sandbox/svc-sandbox/clients/go"
)

// The helper against a real server, as a user's suite drives it.

func TestACallRingsIsAnsweredAndCompletesOnVirtualTime(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: 42})
	if !strings.HasPrefix(s.ID, "ses_") || !strings.HasPrefix(s.APIKey, "SVC_TEST_ses_") || !strings.HasPrefix(s.BaseURL, "http://127.0.0.1:") {
		t.Fatalf("session %+v", s)
	}
	id := placeCall(t, s, "+14155550123")

	res, err := s.Advance("65s")
	if err != nil {
		t.Fatal(err)
	}
	if res.Now != "2026-01-01T00:01:05.000Z" || !reflect.DeepEqual(types(res.Events), []string{"call.answered", "call.completed"}) {
		t.Errorf("advance: %s %v", res.Now, types(res.Events))
	}
	if got := res.Events[1]; !strings.HasPrefix(got.ID, "evt_") || got.Data["id"] != id || got.CreatedAt != "2026-01-01T00:01:05.000Z" {
		t.Errorf("call.completed: %+v", got)
	}
	call, err := s.Call(id)
	if err != nil || call.Status != "completed" || call.Disposition != "answered" || call.Duration == nil || *call.Duration != 60 {
		t.Errorf("call: %+v %v", call, err)
	}
	events, err := s.Events()
	if err != nil || !reflect.DeepEqual(types(events), []string{"call.started", "call.answered", "call.completed"}) {
		t.Errorf("events: %v %v", types(events), err)
	}
	info, err := s.Info()
	if err != nil || info.ID != s.ID || info.Seed != 42 || info.Now != res.Now {
		t.Errorf("info: %+v %v", info, err)
	}
	if now, err := s.Now(); err != nil || !now.Equal(time.Date(2026, 1, 1, 0, 1, 5, 0, time.UTC)) {
		t.Errorf("now: %v %v", now, err)
	}
	calls, err := s.Calls()
	if err != nil || len(calls) != 1 || calls[0].ID != id {
		t.Errorf("calls: %+v %v", calls, err)
	}
}

func TestSessionsWithTheSameSeedGiveTheSameIdsAndKeepTheirOwnClocks(t *testing.T) {
	t.Parallel()
	mine := svcsandbox.NewSession(t, svcsandbox.Options{Seed: 7})
	twin := svcsandbox.NewSession(t, svcsandbox.Options{Seed: 7, StartTime: "2026-03-01T09:00:00Z"})
	a, b := placeCall(t, mine, "+14155550123"), placeCall(t, twin, "+14155550123")
	if a != b {
		t.Errorf("same seed, different ids: %s %s", a, b)
	}
	if _, err := mine.Advance("65s"); err != nil {
		t.Fatal(err)
	}
	if call, _ := twin.Call(b); call.Status != "ringing" || call.CreatedAt != "2026-03-01T09:00:00.000Z" {
		t.Errorf("the twin's clock moved, or did not start at its StartTime: %+v", call)
	}
}

func TestAdvanceUntilAndTriggerAnswerWithTheEvent(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: 1})
	id := placeCall(t, s, "+15005550002") // busy after 1 s

	done, err := s.AdvanceUntil("call.completed", "1h")
	if err != nil || done.Type != "call.completed" || done.Data["id"] != id || done.Data["disposition"] != "busy" {
		t.Errorf("until call.completed: %+v %v", done, err)
	}
	_, err = s.AdvanceUntil("message.delivered", "1m")
	var se *svcsandbox.SandboxError
	if !errors.As(err, &se) || se.Status != 404 || se.Code != "not_found" || se.Param != "until" || se.Session != s.ID || se.Op != "AdvanceUntil" {
		t.Fatalf("no event within max: %#v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "AdvanceUntil on session "+s.ID) || !strings.Contains(msg, "raise `max`") {
		t.Errorf("message: %s", msg)
	}

	ev, err := s.Trigger("call.completed", map[string]any{"disposition": "no_answer"})
	if err != nil || ev.Type != "call.completed" || ev.Data["disposition"] != "no_answer" || !strings.HasPrefix(ev.ID, "evt_") {
		t.Errorf("trigger: %+v %v", ev, err)
	}
	if _, err := s.Trigger("call.start", nil); !errors.As(err, &se) || se.Status != 400 || se.Param != "type" || !strings.Contains(se.Message, "call.started") {
		t.Errorf("a misspelt event type: %v", err)
	}
}

func TestCallsScriptedByHandAndThroughTheNetwork(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{})
	const manual, retry = "+14155550125", "+14155550124"
	if err := s.SetBehavior(manual, svcsandbox.CallBehavior{Ring: "manual", Talk: "manual"}); err != nil {
		t.Fatal(err)
	}
	id := placeCall(t, s, manual)
	if _, err := s.Advance("10m"); err != nil {
		t.Fatal(err)
	}
	if call, err := s.AnswerCall(id, ""); err != nil || call.Status != "answered" || call.AnsweredBy != "human" {
		t.Fatalf("answer: %+v %v", call, err)
	}
	if _, err := s.Advance("42s"); err != nil {
		t.Fatal(err)
	}
	if call, err := s.HangUp(id); err != nil || call.Status != "completed" || *call.Duration != 42 {
		t.Errorf("hang up: %+v %v", call, err)
	}
	var se *svcsandbox.SandboxError
	if _, err := s.HangUp(id); !errors.As(err, &se) || se.Status != 409 {
		t.Errorf("hanging up a completed call: %v", err)
	}

	if err := s.QueueBehavior(retry, svcsandbox.CallBehavior{Outcome: "busy"}, svcsandbox.CallBehavior{Outcome: "answered", Talk: "5s"}); err != nil {
		t.Fatal(err)
	}
	first, second := placeCall(t, s, retry), placeCall(t, s, retry)
	if _, err := s.Advance("1m"); err != nil {
		t.Fatal(err)
	}
	a, _ := s.Call(first)
	b, _ := s.Call(second)
	if a.Disposition != "busy" || b.Disposition != "answered" || *b.Duration != 5 {
		t.Errorf("queued behaviours: %+v %+v", a, b)
	}
	if err := s.ClearBehavior(manual); err != nil {
		t.Error(err)
	}
	if err := s.ClearAllBehavior(); err != nil {
		t.Error(err)
	}
	err := s.SetBehavior(manual, svcsandbox.CallBehavior{Outcome: "bussy"})
	if !errors.As(err, &se) || se.Status != 400 || se.Param != "outcome" || !strings.Contains(se.Message, `did you mean "busy"`) {
		t.Errorf("a misspelt outcome: %v", err)
	}
}

func TestFaultsKeysAndTheRequestJournal(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{})
	active, err := s.InjectFault(svcsandbox.Fault{Method: "POST", Path: "/v1/calls", Status: 503, RetryAfter: 2})
	if err != nil || len(active) != 1 || active[0].Status != 503 || active[0].Remaining == nil || *active[0].Remaining != 1 {
		t.Fatalf("inject: %+v %v", active, err)
	}
	failed := api(t, s, s.APIKey, "POST", "/v1/calls", map[string]any{"to": "+14155550123", "from": "+14155550100"})
	if failed.Status != 503 || failed.Header.Get("Retry-After") != "2" {
		t.Errorf("the fault: %d %v", failed.Status, failed.Header)
	}
	if left, err := s.Faults(); err != nil || len(left) != 0 {
		t.Errorf("a used fault is still listed: %+v %v", left, err)
	}
	active, err = s.InjectFault(svcsandbox.Fault{Path: "/v1/calls/{id}", Network: true, Times: svcsandbox.Forever})
	if err != nil || len(active) != 1 || active[0].Remaining != nil || !active[0].Network {
		t.Errorf("a fault until cleared: %+v %v", active, err)
	}
	if err := s.ClearFaults(); err != nil {
		t.Fatal(err)
	}
	if left, _ := s.Faults(); len(left) != 0 {
		t.Errorf("faults after clearing: %+v", left)
	}

	reader, err := s.CreateKey(svcsandbox.KeyOptions{Scopes: []string{"calls:read"}})
	if err != nil || !strings.HasPrefix(reader.Key, "SVC_TEST_") || !reflect.DeepEqual(reader.Scopes, []string{"calls:read"}) || reader.Plan != "standard" {
		t.Fatalf("create key: %+v %v", reader, err)
	}
	if got := api(t, s, reader.Key, "POST", "/v1/calls", map[string]any{"to": "+14155550123", "from": "+14155550100"}); got.Status != 403 {
		t.Errorf("a read-only key placed a call: %d", got.Status)
	}
	keys, err := s.Keys()
	if err != nil || len(keys) < 1 || keys[len(keys)-1].Key != reader.Key {
		t.Errorf("keys: %+v %v", keys, err)
	}
	if err := s.RevokeKey(reader.Key); err != nil {
		t.Fatal(err)
	}
	if got := api(t, s, reader.Key, "GET", "/v1/calls", nil); got.Status != 401 {
		t.Errorf("a revoked key: %d", got.Status)
	}

	journal, err := s.Requests()
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, r := range journal {
		seen = append(seen, fmt.Sprintf("%s %s %d %s", r.Method, r.Path, r.Status, r.ErrorCode))
	}
	want := []string{"POST /v1/calls 503 service_unavailable", "POST /v1/calls 403 forbidden", "GET /v1/calls 401 invalid_api_key"}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("journal:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

func TestAFailingReceiverIsDeadLetteredThenReplayed(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{})
	hooks := startReceiver(t, 500)
	secret := subscribe(t, s, hooks, "call.started", "call.completed")
	placeCall(t, s, "+14155550123")

	if _, err := s.Advance("25h"); err != nil {
		t.Fatal(err)
	}
	letters, err := s.DeadLetters()
	if err != nil || len(letters) != 2 {
		t.Fatalf("dead letters: %+v %v", letters, err)
	}
	started, completed := letters[0], letters[1]
	if started.EventType != "call.started" || len(started.Attempts) != 13 || started.State != "dead" || started.Event.ID != started.EventID {
		t.Errorf("dead letter: %+v", started)
	}
	bodies, headers := hooks.waitFor(t, 24)
	for i, body := range bodies {
		if !svcsandbox.VerifyWebhook(body, headers[i].Get("X-Service-Signature"), secret) {
			t.Errorf("webhook %d does not verify", i)
		}
	}
	if deliveries, err := s.Deliveries(); err != nil || len(deliveries) != 2 {
		t.Errorf("deliveries: %d %v", len(deliveries), err)
	}
	if attempts, err := s.Attempts(); err != nil || len(attempts) != 24 || attempts[0].Status != 500 || attempts[0].OK {
		t.Errorf("attempts: %d %v", len(attempts), err)
	}

	hooks.status.Store(204)
	replayed, err := s.Replay(started.ID)
	if err != nil || len(replayed) != 1 || !replayed[0].OK || replayed[0].Attempt != 1 || replayed[0].Status != 204 {
		t.Errorf("replay: %+v %v", replayed, err)
	}
	rest, err := s.ReplayAll(svcsandbox.WebhookFilter{Type: "call.completed"})
	if err != nil || len(rest) != 1 || rest[0].EventID != completed.EventID || !rest[0].OK {
		t.Errorf("replay all: %+v %v", rest, err)
	}
	if left, err := s.DeadLetters(); err != nil || len(left) != 0 {
		t.Errorf("dead letters after the replays: %+v %v", left, err)
	}
	var se *svcsandbox.SandboxError
	if _, err := s.Replay(started.ID); !errors.As(err, &se) || se.Status != 409 {
		t.Errorf("replaying a delivered event: %v", err)
	}
}

func TestInboundTrafficRecordingsAndTranscripts(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: 3})
	provisioned := api(t, s, s.APIKey, "POST", "/v1/numbers", map[string]any{"kind": "local", "country": "US"})
	if provisioned.Status != 201 {
		t.Fatalf("provision: %d %s", provisioned.Status, provisioned.Raw)
	}
	number := provisioned.Body["number"].(string)

	in, err := s.InboundMessage(svcsandbox.InboundMessage{From: "+14155550123", To: number, Body: "On my way"})
	if err != nil || in.Direction != "inbound" || in.Status != "received" || in.Body != "On my way" {
		t.Fatalf("inbound message: %+v %v", in, err)
	}
	if got, err := s.Message(in.ID); err != nil || got.ConversationID != in.ConversationID {
		t.Errorf("message: %+v %v", got, err)
	}
	if err := s.SetMessageBehavior("+14155550123", "failed"); err != nil {
		t.Fatal(err)
	}
	if err := s.QueueMessageBehavior("+14155550199", "failed", "delivered"); err != nil {
		t.Fatal(err)
	}
	sent := api(t, s, s.APIKey, "POST", "/v1/messages", map[string]any{"from": number, "to": "+14155550123", "body": "See you"})
	queued := api(t, s, s.APIKey, "POST", "/v1/messages", map[string]any{"from": number, "to": "+14155550199", "body": "First"})
	if sent.Status != 201 || queued.Status != 201 {
		t.Fatalf("send: %s %s", sent.Raw, queued.Raw)
	}
	ring, err := s.InboundCall(svcsandbox.InboundCall{From: "+442071234567", To: number})
	if err != nil || ring.Direction != "inbound" || ring.Status != "ringing" {
		t.Fatalf("inbound call: %+v %v", ring, err)
	}

	if err := s.SetRecordingTiming(svcsandbox.RecordingTiming{RecordingDelay: "5s", TranscriptDelay: "5s"}); err != nil {
		t.Fatal(err)
	}
	id := placeCall(t, s, "+14155550130")
	script := []svcsandbox.ScriptLine{{Speaker: "agent", Text: "Northwind, how can I help?"}, {Speaker: "customer", Text: "I was charged twice."}}
	if err := s.SetScript(id, script); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Advance("2m"); err != nil {
		t.Fatal(err)
	}
	for msgID, want := range map[string]string{sent.Body["id"].(string): "failed", queued.Body["id"].(string): "failed"} {
		if got, _ := s.Message(msgID); got.Status != want {
			t.Errorf("message %s: %s, want %s", msgID, got.Status, want)
		}
	}
	call, _ := s.Call(id)
	rec, err := s.Recording(call.RecordingID)
	if err != nil || rec.Status != "ready" || rec.CallID != id || rec.Summary == "" {
		t.Errorf("recording: %+v %v", rec, err)
	}
	trn, err := s.Transcript(call.TranscriptID)
	if err != nil || trn.Status != "ready" || len(trn.Segments) != 2 || trn.Segments[1].Text != "I was charged twice." {
		t.Errorf("transcript: %+v %v", trn, err)
	}
	var se *svcsandbox.SandboxError
	if err := s.SetCallRecordingTiming(id, svcsandbox.RecordingTiming{TranscriptDelay: "2m"}); !errors.As(err, &se) || se.Status != 409 {
		t.Errorf("timing an ended call: %v", err)
	}
	if err := s.SetScript(id, []svcsandbox.ScriptLine{{Speaker: "agent", Text: "Hello", Start: 0, End: 2}}); !errors.As(err, &se) || se.Status != 409 {
		t.Errorf("scripting an ended call: %v", err)
	}
	if open, err := s.OpenTranscriptStreams(); err != nil || open != 0 {
		t.Errorf("open streams: %d %v", open, err)
	}
	if failures, err := s.InternalErrors(); err != nil || len(failures) != 0 {
		t.Errorf("internal errors: %+v %v", failures, err)
	}
}

const busyScenario = `{
  "name": "A busy line",
  "network": {"+14155550123": [{"outcome": "busy"}]},
  "steps": [
    {"at": "0s", "request": {"method": "POST", "path": "/v1/calls", "body": {"to": "+14155550123", "from": "+14155550100"}, "as": "call"}},
    {"at": "5s", "expect": {"resources": [{"path": "/v1/calls/{{call.id}}", "fields": {"status": "completed", "disposition": "%s"}}]}}
  ]
}`

func TestScenariosPassFailOrAreRefused(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{})
	passed, err := s.RunScenario(fmt.Sprintf(busyScenario, "busy"))
	if err != nil || !passed.Passed || passed.Held != 1 || passed.Failure != nil || passed.Name != "A busy line" || len(passed.Timeline) == 0 {
		t.Errorf("a scenario that holds: %+v %v", passed, err)
	}
	file := filepath.Join(t.TempDir(), "wrong.json")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(busyScenario, "answered")), 0o600); err != nil {
		t.Fatal(err)
	}
	failed, err := s.RunScenario(file)
	if err != nil || failed.Passed || failed.Failure == nil || !strings.HasPrefix(failed.Failure.Path, "steps[1].expect") {
		t.Errorf("a scenario that fails: %+v %v", failed, err)
	}
	var se *svcsandbox.SandboxError
	if _, err := s.RunScenario(`{"name": "x", "steps": [{"at": "soon"}]}`); !errors.As(err, &se) || se.Status != 400 || !strings.HasPrefix(se.Param, "steps[0]") {
		t.Errorf("an invalid scenario: %v", err)
	}
	if _, err := s.RunScenario(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestSnapshotsForksResetAndCoverage(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: 5})
	placeCall(t, s, "+14155550123")
	snapshot, err := s.Snapshot()
	if err != nil || !strings.Contains(string(snapshot), `"format"`) {
		t.Fatalf("snapshot: %.100s %v", snapshot, err)
	}
	restored := svcsandbox.NewSession(t, svcsandbox.Options{Snapshot: snapshot})
	fork := svcsandbox.NewSession(t, svcsandbox.Options{From: s.ID})
	next := placeCall(t, s, "+14155550124")
	for name, other := range map[string]*svcsandbox.Session{"restored": restored, "fork": fork} {
		if got := placeCall(t, other, "+14155550124"); got != next {
			t.Errorf("%s: the next call is %s, the original's %s", name, got, next)
		}
	}

	report, err := s.Coverage()
	if err != nil || report.Format != "svc-sandbox-coverage" || report.Endpoints["POST /v1/calls"]["201"] != 2 || len(report.Uncovered) == 0 {
		t.Errorf("coverage: %+v %v", report.Endpoints["POST /v1/calls"], err)
	}
	all, err := s.Server.Coverage(context.Background())
	if err != nil || all.Sandboxes < 3 {
		t.Errorf("server coverage: %d %v", all.Sandboxes, err)
	}
	sessions, err := s.Server.Sessions(context.Background())
	listed := map[string]bool{}
	for _, info := range sessions {
		listed[info.ID] = true
	}
	if err != nil || !listed[s.ID] || !listed[fork.ID] || !listed["default"] {
		t.Errorf("sessions: %+v %v", sessions, err)
	}

	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if events, err := s.Events(); err != nil || len(events) != 0 {
		t.Errorf("events after reset: %v %v", types(events), err)
	}
	if res, err := s.Advance("0s"); err != nil || res.Now != "2026-01-01T00:00:00.000Z" {
		t.Errorf("now after reset: %+v %v", res, err)
	}
}

func TestClosingASessionRevokesItsKey(t *testing.T) {
	t.Parallel()
	srv := svcsandbox.NewSession(t, svcsandbox.Options{}).Server
	s, err := srv.NewSession(context.Background(), svcsandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	placeCall(t, s, "+14155550123")
	page, err := http.Get(s.ConsoleURL())
	if err != nil || page.StatusCode != 200 {
		t.Errorf("console: %v %v", page, err)
	} else {
		page.Body.Close()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := api(t, s, s.APIKey, "GET", "/v1/calls", nil); got.Status != 401 {
		t.Errorf("the key of a closed session: %d", got.Status)
	}
	if err := s.Close(); err != nil {
		t.Errorf("closing twice: %v", err)
	}
	var se *svcsandbox.SandboxError
	if _, err := s.Advance("1s"); !errors.As(err, &se) || se.Status != 404 || se.Param != "s" {
		t.Errorf("advancing a closed session: %v", err)
	}
}
