package svcsandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"
)

// The control API of one session (docs/server.md, "The control API" and "Parity"), one method per
// route. Calls that wait on the virtual clock or on webhook deliveries have a ...Context variant;
// the others answer at once and are bounded by the session's Timeout.

// Advance moves the session's virtual time by d ("500ms", "30s", "5m", "2h", "1d"), running every
// transition, event and webhook attempt that falls due, in order, and answers once the deliveries
// it started have settled.
//
//	res, err := s.Advance("65s") // res.Now "2026-01-01T00:01:05.000Z", res.Events [call.answered call.completed]
func (s *Session) Advance(d string) (AdvanceResult, error) {
	return s.AdvanceContext(context.Background(), d)
}

// AdvanceContext is Advance bounded by ctx.
func (s *Session) AdvanceContext(ctx context.Context, d string) (AdvanceResult, error) {
	return s.advance(ctx, "Advance", d)
}

func (s *Session) advance(ctx context.Context, name string, d any) (AdvanceResult, error) {
	var res AdvanceResult
	err := s.do(ctx, name, http.MethodPost, "/advance", map[string]any{"duration": d}, &res)
	return res, err
}

// AdvanceUntil moves virtual time until an event of eventType is emitted, at most max ("1h";
// empty: one day), and returns that event. None within max is a *SandboxError with Status 404
// and Param "until".
//
//	done, err := s.AdvanceUntil("call.completed", "1h")
func (s *Session) AdvanceUntil(eventType, max string) (Event, error) {
	return s.AdvanceUntilContext(context.Background(), eventType, max)
}

// AdvanceUntilContext is AdvanceUntil bounded by ctx.
func (s *Session) AdvanceUntilContext(ctx context.Context, eventType, max string) (Event, error) {
	body := map[string]any{"until": eventType}
	if max != "" {
		body["max"] = max
	}
	var res struct {
		Event Event `json:"event"`
	}
	err := s.do(ctx, "AdvanceUntil", http.MethodPost, "/advance", body, &res)
	return res.Event, err
}

// Trigger makes one event of eventType through the smallest real story that ends in it, told
// through /v1 with the session's key (virtual time moves as far as it needs), and returns it.
// data sets fields of the event's data ({"disposition": "busy"}); nil: none.
//
//	ev, err := s.Trigger("call.completed", map[string]any{"disposition": "busy"})
func (s *Session) Trigger(eventType string, data map[string]any) (Event, error) {
	return s.TriggerContext(context.Background(), eventType, data)
}

// TriggerContext is Trigger bounded by ctx.
func (s *Session) TriggerContext(ctx context.Context, eventType string, data map[string]any) (Event, error) {
	body := map[string]any{"type": eventType}
	if data != nil {
		body["data"] = data
	}
	var ev Event
	err := s.do(ctx, "Trigger", http.MethodPost, "/trigger", body, &ev)
	return ev, err
}

// RunScenario runs a scenario file on the session from its virtual now, as the session's key:
// pathOrJSON is the file's path, or its JSON itself (text starting with "{"). A scenario that
// fails its expectations is a result with Passed false, not an error; an invalid file is a
// *SandboxError whose Param is the JSON path at fault.
func (s *Session) RunScenario(pathOrJSON string) (ScenarioResult, error) {
	return s.RunScenarioContext(context.Background(), pathOrJSON)
}

// RunScenarioContext is RunScenario bounded by ctx.
func (s *Session) RunScenarioContext(ctx context.Context, pathOrJSON string) (ScenarioResult, error) {
	var res ScenarioResult
	raw := []byte(pathOrJSON)
	if trimmed := bytes.TrimSpace(raw); len(trimmed) == 0 || trimmed[0] != '{' {
		file, err := os.ReadFile(pathOrJSON)
		if err != nil {
			return res, fmt.Errorf("svcsandbox: RunScenario on session %s: reading the scenario file: %w", s.ID, err)
		}
		raw = file
	}
	if !json.Valid(raw) {
		return res, fmt.Errorf("svcsandbox: RunScenario on session %s: the scenario is not JSON (%s)", s.ID, snippet(raw))
	}
	err := s.do(ctx, "RunScenario", http.MethodPost, "/scenario", json.RawMessage(raw), &res)
	return res, err
}

// Info is the session's id, seed and virtual now.
func (s *Session) Info() (SessionInfo, error) {
	var info SessionInfo
	err := s.do(context.Background(), "Info", http.MethodGet, "", nil, &info)
	return info, err
}

