package svcsandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"time"
)

// The control API of one session as typed methods, each a thin wrapper over the generated
// SessionControl (operations.go). The rule for contexts (doc.go, "Contexts"): every method of a
// Session that talks to the server comes in two forms, as database/sql's do: Name(...) runs on
// the session's own context (for NewSession, one canceled when the test ends) and NameContext(ctx,
// ...) on ctx; either way a context with no deadline gets the session's Timeout.

// Control is the session's control operations as generated from the served control document, one
// method per operation, each taking a context first: for a field the typed methods do not carry.
func (s *Session) Control() SessionControl {
	return SessionControl{srv: s.Server, session: s.ID, timeout: s.Timeout}
}

// ctl is Control with name as the Op of its errors.
func (s *Session) ctl(name string) SessionControl {
	c := s.Control()
	c.name = name
	return c
}

// context is the session's own context: the ctx-free methods run on it.
func (s *Session) context() context.Context {
	if s.ctx == nil {
		return context.Background()
	}
	return s.ctx
}

// Advance moves the session's virtual time by d ("500ms", "30s", "5m", "2h", "1d"), running every
// transition, event and webhook attempt that falls due, in order, and answers once the deliveries
// it started have settled.
//
//	res, err := s.Advance("65s") // res.Now "2026-01-01T00:01:05.000Z", res.Events [call.answered call.completed]
func (s *Session) Advance(d string) (AdvanceResult, error) {
	return s.AdvanceContext(s.context(), d)
}

// AdvanceContext is Advance on ctx.
func (s *Session) AdvanceContext(ctx context.Context, d string) (AdvanceResult, error) {
	return s.advance(ctx, "Advance", d)
}

func (s *Session) advance(ctx context.Context, name string, d any) (AdvanceResult, error) {
	var res AdvanceResult
	err := s.ctl(name).Advance(ctx, map[string]any{"duration": d}, &res)
	return res, err
}

// AdvanceUntil moves virtual time until an event of eventType is emitted, at most max ("1h";
// empty: one day), and returns that event. None within max is a *SandboxError with Status 404
// and Param "until".
//
//	done, err := s.AdvanceUntil("call.completed", "1h")
func (s *Session) AdvanceUntil(eventType, max string) (Event, error) {
	return s.AdvanceUntilContext(s.context(), eventType, max)
}

// AdvanceUntilContext is AdvanceUntil on ctx.
func (s *Session) AdvanceUntilContext(ctx context.Context, eventType, max string) (Event, error) {
	body := map[string]any{"until": eventType}
	if max != "" {
		body["max"] = max
	}
	var res struct {
		Event Event `json:"event"`
	}
	err := s.ctl("AdvanceUntil").Advance(ctx, body, &res)
	return res.Event, err
}

// Trigger makes one event of eventType through the smallest real story that ends in it, told
// through /v1 with the session's key (virtual time moves as far as it needs), and returns it.
// data sets fields of the event's data ({"disposition": "busy"}); nil: none.
//
//	ev, err := s.Trigger("call.completed", map[string]any{"disposition": "busy"})
func (s *Session) Trigger(eventType string, data map[string]any) (Event, error) {
	return s.TriggerContext(s.context(), eventType, data)
}

// TriggerContext is Trigger on ctx.
func (s *Session) TriggerContext(ctx context.Context, eventType string, data map[string]any) (Event, error) {
	body := map[string]any{"type": eventType}
	if data != nil {
		body["data"] = data
	}
	var ev Event
	err := s.ctl("Trigger").TriggerEvent(ctx, body, &ev)
	return ev, err
}

// RunScenario runs a scenario file on the session from its virtual now, as the session's key:
// pathOrJSON is the file's path, or its JSON itself (text starting with "{"). A scenario that
// fails its expectations is a result with Passed false, not an error; an invalid file is a
// *SandboxError whose Param is the JSON path at fault.
func (s *Session) RunScenario(pathOrJSON string) (ScenarioResult, error) {
	return s.RunScenarioContext(s.context(), pathOrJSON)
}

