package svcsandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Webhooks over real HTTP: the sandbox server POSTs signed events to a receiver in this process.

type subscription struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

func subscribe(t *testing.T, api *API, receiver *Receiver, events ...string) subscription {
	t.Helper()
	answer, err := api.Request("POST", "/v1/webhooks", map[string]interface{}{"url": receiver.URL(), "events": events})
	if err != nil || answer.Status != 201 {
		t.Fatalf("POST /v1/webhooks: %v %v", answer, err)
	}
	var created subscription
	if err := answer.Decode(&created); err != nil {
		t.Fatal(err)
	}
	return created
}

func startReceiver(t *testing.T) *Receiver {
	receiver := StartReceiver()
	t.Cleanup(receiver.Close)
	return receiver
}

func TestEventsArriveSignedAndTheSignatureVerifiesInGo(t *testing.T) {
	t.Parallel()
	session, api := newSession(t)
	receiver := startReceiver(t)
	sub := subscribe(t, api, receiver, "call.started", "call.answered", "call.completed")
	if !strings.HasPrefix(sub.Secret, "whsec_") {
		t.Fatalf("secret %q", sub.Secret)
	}

	call := createCall(t, api, "+14155550123", nil)
	if _, _, err := session.Advance("65s"); err != nil {
		t.Fatal(err)
	}

	deliveries, ok := receiver.WaitFor(3)
	if !ok {
		t.Fatalf("expected 3 webhooks, got %d", len(deliveries))
	}
	var got []string
	for _, delivery := range deliveries {
		// Verify the exact raw bytes first, then parse them.
		if !VerifyWebhook(delivery.Body, delivery.Header.Get("X-Service-Signature"), sub.Secret) {
			t.Errorf("signature does not verify: %s", delivery.Body)
		}
		var event struct {
			ID   string `json:"id"`
			Type string `json:"type"`
			Data Call   `json:"data"`
		}
		if err := json.Unmarshal(delivery.Body, &event); err != nil {
			t.Fatal(err)
		}
		if delivery.Path != "/hooks" || delivery.Header.Get("Content-Type") != "application/json" ||
			delivery.Header.Get("X-Service-Event-Id") != event.ID || delivery.Header.Get("X-Service-Event-Type") != event.Type ||
			delivery.Header.Get("X-Service-Delivery-Attempt") != "1" || event.Data.ID != call.ID {
			t.Errorf("delivery %s %v %s", delivery.Path, delivery.Header, delivery.Body)
		}
		got = append(got, event.Type)
	}
	if !equal(got, []string{"call.started", "call.answered", "call.completed"}) {
		t.Errorf("event types: %v", got)
	}
}

func TestATamperedBodyOrAWrongSecretDoesNotVerify(t *testing.T) {
	t.Parallel()
	session, api := newSession(t)
	receiver := startReceiver(t)
	sub := subscribe(t, api, receiver, "call.completed")
	createCall(t, api, "+14155550123", nil)
	if _, _, err := session.Advance("65s"); err != nil {
		t.Fatal(err)
	}

	deliveries, ok := receiver.WaitFor(1)
	if !ok {
		t.Fatal("no webhook arrived")
	}
	body, signature := deliveries[0].Body, deliveries[0].Header.Get("X-Service-Signature")
	if len(signature) != 64 || strings.ToLower(signature) != signature {
		t.Errorf("signature %q is not 64 lowercase hex digits", signature)
	}
	if !VerifyWebhook(body, signature, sub.Secret) {
		t.Error("the genuine webhook does not verify")
	}
	if VerifyWebhook(append(append([]byte(nil), body...), ' '), signature, sub.Secret) {
		t.Error("a tampered body verifies")
	}
	if VerifyWebhook(body, signature, "whsec_not_the_secret") {
		t.Error("a wrong secret verifies")
	}
	if VerifyWebhook(body, strings.ToUpper(signature), sub.Secret) {
		t.Error("an uppercase signature verifies")
	}
}

func TestAFailingReceiverIsRetriedForADayThenDeadLetteredAndReplayed(t *testing.T) {
	t.Parallel()
	session, api := newSession(t)
	receiver := startReceiver(t)
	receiver.SetStatus(500)
	subscribe(t, api, receiver, "call.completed")
	createCall(t, api, "+14155550123", nil)

	// 30 s, 1 m, 2 m, ... doubling, within 24 h of the first attempt.
	if _, _, err := session.Advance("25h"); err != nil {
		t.Fatal(err)
	}

	letters, err := session.DeadLetters()
	if err != nil || len(letters) != 1 {
		t.Fatalf("dead letters: %+v %v", letters, err)
	}
	dead := letters[0]
	if dead.EventType != "call.completed" || len(dead.Attempts) != 12 {
		t.Fatalf("dead letter: %+v", dead)
	}
	for _, attempt := range dead.Attempts {
		if attempt.OK || attempt.Status != 500 {
			t.Errorf("attempt %+v", attempt)
		}
	}
	failed, ok := receiver.WaitFor(12)
	if !ok {
		t.Fatalf("expected 12 attempts, got %d", len(failed))
	}
	for i, delivery := range failed {
		if got := delivery.Header.Get("X-Service-Delivery-Attempt"); got != fmt.Sprint(i+1) {
			t.Errorf("attempt %d numbered %s", i+1, got)
		}
	}

	// The receiver is fixed: replay the dead letter from the control API.
	receiver.SetStatus(200)
	attempts, err := session.Replay(dead.ID)
	if err != nil || len(attempts) != 1 || !attempts[0].OK || attempts[0].Status != 200 || attempts[0].Attempt != 1 {
		t.Fatalf("replay: %+v %v", attempts, err)
	}
	all, ok := receiver.WaitFor(13)
	if !ok {
		t.Fatal("the replay did not arrive")
	}
	replayed := all[12]
	if replayed.Header.Get("X-Service-Event-Id") != dead.EventID || !bytes.Equal(replayed.Body, failed[0].Body) {
		t.Errorf("the replay is not the same event, byte for byte: %s", replayed.Body)
	}
	if left, err := session.DeadLetters(); err != nil || len(left) != 0 {
		t.Errorf("dead letters after the replay: %+v %v", left, err)
	}
}