// Now is the session's virtual now.
func (s *Session) Now() (time.Time, error) { return s.now(context.Background(), "Now") }

func (s *Session) now(ctx context.Context, name string) (time.Time, error) {
	var info SessionInfo
	if err := s.do(ctx, name, http.MethodGet, "", nil, &info); err != nil {
		return time.Time{}, err
	}
	now, err := time.Parse(time.RFC3339Nano, info.Now)
	if err != nil {
		return time.Time{}, fmt.Errorf("svcsandbox: %s on session %s: the server's now %q is not a time: %w", name, s.ID, info.Now, err)
	}
	return now, nil
}

// Reset empties the session: clock back to its start, ids start over; the keys it made stay valid.
func (s *Session) Reset() error {
	return s.do(context.Background(), "Reset", http.MethodPost, "/reset", nil, nil)
}

// Events is the session's event log, oldest first.
func (s *Session) Events() ([]Event, error) { return listAll[Event](s, "Events", "/events") }

// Deliveries is every webhook delivery (one event to one subscription) with its attempts, oldest first.
func (s *Session) Deliveries() ([]Delivery, error) {
	return listAll[Delivery](s, "Deliveries", "/deliveries")
}

// DeadLetters is the dead-letter queue: deliveries whose every attempt failed, oldest first.
func (s *Session) DeadLetters() ([]Delivery, error) {
	return listAll[Delivery](s, "DeadLetters", "/dead-letters")
}

// Attempts is every webhook delivery attempt, in the order sent.
func (s *Session) Attempts() ([]Attempt, error) { return listOnce[Attempt](s, "Attempts", "/attempts") }

// Replay delivers a dead letter again now (a dlv_ id, or an evt_ id for every dead letter of that
// event): same event id and body, X-Service-Delivery-Attempt from 1 again. It returns the first
// attempt of each.
func (s *Session) Replay(id string) ([]Attempt, error) {
	return s.ReplayContext(context.Background(), id)
}

// ReplayContext is Replay bounded by ctx.
func (s *Session) ReplayContext(ctx context.Context, id string) ([]Attempt, error) {
	var res struct{ Data []Attempt }
	err := s.do(ctx, "Replay", http.MethodPost, "/dead-letters/"+url.PathEscape(id)+"/replay", nil, &res)
	return res.Data, err
}

// ReplayAll replays every dead letter that matches filter and whose subscription still exists.
func (s *Session) ReplayAll(filter WebhookFilter) ([]Attempt, error) {
	return s.ReplayAllContext(context.Background(), filter)
}

// ReplayAllContext is ReplayAll bounded by ctx.
func (s *Session) ReplayAllContext(ctx context.Context, filter WebhookFilter) ([]Attempt, error) {
	var res struct{ Data []Attempt }
	err := s.do(ctx, "ReplayAll", http.MethodPost, "/dead-letters/replay", filter, &res)
	return res.Data, err
}

// CreateKey makes another test key of this session (its own account unless opts.Account says).
func (s *Session) CreateKey(opts KeyOptions) (Key, error) {
	var key Key
	err := s.do(context.Background(), "CreateKey", http.MethodPost, "/keys", opts, &key)
	return key, err
}

// Keys is the keys made for the session, oldest first.
func (s *Session) Keys() ([]Key, error) { return listAll[Key](s, "Keys", "/keys") }

// RevokeKey makes a key of this session 401 from now on.
func (s *Session) RevokeKey(key string) error {
	return s.do(context.Background(), "RevokeKey", http.MethodDelete, "/keys/"+url.PathEscape(key), nil, nil)
}

// InjectFault makes the next matching /v1 requests fail; it returns the faults now active.
//
//	s.InjectFault(svcsandbox.Fault{Method: "POST", Path: "/v1/calls", Status: 503, RetryAfter: 2})
func (s *Session) InjectFault(f Fault) ([]ActiveFault, error) {
	var res struct{ Data []ActiveFault }
	err := s.do(context.Background(), "InjectFault", http.MethodPost, "/faults", f, &res)
	return res.Data, err
}

// Faults is the injected faults with hits left, in order.
func (s *Session) Faults() ([]ActiveFault, error) {
	return listOnce[ActiveFault](s, "Faults", "/faults")
}

// ClearFaults forgets every injected fault.
func (s *Session) ClearFaults() error {
	return s.do(context.Background(), "ClearFaults", http.MethodDelete, "/faults", nil, nil)
}

