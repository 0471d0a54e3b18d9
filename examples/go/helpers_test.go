package voiceapp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	svcsandbox "github.com/svc-sandbox/svc-sandbox/clients/go"
)

// What your service's SDK does, in a few lines: requests to the API with the session's key and
// base URL. A real suite points its SDK at s.BaseURL with s.APIKey instead.

// seed: same seed + same requests = same ids, so a failure reproduces.
const seed = 42

type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// apiError is the error object of the envelope {"error": {code, message, param}}.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Param   string `json:"param"`
}

func (r response) apiError() apiError {
	var envelope struct{ Error apiError }
	_ = json.Unmarshal(r.Body, &envelope)
	return envelope.Error
}

// request sends one API request with the session's key; a body goes as JSON.
func request(t *testing.T, s *svcsandbox.Session, method, path string, body any) response {
	t.Helper()
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, s.BaseURL+path, reader)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.APIKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := s.HTTPClient().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// createCall places a call and checks that it was created.
func createCall(t *testing.T, s *svcsandbox.Session, to string) svcsandbox.Call {
	t.Helper()
	answer := request(t, s, "POST", "/v1/calls", map[string]any{"to": to, "from": "+14155550100"})
	var call svcsandbox.Call
	if answer.Status != 201 || json.Unmarshal(answer.Body, &call) != nil {
		t.Fatalf("POST /v1/calls: %d %s", answer.Status, answer.Body)
	}
	return call
}

func getCall(t *testing.T, s *svcsandbox.Session, id string) svcsandbox.Call {
	t.Helper()
	answer := request(t, s, "GET", "/v1/calls/"+id, nil)
	var call svcsandbox.Call
	if answer.Status != 200 || json.Unmarshal(answer.Body, &call) != nil {
		t.Fatalf("GET /v1/calls/%s: %d %s", id, answer.Status, answer.Body)
	}
	return call
}

func types(events []svcsandbox.Event) []string {
	names := []string{}
	for _, event := range events {
		names = append(names, event.Type)
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
