package svcsandbox

import "encoding/json"

// The control API's answers as Go values. Field names follow the JSON; a JSON null reads as the
// field's zero value ("" or 0), except where a pointer says "not yet" apart from zero.

// Event is a platform event as the event log holds it and as webhooks deliver it.
type Event struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	Data      map[string]any `json:"data"`
	CreatedAt string         `json:"created_at"`
}

// AdvanceResult is what Advance answers: the virtual now after it, and the events emitted during
// it, oldest first.
type AdvanceResult struct {
	Now    string  `json:"now"`
	Events []Event `json:"events"`
}

// SessionInfo is a session as the server lists it.
type SessionInfo struct {
	ID   string `json:"id"`
	Seed int    `json:"seed"`
	Now  string `json:"now"`
}

// Call is a call as the API shows it: the fields a test most often asserts, typed, and Fields,
// every field of the answer as JSON decodes it (the API reference lists them all), so a field the
// API adds is readable without a new helper: call.Fields["ai_handler"].
type Call struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	Direction   string `json:"direction"`
	From        string `json:"from"`
	To          string `json:"to"`
	AnsweredBy  string `json:"answered_by"`
	Disposition string `json:"disposition"`
	// Duration is whole seconds from answer to end (0 for a call never answered); nil while live.
	Duration     *int   `json:"duration"`
	RecordingID  string `json:"recording_id"`
	TranscriptID string `json:"transcript_id"`
	CreatedAt    string `json:"created_at"`
	EndedAt      string `json:"ended_at"`
	// Fields is the whole answer, decoded: every field above and the others.
	Fields map[string]any `json:"-"`
}

// UnmarshalJSON reads the typed fields and keeps the whole answer in Fields.
func (c *Call) UnmarshalJSON(raw []byte) error {
	type plain Call
	if err := json.Unmarshal(raw, (*plain)(c)); err != nil {
		return err
	}
	return json.Unmarshal(raw, &c.Fields)
}

// Message is an SMS or MMS as the API shows it: the fields a test most often asserts, and Fields,
// the whole answer decoded (message.Fields["media"]).
type Message struct {
	ID             string `json:"id"`
	Direction      string `json:"direction"`
	Channel        string `json:"channel"`
	From           string `json:"from"`
	To             string `json:"to"`
	Body           string `json:"body"`
	ConversationID string `json:"conversation_id"`
	Status         string `json:"status"`
	Segments       int    `json:"segments"`
	CreatedAt      string `json:"created_at"`
	// Fields is the whole answer, decoded: every field above and the others.
	Fields map[string]any `json:"-"`
}

// UnmarshalJSON reads the typed fields and keeps the whole answer in Fields.
func (m *Message) UnmarshalJSON(raw []byte) error {
	type plain Message
	if err := json.Unmarshal(raw, (*plain)(m)); err != nil {
		return err
	}
	return json.Unmarshal(raw, &m.Fields)
}

// Recording is the recording of an answered call.
type Recording struct {
	ID           string      `json:"id"`
	CallID       string      `json:"call_id"`
	Agent        string      `json:"agent"`
	Duration     int         `json:"duration"`
	Status       string      `json:"status"`
	URL          string      `json:"url"`
	TranscriptID string      `json:"transcript_id"`
	Transcript   *Transcript `json:"transcript"`
	Summary      string      `json:"summary"`
	CreatedAt    string      `json:"created_at"`
	ReadyAt      string      `json:"ready_at"`
}

// Transcript is what was said on a call: live while it is answered, then processing, then ready.
type Transcript struct {
	ID          string    `json:"id"`
	CallID      string    `json:"call_id"`
	RecordingID string    `json:"recording_id"`
	Status      string    `json:"status"`
	Segments    []Segment `json:"segments"`
	Text        string    `json:"text"`
	Summary     string    `json:"summary"`
	CreatedAt   string    `json:"created_at"`
	ReadyAt     string    `json:"ready_at"`
}

// Segment is one line of a transcript; Start and End are seconds from the answer.
type Segment struct {
	Speaker string  `json:"speaker"`
	Text    string  `json:"text"`
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
}

// Delivery is one event on its way to one subscription, with every attempt made.
type Delivery struct {
	ID             string    `json:"id"`
	EventID        string    `json:"eventId"`
	EventType      string    `json:"eventType"`
	SubscriptionID string    `json:"subscriptionId"`
	URL            string    `json:"url"`
	State          string    `json:"state"`
	Attempts       []Attempt `json:"attempts"`
	NextAttemptAt  string    `json:"nextAttemptAt"`
	Replays        int       `json:"replays"`
	Event          Event     `json:"event"`
	// Chaos is set only on a delivery a chaos profile made: "duplicate" or "held".
	Chaos string `json:"chaos"`
}