// RunScenarioContext is RunScenario on ctx.
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
	err := s.ctl("RunScenario").RunScenario(ctx, json.RawMessage(raw), &res)
	return res, err
}

// Info is the session's id, seed and virtual now.
func (s *Session) Info() (SessionInfo, error) { return s.InfoContext(s.context()) }

// InfoContext is Info on ctx.
func (s *Session) InfoContext(ctx context.Context) (SessionInfo, error) {
	var info SessionInfo
	err := s.ctl("Info").GetSession(ctx, &info)
	return info, err
}

// Now is the session's virtual now.
func (s *Session) Now() (time.Time, error) { return s.NowContext(s.context()) }

// NowContext is Now on ctx.
func (s *Session) NowContext(ctx context.Context) (time.Time, error) { return s.now(ctx, "Now") }

func (s *Session) now(ctx context.Context, name string) (time.Time, error) {
	var info SessionInfo
	if err := s.ctl(name).GetSession(ctx, &info); err != nil {
		return time.Time{}, err
	}
	now, err := time.Parse(time.RFC3339Nano, info.Now)
	if err != nil {
		return time.Time{}, fmt.Errorf("svcsandbox: %s on session %s: the server's now %q is not a time: %v", name, s.ID, info.Now, err)
	}
	return now, nil
}

// Reset empties the session: clock back to its start, ids start over; the keys it made stay valid.
func (s *Session) Reset() error { return s.ResetContext(s.context()) }

// ResetContext is Reset on ctx.
func (s *Session) ResetContext(ctx context.Context) error { return s.ctl("Reset").Reset(ctx) }

// Events is the session's event log, oldest first.
func (s *Session) Events() ([]Event, error) { return s.EventsContext(s.context()) }

// EventsContext is Events on ctx.
func (s *Session) EventsContext(ctx context.Context) ([]Event, error) {
	c := s.ctl("Events")
	return walk[Event](ctx, c.op(""), s.Server, c.ListEvents)
}

// Deliveries is every webhook delivery (one event to one subscription) with its attempts, oldest first.
func (s *Session) Deliveries() ([]Delivery, error) { return s.DeliveriesContext(s.context()) }

// DeliveriesContext is Deliveries on ctx.
func (s *Session) DeliveriesContext(ctx context.Context) ([]Delivery, error) {
	c := s.ctl("Deliveries")
	return walk[Delivery](ctx, c.op(""), s.Server, c.ListDeliveries)
}

// DeadLetters is the dead-letter queue: deliveries whose every attempt failed, oldest first.
func (s *Session) DeadLetters() ([]Delivery, error) { return s.DeadLettersContext(s.context()) }

// DeadLettersContext is DeadLetters on ctx.
func (s *Session) DeadLettersContext(ctx context.Context) ([]Delivery, error) {
	c := s.ctl("DeadLetters")
	return walk[Delivery](ctx, c.op(""), s.Server, c.ListDeadLetters)
}

// Attempts is every webhook delivery attempt, in the order sent.
func (s *Session) Attempts() ([]Attempt, error) { return s.AttemptsContext(s.context()) }

// AttemptsContext is Attempts on ctx.
func (s *Session) AttemptsContext(ctx context.Context) ([]Attempt, error) {
	var res struct{ Data []Attempt }
	err := s.ctl("Attempts").ListAttempts(ctx, &res)
	return res.Data, err
}

// Replay delivers a dead letter again now (a dlv_ id, or an evt_ id for every dead letter of that
// event): same event id and body, X-Service-Delivery-Attempt from 1 again. It returns the first
// attempt of each.
func (s *Session) Replay(id string) ([]Attempt, error) { return s.ReplayContext(s.context(), id) }

// ReplayContext is Replay on ctx.
func (s *Session) ReplayContext(ctx context.Context, id string) ([]Attempt, error) {
	var res struct{ Data []Attempt }
	err := s.ctl("Replay").ReplayDeadLetter(ctx, id, &res)
	return res.Data, err
}