// SetBehavior makes every later call to number behave so, until cleared.
//
//	s.SetBehavior("+14155550123", svcsandbox.CallBehavior{Ring: "manual"})
func (s *Session) SetBehavior(number string, b CallBehavior) error {
	return s.do(context.Background(), "SetBehavior", http.MethodPut, "/network/"+url.PathEscape(number), b, nil)
}

// QueueBehavior gives the next calls to number these behaviours, one each, before the standing
// one applies again.
func (s *Session) QueueBehavior(number string, behaviors ...CallBehavior) error {
	return s.do(context.Background(), "QueueBehavior", http.MethodPost, "/network/"+url.PathEscape(number)+"/queue",
		map[string]any{"behaviors": behaviors}, nil)
}

// ClearBehavior forgets what was scripted for number.
func (s *Session) ClearBehavior(number string) error {
	return s.do(context.Background(), "ClearBehavior", http.MethodDelete, "/network/"+url.PathEscape(number), nil, nil)
}

// ClearAllBehavior forgets the scripted call and message behaviour of every number.
func (s *Session) ClearAllBehavior() error {
	return s.do(context.Background(), "ClearAllBehavior", http.MethodDelete, "/network", nil, nil)
}

// SetMessageBehavior makes every later message to number end so: "delivered" or "failed".
func (s *Session) SetMessageBehavior(number, outcome string) error {
	return s.do(context.Background(), "SetMessageBehavior", http.MethodPut, "/network/"+url.PathEscape(number)+"/messages",
		map[string]string{"outcome": outcome}, nil)
}

// QueueMessageBehavior makes the next messages to number end so, one outcome each.
func (s *Session) QueueMessageBehavior(number string, outcomes ...string) error {
	behaviors := make([]map[string]string, len(outcomes))
	for i, outcome := range outcomes {
		behaviors[i] = map[string]string{"outcome": outcome}
	}
	return s.do(context.Background(), "QueueMessageBehavior", http.MethodPost, "/network/"+url.PathEscape(number)+"/messages/queue",
		map[string]any{"behaviors": behaviors}, nil)
}

// Call is a call of any account of the session, as the API shows it.
func (s *Session) Call(id string) (Call, error) {
	var call Call
	err := s.do(context.Background(), "Call", http.MethodGet, "/calls/"+url.PathEscape(id), nil, &call)
	return call, err
}

// Calls is every call of the session, every account, newest first.
func (s *Session) Calls() ([]Call, error) { return listAll[Call](s, "Calls", "/calls") }

// AnswerCall answers a ringing call now, by "human", "voicemail" or "ai_receptionist" (empty: a human).
func (s *Session) AnswerCall(id, by string) (Call, error) {
	body := map[string]string{}
	if by != "" {
		body["by"] = by
	}
	var call Call
	err := s.do(context.Background(), "AnswerCall", http.MethodPost, "/calls/"+url.PathEscape(id)+"/answer", body, &call)
	return call, err
}

// HangUp ends a live call now: an answered one completes "answered", a ringing one "canceled".
func (s *Session) HangUp(id string) (Call, error) {
	var call Call
	err := s.do(context.Background(), "HangUp", http.MethodPost, "/calls/"+url.PathEscape(id)+"/hang-up", nil, &call)
	return call, err
}

// InboundCall rings a number of an account from outside, through the same lifecycle and events
// as an outbound call.
func (s *Session) InboundCall(in InboundCall) (Call, error) {
	var call Call
	err := s.do(context.Background(), "InboundCall", http.MethodPost, "/calls/inbound", in, &call)
	return call, err
}

// InboundMessage delivers an SMS or MMS to a provisioned number now (message.received).
func (s *Session) InboundMessage(in InboundMessage) (Message, error) {
	var msg Message
	err := s.do(context.Background(), "InboundMessage", http.MethodPost, "/messages/inbound", in, &msg)
	return msg, err
}

// Message is a message of any account of the session.
func (s *Session) Message(id string) (Message, error) {
	var msg Message
	err := s.do(context.Background(), "Message", http.MethodGet, "/messages/"+url.PathEscape(id), nil, &msg)
	return msg, err
}

// Recording is a recording of any account of the session.
func (s *Session) Recording(id string) (Recording, error) {
	var rec Recording
	err := s.do(context.Background(), "Recording", http.MethodGet, "/recordings/"+url.PathEscape(id), nil, &rec)
	return rec, err
}

