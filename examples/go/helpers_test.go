package svcsandbox

import (
	"testing"
)

// seed: same seed + same requests = same ids, so a failure reproduces.
const seed = 42

// newSession gives the test a session of its own, deleted when the test ends: tests never
// share time or state, so they can run in any order or in parallel.
func newSession(t *testing.T) (*Session, *API) {
	t.Helper()
	session, err := CreateSession(seed)
	if err != nil {
		t.Fatalf("POST /__sandbox/sessions: %v", err)
	}
	t.Cleanup(func() {
		if err := session.Delete(); err != nil {
			t.Errorf("DELETE the session: %v", err)
		}
	})
	return session, session.API()
}

// createCall places a call and checks that it was created.
func createCall(t *testing.T, api *API, to string, fields map[string]interface{}) Call {
	t.Helper()
	body := map[string]interface{}{"to": to, "from": "+14155550100"}
	for name, value := range fields {
		body[name] = value
	}
	answer, err := api.Request("POST", "/v1/calls", body)
	if err != nil || answer.Status != 201 {
		t.Fatalf("POST /v1/calls: %v %v", answer, err)
	}
	var call Call
	if err := answer.Decode(&call); err != nil {
		t.Fatal(err)
	}
	return call
}

func getCall(t *testing.T, api *API, id string) Call {
	t.Helper()
	answer, err := api.Request("GET", "/v1/calls/"+id, nil)
	if err != nil || answer.Status != 200 {
		t.Fatalf("GET /v1/calls/%s: %v %v", id, answer, err)
	}
	var call Call
	if err := answer.Decode(&call); err != nil {
		t.Fatal(err)
	}
	return call
}

func types(events []Event) []string {
	names := make([]string, len(events))
	for i, event := range events {
		names[i] = event.Type
	}
	return names
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