// ReplayAll replays every dead letter that matches filter and whose subscription still exists.
func (s *Session) ReplayAll(filter WebhookFilter) ([]Attempt, error) {
	return s.ReplayAllContext(s.context(), filter)
}

// ReplayAllContext is ReplayAll on ctx.
func (s *Session) ReplayAllContext(ctx context.Context, filter WebhookFilter) ([]Attempt, error) {
	var res struct{ Data []Attempt }
	err := s.ctl("ReplayAll").ReplayAllDeadLetters(ctx, filter, &res)
	return res.Data, err
}

// CreateKey makes another test key of this session (its own account unless opts.Account says).
func (s *Session) CreateKey(opts KeyOptions) (Key, error) {
	return s.CreateKeyContext(s.context(), opts)
}

// CreateKeyContext is CreateKey on ctx.
func (s *Session) CreateKeyContext(ctx context.Context, opts KeyOptions) (Key, error) {
	var key Key
	err := s.ctl("CreateKey").CreateKey(ctx, opts, &key)
	return key, err
}

// Keys is the keys made for the session, oldest first.
func (s *Session) Keys() ([]Key, error) { return s.KeysContext(s.context()) }

// KeysContext is Keys on ctx.
func (s *Session) KeysContext(ctx context.Context) ([]Key, error) {
	c := s.ctl("Keys")
	return walk[Key](ctx, c.op(""), s.Server, c.ListKeys)
}

// RevokeKey makes a key of this session 401 from now on.
func (s *Session) RevokeKey(key string) error { return s.RevokeKeyContext(s.context(), key) }

// RevokeKeyContext is RevokeKey on ctx.
func (s *Session) RevokeKeyContext(ctx context.Context, key string) error {
	return s.ctl("RevokeKey").RevokeKey(ctx, key)
}

// InjectFault makes the next matching /v1 requests fail; it returns the faults now active.
//
//	s.InjectFault(svcsandbox.Fault{Method: "POST", Path: "/v1/calls", Status: 503, RetryAfter: 2})
func (s *Session) InjectFault(f Fault) ([]ActiveFault, error) {
	return s.InjectFaultContext(s.context(), f)
}

// InjectFaultContext is InjectFault on ctx.
func (s *Session) InjectFaultContext(ctx context.Context, f Fault) ([]ActiveFault, error) {
	var res struct{ Data []ActiveFault }
	err := s.ctl("InjectFault").InjectFault(ctx, f, &res)
	return res.Data, err
}

// Faults is the injected faults with hits left, in order.
func (s *Session) Faults() ([]ActiveFault, error) { return s.FaultsContext(s.context()) }

// FaultsContext is Faults on ctx.
func (s *Session) FaultsContext(ctx context.Context) ([]ActiveFault, error) {
	var res struct{ Data []ActiveFault }
	err := s.ctl("Faults").ListFaults(ctx, &res)
	return res.Data, err
}

// ClearFaults forgets every injected fault.
func (s *Session) ClearFaults() error { return s.ClearFaultsContext(s.context()) }

// ClearFaultsContext is ClearFaults on ctx.
func (s *Session) ClearFaultsContext(ctx context.Context) error {
	return s.ctl("ClearFaults").ClearFaults(ctx)
}

// SetBehavior makes every later call to number behave so, until cleared.
//
//	s.SetBehavior("+14155550123", svcsandbox.CallBehavior{Ring: "manual"})
func (s *Session) SetBehavior(number string, b CallBehavior) error {
	return s.SetBehaviorContext(s.context(), number, b)
}

// SetBehaviorContext is SetBehavior on ctx.
func (s *Session) SetBehaviorContext(ctx context.Context, number string, b CallBehavior) error {
	return s.ctl("SetBehavior").SetBehavior(ctx, number, b)
}