// Transcript is a transcript (a trn_ id) of any account of the session, as it is now.
func (s *Session) Transcript(id string) (Transcript, error) {
	var trn Transcript
	err := s.do(context.Background(), "Transcript", http.MethodGet, "/transcripts/"+url.PathEscape(id), nil, &trn)
	return trn, err
}

// SetRecordingTiming says when recordings and transcripts of calls that end from now on become ready.
func (s *Session) SetRecordingTiming(timing RecordingTiming) error {
	return s.do(context.Background(), "SetRecordingTiming", http.MethodPut, "/recording-timing", timing, nil)
}

// SetCallRecordingTiming says it for one call, before it ends.
func (s *Session) SetCallRecordingTiming(callID string, timing RecordingTiming) error {
	return s.do(context.Background(), "SetCallRecordingTiming", http.MethodPut, "/calls/"+url.PathEscape(callID)+"/recording-timing", timing, nil)
}

// SetScript gives a ringing call the conversation it will carry.
func (s *Session) SetScript(callID string, lines []ScriptLine) error {
	return s.do(context.Background(), "SetScript", http.MethodPut, "/calls/"+url.PathEscape(callID)+"/script",
		map[string]any{"lines": lines}, nil)
}

// OpenTranscriptStreams is how many live-transcript streams (server-sent events) are open.
func (s *Session) OpenTranscriptStreams() (int, error) {
	var res struct {
		OpenStreams int `json:"openStreams"`
	}
	err := s.do(context.Background(), "OpenTranscriptStreams", http.MethodGet, "/transcript-streams", nil, &res)
	return res.OpenStreams, err
}

// Requests is the request journal of the session's /v1 API, oldest first.
func (s *Session) Requests() ([]RequestRecord, error) {
	return listAll[RequestRecord](s, "Requests", "/requests")
}

// InternalErrors is the unexpected exceptions inside the session's sandbox; empty when healthy.
func (s *Session) InternalErrors() ([]InternalError, error) {
	return listOnce[InternalError](s, "InternalErrors", "/internal-errors")
}

// Snapshot is the session as JSON: Options.Snapshot starts another session from it, which gives
// the same answers, ids and events from there.
func (s *Session) Snapshot() (json.RawMessage, error) {
	var snapshot json.RawMessage
	err := s.do(context.Background(), "Snapshot", http.MethodGet, "/snapshot", nil, &snapshot)
	return snapshot, err
}

// Coverage is what the session's life exercised, and what it never did.
func (s *Session) Coverage() (Coverage, error) {
	var report Coverage
	err := s.do(context.Background(), "Coverage", http.MethodGet, "/coverage", nil, &report)
	return report, err
}

// Sessions lists the server's sessions, oldest first.
func (srv *Server) Sessions(ctx context.Context) ([]SessionInfo, error) {
	return pages[SessionInfo](ctx, srv, op{name: "Sessions"}, "/sessions")
}

// Coverage is the union of every session's coverage on the server, deleted ones included.
func (srv *Server) Coverage(ctx context.Context) (Coverage, error) {
	var report Coverage
	err := srv.call(ctx, op{name: "Coverage"}, http.MethodGet, "/coverage", nil, &report)
	return report, err
}

// listOnce reads an unpaginated {data} list of the session.
func listOnce[T any](s *Session, name, path string) ([]T, error) {
	var res struct{ Data []T }
	err := s.do(context.Background(), name, http.MethodGet, path, nil, &res)
	return res.Data, err
}

// listAll reads every page of a paginated list of the session.
func listAll[T any](s *Session, name, path string) ([]T, error) {
	return pages[T](context.Background(), s.Server, op{name: name, session: s.ID, timeout: s.Timeout}, "/sessions/"+url.PathEscape(s.ID)+path)
}

// pages follows a control list's cursors, 200 items a page, to its end.
func pages[T any](ctx context.Context, srv *Server, o op, path string) ([]T, error) {
	all := []T{}
	query := url.Values{"limit": {"200"}}
	for {
		var p page[T]
		if err := srv.call(ctx, o, http.MethodGet, path+"?"+query.Encode(), nil, &p); err != nil {
			return all, err
		}
		all = append(all, p.Data...)
		if !p.HasMore || p.NextCursor == nil {
			return all, nil
		}
		query.Set("cursor", *p.NextCursor)
	}
}