// Attempt is one HTTP attempt of one webhook delivery.
type Attempt struct {
	DeliveryID     string `json:"deliveryId"`
	EventID        string `json:"eventId"`
	EventType      string `json:"eventType"`
	SubscriptionID string `json:"subscriptionId"`
	URL            string `json:"url"`
	// Attempt counts from 1, and from 1 again on a replay.
	Attempt int    `json:"attempt"`
	Replay  int    `json:"replay"`
	At      string `json:"at"`
	// Status is the receiver's answer; 0 when it gave none (refused, timed out).
	Status     int     `json:"status"`
	OK         bool    `json:"ok"`
	DurationMs float64 `json:"durationMs"`
	Error      string  `json:"error"`
}

// KeyOptions says how a key made by CreateKey behaves. The zero value is a standard key with
// every scope, its own account.
type KeyOptions struct {
	// Plan is "standard" (100 requests per virtual second) or "enterprise" (no fixed cap).
	Plan string `json:"plan,omitempty"`
	// Scopes restrict the key ("calls:read", "messages:*"); a request outside them is 403.
	Scopes []string `json:"scopes,omitempty"`
	// Account makes the key open another key's account instead of one of its own.
	Account string `json:"account,omitempty"`
}

// Key is a test key made for a session.
type Key struct {
	Key       string   `json:"key"`
	CreatedAt string   `json:"createdAt"`
	Account   string   `json:"account"`
	Plan      string   `json:"plan"`
	Scopes    []string `json:"scopes"`
}

// Forever is Fault.Times for a fault that hits every matching request until ClearFaults.
const Forever = -1

// Fault makes the next matching /v1 requests fail. The zero value fails the next request of any
// method and path with a 503.
type Fault struct {
	// Method and Path narrow the requests ("POST", "/v1/calls/{id}"); empty: any.
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	// Status is 429 or 500 to 599; 0 means 503.
	Status int `json:"status,omitempty"`
	// Network fails the request as a dropped connection instead of an answer.
	Network bool `json:"network,omitempty"`
	// RetryAfter is the Retry-After header in seconds, with a 503 or a 429; 0: none.
	RetryAfter int `json:"retryAfter,omitempty"`
	// Times is how many matching requests it hits: 0 means once, Forever until cleared.
	Times int `json:"-"`
}

// MarshalJSON writes Times as the control API takes it: a count, or "Infinity" for Forever.
func (f Fault) MarshalJSON() ([]byte, error) {
	type plain Fault
	var times any
	switch {
	case f.Times == Forever:
		times = "Infinity"
	case f.Times != 0:
		times = f.Times
	}
	return json.Marshal(struct {
		plain
		Times any `json:"times,omitempty"`
	}{plain(f), times})
}

// ActiveFault is an injected fault with hits left.
type ActiveFault struct {
	Method     string `json:"method"`
	Path       string `json:"path"`
	Status     int    `json:"status"`
	Network    bool   `json:"network"`
	RetryAfter int    `json:"retryAfter"`
	// Remaining is how many hits it has left; nil for a Forever fault.
	Remaining *int `json:"remaining"`
}

// CallBehavior is what the simulated network does with calls to a number. Empty fields keep
// the defaults (rings 5 s, answered, talks 60 s).
type CallBehavior struct {
	// Outcome is "answered", "busy", "no_answer", "failed" or "unreachable".
	Outcome string `json:"outcome,omitempty"`
	// Ring and Talk are durations ("12s") or "manual": the call waits for AnswerCall or HangUp.
	Ring string `json:"ring,omitempty"`
	Talk string `json:"talk,omitempty"`
	// AnsweredBy is "human" or "voicemail".
	AnsweredBy string `json:"answeredBy,omitempty"`
	Agent      string `json:"agent,omitempty"`
}

// InboundCall rings a number of an account from outside.
type InboundCall struct {
	From string `json:"from"`
	To   string `json:"to"`
	// APIKey names the receiving account; empty: the account that provisioned To, its routing
	// deciding who answers.
	APIKey         string        `json:"apiKey,omitempty"`
	AIReceptionist bool          `json:"aiReceptionist,omitempty"`
	Behavior       *CallBehavior `json:"behavior,omitempty"`
}

