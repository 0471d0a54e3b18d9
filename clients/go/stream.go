package svcsandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// StreamEvent is one server-sent event of a session's stream (SessionControl.StreamSession):
// Event is its type ("change", "event", "resync", "reset"; "message" when it names none), Data
// its data (JSON: decode it with json.Unmarshal), ID its id ("" when it has none; an "event"'s
// id is its position in the session's event log, from 1).
type StreamEvent struct {
	Event string
	Data  json.RawMessage
	ID    string
}

// stream reads the server-sent events at path until max came (max <= 0: no count) or the call's
// bound passed: ctx's deadline or o's timeout, whichever comes first. A stream never ends by
// itself, so the end of its time is no error once the stream began; a refusal is (a
// *SandboxError), and so is more than maxAnswerBytes read.
func (srv *Server) stream(ctx context.Context, o op, path string, max int) ([]StreamEvent, error) {
	timeout := o.timeout
	if timeout <= 0 {
		var err error
		if timeout, err = envTimeout(); err != nil {
			return nil, err
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	_, hadDeadline := ctx.Deadline()
	// Always the session's bound, and ctx's own when it ends sooner: a stream's read is never longer.
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	target := srv.ControlURL() + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("svcsandbox: %s: %w", o, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	res, err := srv.client.Do(req)
	if err != nil {
		return nil, srv.unanswered(ctx, o, http.MethodGet, target, err, hadDeadline, timeout)
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		return nil, fmt.Errorf("svcsandbox: %s (GET %s): the server at %s answered %s to %q; the helper follows no redirect: "+
			"point SVC_SANDBOX_URL (or Connect) at the svc-sandbox server itself", o, target, srv.URL, res.Status, res.Header.Get("Location"))
	}
	if res.StatusCode >= 300 {
		raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes+1))
		if err != nil {
			return nil, srv.unanswered(ctx, o, http.MethodGet, target, err, hadDeadline, timeout)
		}
		return nil, answerError(o, http.MethodGet, strings.TrimPrefix(target, srv.URL), res.StatusCode, raw)
	}
	limited := &io.LimitedReader{R: res.Body, N: maxAnswerBytes + 1}
	lines := bufio.NewReaderSize(limited, 64<<10)
	var events []StreamEvent
	var current StreamEvent
	var data [][]byte
	var consumed int64 // bytes of the lines taken, not of what the buffer read ahead
	for max <= 0 || len(events) < max {
		line, err := lines.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole (still within the cap on what is read).
			whole := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = lines.ReadSlice('\n')
				whole = append(whole, line...)
			}
			line = whole
		}
		if consumed += int64(len(line)); consumed > maxAnswerBytes {
			return events, fmt.Errorf("svcsandbox: %s (GET %s): the stream of the server at %s sent more than %d bytes; the helper reads no more", o, target, srv.URL, maxAnswerBytes)
		}
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return events, nil // the bound passed, or the server ended the stream
			}
			return events, srv.unanswered(ctx, o, http.MethodGet, target, err, hadDeadline, timeout)
		}
		text := bytes.TrimRight(line, "\r\n")
		switch {
		case len(text) == 0:
			if data != nil {
				current.Data = eventData(bytes.Join(data, []byte("\n")))
				if current.Event == "" {
					current.Event = "message"
				}
				events = append(events, current)
			}
			current, data = StreamEvent{}, nil
		case text[0] == ':':
			// a comment: the stream's opening, or a keep-alive
		default:
			name, value, _ := bytes.Cut(text, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(name) {
			case "data":
				data = append(data, append([]byte(nil), value...))
			case "event":
				current.Event = string(value)
			case "id":
				current.ID = string(value)
			}
		}
	}
	return events, nil
}

// eventData is an event's data as JSON: as sent when it is JSON, else as a JSON string.
func eventData(raw []byte) json.RawMessage {
	if json.Valid(raw) {
		return json.RawMessage(raw)
	}
	quoted, _ := json.Marshal(string(raw))
	return quoted
}