// QueueBehavior gives the next calls to number these behaviours, one each, before the standing
// one applies again.
func (s *Session) QueueBehavior(number string, behaviors ...CallBehavior) error {
	return s.QueueBehaviorContext(s.context(), number, behaviors...)
}

// QueueBehaviorContext is QueueBehavior on ctx.
func (s *Session) QueueBehaviorContext(ctx context.Context, number string, behaviors ...CallBehavior) error {
	return s.ctl("QueueBehavior").QueueBehavior(ctx, number, map[string]any{"behaviors": behaviors})
}

// ClearBehavior forgets what was scripted for number.
func (s *Session) ClearBehavior(number string) error {
	return s.ClearBehaviorContext(s.context(), number)
}

// ClearBehaviorContext is ClearBehavior on ctx.
func (s *Session) ClearBehaviorContext(ctx context.Context, number string) error {
	return s.ctl("ClearBehavior").ClearBehavior(ctx, number)
}

// ClearAllBehavior forgets the scripted call and message behaviour of every number.
func (s *Session) ClearAllBehavior() error { return s.ClearAllBehaviorContext(s.context()) }

// ClearAllBehaviorContext is ClearAllBehavior on ctx.
func (s *Session) ClearAllBehaviorContext(ctx context.Context) error {
	return s.ctl("ClearAllBehavior").ClearAllBehavior(ctx)
}

// SetMessageBehavior makes every later message to number end so: "delivered" or "failed".
func (s *Session) SetMessageBehavior(number, outcome string) error {
	return s.SetMessageBehaviorContext(s.context(), number, outcome)
}

// SetMessageBehaviorContext is SetMessageBehavior on ctx.
func (s *Session) SetMessageBehaviorContext(ctx context.Context, number, outcome string) error {
	return s.ctl("SetMessageBehavior").SetMessageBehavior(ctx, number, map[string]string{"outcome": outcome})
}

// QueueMessageBehavior makes the next messages to number end so, one outcome each.
func (s *Session) QueueMessageBehavior(number string, outcomes ...string) error {
	return s.QueueMessageBehaviorContext(s.context(), number, outcomes...)
}

// QueueMessageBehaviorContext is QueueMessageBehavior on ctx.
func (s *Session) QueueMessageBehaviorContext(ctx context.Context, number string, outcomes ...string) error {
	behaviors := make([]map[string]string, len(outcomes))
	for i, outcome := range outcomes {
		behaviors[i] = map[string]string{"outcome": outcome}
	}
	return s.ctl("QueueMessageBehavior").QueueMessageBehavior(ctx, number, map[string]any{"behaviors": behaviors})
}

// Call is a call of any account of the session, as the API shows it.
func (s *Session) Call(id string) (Call, error) { return s.CallContext(s.context(), id) }

// CallContext is Call on ctx.
func (s *Session) CallContext(ctx context.Context, id string) (Call, error) {
	var call Call
	err := s.ctl("Call").InspectCall(ctx, id, &call)
	return call, err
}

// Calls is every call of the session, every account, newest first.
func (s *Session) Calls() ([]Call, error) { return s.CallsContext(s.context()) }

// CallsContext is Calls on ctx.
func (s *Session) CallsContext(ctx context.Context) ([]Call, error) {
	c := s.ctl("Calls")
	return walk[Call](ctx, c.op(""), s.Server, c.ListSessionCalls)
}

// AnswerCall answers a ringing call now, by "human", "voicemail" or "ai_receptionist" (empty: a human).
func (s *Session) AnswerCall(id, by string) (Call, error) {
	return s.AnswerCallContext(s.context(), id, by)
}

// AnswerCallContext is AnswerCall on ctx.
func (s *Session) AnswerCallContext(ctx context.Context, id, by string) (Call, error) {
	body := map[string]string{}
	if by != "" {
		body["by"] = by
	}
	var call Call
	err := s.ctl("AnswerCall").AnswerCall(ctx, id, body, &call)
	return call, err
}

