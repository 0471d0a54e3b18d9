package voiceapp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	svcsandbox "github.com/svc-sandbox/svc-sandbox/clients/go"
)

// Webhooks over real HTTP: the sandbox server POSTs signed events to a receiver in this process.

func subscribe(t *testing.T, s *svcsandbox.Session, r *receiver, events ...string) (secret string) {
	t.Helper()
	answer := request(t, s, "POST", "/v1/webhooks", map[string]any{"url": r.url(), "events": events})
	var created struct{ Secret string }
	if answer.Status != 201 || json.Unmarshal(answer.Body, &created) != nil {
		t.Fatalf("POST /v1/webhooks: %d %s", answer.Status, answer.Body)
	}
	return created.Secret
}

func TestEventsArriveSignedAndTheSignatureVerifiesInGo(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: seed})
	hooks := startReceiver(t)
	secret := subscribe(t, s, hooks, "call.started", "call.answered", "call.completed")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q", secret)
	}

	call := createCall(t, s, "+14155550123")
	if _, err := s.Advance("65s"); err != nil {
		t.Fatal(err)
	}

	deliveries, ok := hooks.waitFor(3)
	if !ok {
		t.Fatalf("expected 3 webhooks, got %d", len(deliveries))
	}
	var got []string
	for _, d := range deliveries {
		// Verify the exact raw bytes first, then parse them.
		if !svcsandbox.VerifyWebhook(d.Body, d.Header.Get("X-Service-Signature"), secret) {
			t.Errorf("signature does not verify: %s", d.Body)
		}
		var event svcsandbox.Event
		if err := json.Unmarshal(d.Body, &event); err != nil {
			t.Fatal(err)
		}
		if d.Path != "/hooks" || d.Header.Get("Content-Type") != "application/json" ||
			d.Header.Get("X-Service-Event-Id") != event.ID || d.Header.Get("X-Service-Event-Type") != event.Type ||
			d.Header.Get("X-Service-Delivery-Attempt") != "1" || event.Data["id"] != call.ID {
			t.Errorf("delivery %s %v %s", d.Path, d.Header, d.Body)
		}
		got = append(got, event.Type)
	}
	if !equal(got, []string{"call.started", "call.answered", "call.completed"}) {
		t.Errorf("event types: %v", got)
	}
}

func TestATamperedBodyOrAWrongSecretDoesNotVerify(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: seed})
	hooks := startReceiver(t)
	secret := subscribe(t, s, hooks, "call.completed")
	createCall(t, s, "+14155550123")
	if _, err := s.Advance("65s"); err != nil {
		t.Fatal(err)
	}

	deliveries, ok := hooks.waitFor(1)
	if !ok {
		t.Fatal("no webhook arrived")
	}
	body, signature := deliveries[0].Body, deliveries[0].Header.Get("X-Service-Signature")
	if len(signature) != 64 || strings.ToLower(signature) != signature {
		t.Errorf("signature %q is not 64 lowercase hex digits", signature)
	}
	if !svcsandbox.VerifyWebhook(body, signature, secret) {
		t.Error("the genuine webhook does not verify")
	}
	if svcsandbox.VerifyWebhook(append(append([]byte(nil), body...), ' '), signature, secret) {
		t.Error("a tampered body verifies")
	}
	if svcsandbox.VerifyWebhook(body, signature, "whsec_not_the_secret") {
		t.Error("a wrong secret verifies")
	}
	if svcsandbox.VerifyWebhook(body, strings.ToUpper(signature), secret) {
		t.Error("an uppercase signature verifies")
	}
}

func TestAFailingReceiverIsRetriedForADayThenDeadLetteredAndReplayed(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: seed})
	hooks := startReceiver(t)
	hooks.status.Store(500)
	subscribe(t, s, hooks, "call.completed")
	createCall(t, s, "+14155550123")

	// 30 s, 1 m, 2 m, ... doubling, within 24 h of the first attempt.
	if _, err := s.Advance("25h"); err != nil {
		t.Fatal(err)
	}

	letters, err := s.DeadLetters()
	if err != nil || len(letters) != 1 {
		t.Fatalf("dead letters: %+v %v", letters, err)
	}
	dead := letters[0]
	if dead.EventType != "call.completed" || len(dead.Attempts) != 13 {
		t.Fatalf("dead letter: %+v", dead)
	}
	for _, attempt := range dead.Attempts {
		if attempt.OK || attempt.Status != 500 {
			t.Errorf("attempt %+v", attempt)
		}
	}
	failed, ok := hooks.waitFor(13)
	if !ok {
		t.Fatalf("expected 13 attempts, got %d", len(failed))
	}
	for i, d := range failed {
		if got := d.Header.Get("X-Service-Delivery-Attempt"); got != fmt.Sprint(i+1) {
			t.Errorf("attempt %d numbered %s", i+1, got)
		}
	}

	// The receiver is fixed: replay the dead letter.
	hooks.status.Store(200)
	attempts, err := s.Replay(dead.ID)
	if err != nil || len(attempts) != 1 || !attempts[0].OK || attempts[0].Status != 200 || attempts[0].Attempt != 1 {
		t.Fatalf("replay: %+v %v", attempts, err)
	}
	all, ok := hooks.waitFor(13)
	if !ok {
		t.Fatal("the replay did not arrive")
	}
	replayed := all[12]
	if replayed.Header.Get("X-Service-Event-Id") != dead.EventID || !bytes.Equal(replayed.Body, failed[0].Body) {
		t.Errorf("the replay is not the same event, byte for byte: %s", replayed.Body)
	}
	if left, err := s.DeadLetters(); err != nil || len(left) != 0 {
		t.Errorf("dead letters after the replay: %+v %v", left, err)
	}
}