// InboundMessage is an SMS (or, with MediaURLs, an MMS) to a provisioned number.
type InboundMessage struct {
	From      string   `json:"from"`
	To        string   `json:"to"`
	Body      string   `json:"body,omitempty"`
	MediaURLs []string `json:"mediaUrls,omitempty"`
}

// RecordingTiming says when recordings and transcripts become ready after a call ends
// ("10s", "2m"); an empty field keeps the current delay.
type RecordingTiming struct {
	RecordingDelay  string `json:"recordingDelay,omitempty"`
	TranscriptDelay string `json:"transcriptDelay,omitempty"`
}

// ScriptLine is one line of a conversation a ringing call will carry. Leave Start and End at 0
// on every line to let the sandbox pace the script, or set End (and Start) on every line: seconds
// from the answer.
type ScriptLine struct {
	Speaker string
	Text    string
	Start   float64
	End     float64
}

// MarshalJSON leaves out the timing of an untimed line (End 0).
func (l ScriptLine) MarshalJSON() ([]byte, error) {
	line := map[string]any{"speaker": l.Speaker, "text": l.Text}
	if l.End != 0 {
		line["start"], line["end"] = l.Start, l.End
	}
	return json.Marshal(line)
}

// WebhookFilter narrows ReplayAll; empty fields match anything.
type WebhookFilter struct {
	APIKey         string `json:"apiKey,omitempty"`
	EventID        string `json:"eventId,omitempty"`
	SubscriptionID string `json:"subscriptionId,omitempty"`
	Type           string `json:"type,omitempty"`
	State          string `json:"state,omitempty"`
}

// RequestRecord is one /v1 request of the session's request journal.
type RequestRecord struct {
	RequestID string `json:"requestId"`
	Method    string `json:"method"`
	// Path is the documented path matched ("/v1/calls/{id}"); Target the request's own.
	Path   string `json:"path"`
	Target string `json:"target"`
	// Status is 0 for an injected network fault.
	Status    int    `json:"status"`
	ErrorCode string `json:"errorCode"`
	APIKey    string `json:"apiKey"`
	At        string `json:"at"`
}

// InternalError is an unexpected exception inside the session's sandbox, answered as a 500.
type InternalError struct {
	Name      string `json:"name"`
	Message   string `json:"message"`
	RequestID string `json:"requestId"`
	At        string `json:"at"`
}

// ScenarioResult is what a scenario run came to.
type ScenarioResult struct {
	Name     string          `json:"name"`
	Passed   bool            `json:"passed"`
	Held     int             `json:"held"`
	Timeline []TimelineEntry `json:"timeline"`
	// Failure is the first expectation that failed, with what was seen instead; nil when passed.
	Failure   *ScenarioFailure `json:"failure"`
	StartedAt string           `json:"startedAt"`
	EndedAt   string           `json:"endedAt"`
}

// TimelineEntry is one line of a scenario's timeline.
type TimelineEntry struct {
	OffsetMs  int64  `json:"offsetMs"`
	At        string `json:"at"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	Subject   string `json:"subject"`
	EventType string `json:"eventType"`
	OK        *bool  `json:"ok"`
	CallID    string `json:"callId"`
}

// ScenarioFailure is the expectation of a scenario that did not hold.
type ScenarioFailure struct {
	Step     int             `json:"step"`
	Path     string          `json:"path"`
	Message  string          `json:"message"`
	Expected json.RawMessage `json:"expected"`
	Seen     json.RawMessage `json:"seen"`
}

// Coverage is what a session (or, from Server.Coverage, every session of the server) exercised,
// each item with a count; Uncovered lists the items never exercised, as "section: item".
type Coverage struct {
	Format    string                    `json:"format"`
	Version   int                       `json:"version"`
	Sandboxes int                       `json:"sandboxes"`
	Endpoints map[string]map[string]int `json:"endpoints"`
	Calls     struct {
		States       map[string]int `json:"states"`
		Transitions  map[string]int `json:"transitions"`
		Dispositions map[string]int `json:"dispositions"`
		AnsweredBy   map[string]int `json:"answeredBy"`
	} `json:"calls"`
	Messages struct {
		Outcomes map[string]int `json:"outcomes"`
	} `json:"messages"`
	Webhooks  map[string]int `json:"webhooks"`
	Events    map[string]int `json:"events"`
	Errors    map[string]int `json:"errors"`
	Uncovered []string       `json:"uncovered"`
}

// page is one page of a paginated control list.
type page[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}