// HangUp ends a live call now: an answered one completes "answered", a ringing one "canceled".
func (s *Session) HangUp(id string) (Call, error) { return s.HangUpContext(s.context(), id) }

// HangUpContext is HangUp on ctx.
func (s *Session) HangUpContext(ctx context.Context, id string) (Call, error) {
	var call Call
	err := s.ctl("HangUp").HangUpCall(ctx, id, &call)
	return call, err
}

// InboundCall rings a number of an account from outside, through the same lifecycle and events
// as an outbound call.
func (s *Session) InboundCall(in InboundCall) (Call, error) {
	return s.InboundCallContext(s.context(), in)
}

// InboundCallContext is InboundCall on ctx.
func (s *Session) InboundCallContext(ctx context.Context, in InboundCall) (Call, error) {
	var call Call
	err := s.ctl("InboundCall").InboundCall(ctx, in, &call)
	return call, err
}

// InboundMessage delivers an SMS or MMS to a provisioned number now (message.received).
func (s *Session) InboundMessage(in InboundMessage) (Message, error) {
	return s.InboundMessageContext(s.context(), in)
}

// InboundMessageContext is InboundMessage on ctx.
func (s *Session) InboundMessageContext(ctx context.Context, in InboundMessage) (Message, error) {
	var msg Message
	err := s.ctl("InboundMessage").InboundMessage(ctx, in, &msg)
	return msg, err
}

// Message is a message of any account of the session.
func (s *Session) Message(id string) (Message, error) { return s.MessageContext(s.context(), id) }

// MessageContext is Message on ctx.
func (s *Session) MessageContext(ctx context.Context, id string) (Message, error) {
	var msg Message
	err := s.ctl("Message").InspectMessage(ctx, id, &msg)
	return msg, err
}

// Recording is a recording of any account of the session.
func (s *Session) Recording(id string) (Recording, error) { return s.RecordingContext(s.context(), id) }

// RecordingContext is Recording on ctx.
func (s *Session) RecordingContext(ctx context.Context, id string) (Recording, error) {
	var rec Recording
	err := s.ctl("Recording").InspectRecording(ctx, id, &rec)
	return rec, err
}

// Transcript is a transcript (a trn_ id) of any account of the session, as it is now.
func (s *Session) Transcript(id string) (Transcript, error) {
	return s.TranscriptContext(s.context(), id)
}

// TranscriptContext is Transcript on ctx.
func (s *Session) TranscriptContext(ctx context.Context, id string) (Transcript, error) {
	var trn Transcript
	err := s.ctl("Transcript").InspectTranscript(ctx, id, &trn)
	return trn, err
}

// SetRecordingTiming says when recordings and transcripts of calls that end from now on become ready.
func (s *Session) SetRecordingTiming(timing RecordingTiming) error {
	return s.SetRecordingTimingContext(s.context(), timing)
}

// SetRecordingTimingContext is SetRecordingTiming on ctx.
func (s *Session) SetRecordingTimingContext(ctx context.Context, timing RecordingTiming) error {
	return s.ctl("SetRecordingTiming").SetRecordingTiming(ctx, timing)
}

// SetCallRecordingTiming says it for one call, before it ends.
func (s *Session) SetCallRecordingTiming(callID string, timing RecordingTiming) error {
	return s.SetCallRecordingTimingContext(s.context(), callID, timing)
}

// SetCallRecordingTimingContext is SetCallRecordingTiming on ctx.
func (s *Session) SetCallRecordingTimingContext(ctx context.Context, callID string, timing RecordingTiming) error {
	return s.ctl("SetCallRecordingTiming").SetCallRecordingTiming(ctx, callID, timing)
}

// SetScript gives a ringing call the conversation it will carry.
func (s *Session) SetScript(callID string, lines []ScriptLine) error {
	return s.SetScriptContext(s.context(), callID, lines)
}

