// Package svcsandbox is a tiny client for the svc-sandbox server, standard library only.
//
// It stands in for the service's Go SDK: API is what your SDK does against SVC_API_BASE_URL,
// Session drives the sandbox itself through the control API under SVC_SANDBOX_URL (its virtual
// clock, webhook queues). Both URLs are set by `npx svc-sandbox exec -- go test ./...`.
package svcsandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"
)

var (
	// APIBaseURL is the base URL your SDK is pointed at.
	APIBaseURL = envOr("SVC_API_BASE_URL", "http://127.0.0.1:12111")
	// SandboxURL is the control API of the sandbox server.
	SandboxURL = envOr("SVC_SANDBOX_URL", APIBaseURL+"/__sandbox")
)

// The server is on loopback: never go through an HTTP(S)_PROXY set in the environment.
var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil}}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

// Response is the status, headers and raw body of one answer (errors are answers too).
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Decode parses the JSON body into v.
func (r *Response) Decode(v interface{}) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("%d %s: %w", r.Status, r.Body, err)
	}
	return nil
}

// APIError is the error object of the envelope {"error": {code, message, param}}.
type APIError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Param   string `json:"param"`
}

// Error returns the error object of the answer, or nil.
func (r *Response) Error() *APIError {
	var envelope struct {
		Error *APIError `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &envelope)
	return envelope.Error
}

func (r *Response) String() string { return fmt.Sprintf("%d %s", r.Status, r.Body) }

// Do sends one request; a body is sent as JSON, with Content-Type: application/json.
func Do(method, target string, body interface{}, header map[string]string) (*Response, error) {
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		reader = bytes.NewReader(data)
	}
	request, err := http.NewRequest(method, target, reader)
	if err != nil {
		return nil, err
	}
	request.Header.Set("Accept", "application/json")
	if body != nil {
		request.Header.Set("Content-Type", "application/json")
	}
	for name, value := range header {
		request.Header.Set(name, value)
	}
	answer, err := httpClient.Do(request)
	if err != nil {
		return nil, err
	}
	defer answer.Body.Close()
	raw, err := io.ReadAll(answer.Body)
	if err != nil {
		return nil, err
	}
	return &Response{Status: answer.StatusCode, Header: answer.Header, Body: raw}, nil
}

// API is the Voice and Messaging API with one key: what the SDK would do.
type API struct {
	Key     string
	BaseURL string
}

// Request sends an authenticated API request.
func (a *API) Request(method, path string, body interface{}) (*Response, error) {
	return Do(method, a.BaseURL+path, body, map[string]string{"Authorization": "Bearer " + a.Key})
}

// Call is the part of a call resource these tests read.
type Call struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	Disposition string `json:"disposition"`
	Duration    int    `json:"duration"`
	AIHandler   string `json:"ai_handler"`
}

// Event is a webhook event, as delivered and as listed by the control API.
type Event struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

// Attempt is one delivery attempt of a webhook.
type Attempt struct {
	Attempt int  `json:"attempt"`
	OK      bool `json:"ok"`
	Status  int  `json:"status"`
}

// DeadLetter is an event whose deliveries all failed for 24 hours.
type DeadLetter struct {
	ID        string    `json:"id"`
	EventID   string    `json:"eventId"`
	EventType string    `json:"eventType"`
	Attempts  []Attempt `json:"attempts"`
}

// Session is one sandbox session of the server: its own virtual clock, seed, ids and queues.
type Session struct {
	ID     string `json:"id"`
	APIKey string `json:"apiKey"` // routes to this session on the same /v1 base URL
	Now    string `json:"now"`
}

// CreateSession makes a session (POST /__sandbox/sessions {seed}).
func CreateSession(seed int) (*Session, error) {
	session := &Session{}
	return session, expect(Do("POST", SandboxURL+"/sessions", map[string]int{"seed": seed}, nil))(201, session)
}

// API returns the API as a client with this session's key sees it.
func (s *Session) API() *API { return &API{Key: s.APIKey, BaseURL: APIBaseURL} }

func (s *Session) control(method, path string, body interface{}, status int, into interface{}) error {
	return expect(Do(method, SandboxURL+"/sessions/"+url.PathEscape(s.ID)+path, body, nil))(status, into)
}

// Advance moves the session's virtual time; it answers once everything due has settled
// (webhook attempts included), with the events emitted during it.
func (s *Session) Advance(duration string) (now string, events []Event, err error) {
	var moved struct {
		Now    string  `json:"now"`
		Events []Event `json:"events"`
	}
	err = s.control("POST", "/advance", map[string]string{"duration": duration}, 200, &moved)
	return moved.Now, moved.Events, err
}

// Events lists the session's events, oldest first: the first 200 (a page; follow next_cursor for more).
func (s *Session) Events() ([]Event, error) {
	var list struct{ Data []Event }
	return list.Data, s.control("GET", "/events?limit=200", nil, 200, &list)
}

// DeadLetters lists the dead-letter queue.
func (s *Session) DeadLetters() ([]DeadLetter, error) {
	var list struct{ Data []DeadLetter }
	return list.Data, s.control("GET", "/dead-letters?limit=200", nil, 200, &list)
}

// Replay delivers a dead letter again now; it returns the attempts it made.
func (s *Session) Replay(deadLetterID string) ([]Attempt, error) {
	var list struct{ Data []Attempt }
	return list.Data, s.control("POST", "/dead-letters/"+url.PathEscape(deadLetterID)+"/replay", nil, 200, &list)
}

// Delete deletes the session: its keys are 401 from now on.
func (s *Session) Delete() error { return s.control("DELETE", "", nil, 204, nil) }

// expect checks an answer's status and decodes its body into `into` (when not nil).
func expect(answer *Response, err error) func(status int, into interface{}) error {
	return func(status int, into interface{}) error {
		if err != nil {
			return err
		}
		if answer.Status != status {
			return fmt.Errorf("expected %d, got %s", status, answer)
		}
		if into == nil {
			return nil
		}
		return answer.Decode(into)
	}
}