// SetScriptContext is SetScript on ctx.
func (s *Session) SetScriptContext(ctx context.Context, callID string, lines []ScriptLine) error {
	return s.ctl("SetScript").SetConversationScript(ctx, callID, map[string]any{"lines": lines})
}

// OpenTranscriptStreams is how many live-transcript streams (server-sent events) are open.
func (s *Session) OpenTranscriptStreams() (int, error) {
	return s.OpenTranscriptStreamsContext(s.context())
}

// OpenTranscriptStreamsContext is OpenTranscriptStreams on ctx.
func (s *Session) OpenTranscriptStreamsContext(ctx context.Context) (int, error) {
	var res struct {
		OpenStreams int `json:"openStreams"`
	}
	err := s.ctl("OpenTranscriptStreams").CountTranscriptStreams(ctx, &res)
	return res.OpenStreams, err
}

// Requests is the request journal of the session's /v1 API, oldest first.
func (s *Session) Requests() ([]RequestRecord, error) { return s.RequestsContext(s.context()) }

// RequestsContext is Requests on ctx.
func (s *Session) RequestsContext(ctx context.Context) ([]RequestRecord, error) {
	c := s.ctl("Requests")
	return walk[RequestRecord](ctx, c.op(""), s.Server, c.ListRequests)
}

// InternalErrors is the unexpected exceptions inside the session's sandbox; empty when healthy.
func (s *Session) InternalErrors() ([]InternalError, error) {
	return s.InternalErrorsContext(s.context())
}

// InternalErrorsContext is InternalErrors on ctx.
func (s *Session) InternalErrorsContext(ctx context.Context) ([]InternalError, error) {
	var res struct{ Data []InternalError }
	err := s.ctl("InternalErrors").ListInternalErrors(ctx, &res)
	return res.Data, err
}

// Snapshot is the session as JSON: Options.Snapshot starts another session from it, which gives
// the same answers, ids and events from there.
func (s *Session) Snapshot() (json.RawMessage, error) { return s.SnapshotContext(s.context()) }

// SnapshotContext is Snapshot on ctx.
func (s *Session) SnapshotContext(ctx context.Context) (json.RawMessage, error) {
	var snapshot json.RawMessage
	err := s.ctl("Snapshot").GetSnapshot(ctx, &snapshot)
	return snapshot, err
}

// Coverage is what the session's life exercised, and what it never did.
func (s *Session) Coverage() (Coverage, error) { return s.CoverageContext(s.context()) }

// CoverageContext is Coverage on ctx.
func (s *Session) CoverageContext(ctx context.Context) (Coverage, error) {
	var report Coverage
	err := s.ctl("Coverage").GetCoverage(ctx, &report)
	return report, err
}

// Sessions lists the server's sessions, oldest first.
func (srv *Server) Sessions(ctx context.Context) ([]SessionInfo, error) {
	c := srv.Control()
	c.name = "Sessions"
	return walk[SessionInfo](ctx, c.op(""), srv, c.ListSessions)
}

// Coverage is the union of every session's coverage on the server, deleted ones included.
func (srv *Server) Coverage(ctx context.Context) (Coverage, error) {
	c := srv.Control()
	c.name = "Coverage"
	var report Coverage
	err := c.GetServerCoverage(ctx, &report)
	return report, err
}

// walk reads every page of a paginated control list, 200 items a page, at most MaxPages pages.
func walk[T any](ctx context.Context, o op, srv *Server, list func(context.Context, url.Values, any) error) ([]T, error) {
	all := []T{}
	query := url.Values{"limit": {"200"}}
	for n := 0; ; n++ {
		if n == maxPages {
			return all, fmt.Errorf("svcsandbox: %s: the server at %s answered %d pages and said there were more; the helper stops there", o, srv.URL, maxPages)
		}
		var p page[T]
		if err := list(ctx, query, &p); err != nil {
			return all, err
		}
		all = append(all, p.Data...)
		if !p.HasMore || p.NextCursor == nil {
			return all, nil
		}
		query.Set("cursor", *p.NextCursor)
	}
}
