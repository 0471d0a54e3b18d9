package svcsandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	svcsandbox "github.com/svc-sandbox/svc-sandbox/clients/go"
)

// The stream of a session with no events opens with a change with no changes; each platform event
// follows as an "event" whose id is its position in the log.
func TestStreamSessionReadsTheSessionsEventsWithinItsBound(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: 7})
	ctx := context.Background()

	first, err := s.Control().StreamSession(ctx, 1)
	if err != nil || len(first) != 1 || first[0].Event != "change" {
		t.Fatalf("first frame: %+v %v", first, err)
	}
	var change struct {
		Now     string
		Changes []any
	}
	if err := json.Unmarshal(first[0].Data, &change); err != nil || change.Now == "" || len(change.Changes) != 0 {
		t.Errorf("first change: %s %v", first[0].Data, err)
	}

	made, err := s.Trigger("call.completed", nil)
	if err != nil {
		t.Fatal(err)
	}
	bounded, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	seen := []svcsandbox.StreamEvent{}
	for len(seen) < 100 {
		seen, err = s.Control().StreamSession(bounded, len(seen)+1)
		if err != nil {
			t.Fatal(err)
		}
		last := seen[len(seen)-1]
		var data struct{ ID string }
		if last.Event == "event" && json.Unmarshal(last.Data, &data) == nil && data.ID == made.ID {
			break
		}
		if bounded.Err() != nil {
			t.Fatalf("the triggered event %s never came: %+v", made.ID, seen)
		}
	}
	var ids []string
	for _, frame := range seen {
		if frame.Event == "event" {
			ids = append(ids, frame.ID)
		}
	}
	if len(ids) == 0 || ids[0] != "1" {
		t.Errorf("event ids %v, want 1 first", ids)
	}

	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelShort()
	began := time.Now()
	frames, err := s.Control().StreamSession(short, 0)
	// A stream opened on a session that has events replays them first, from the first, then changes.
	if err != nil || time.Since(began) < 300*time.Millisecond || len(frames) < 4 || frames[0].Event != "event" || frames[0].ID != "1" {
		t.Errorf("a read bounded by its context: %+v %v after %s", frames, err, time.Since(began))
	}

}

// The console's page, its JSON lists, a recording's audio and the OpenAPI documents are methods too.
func TestTheConsolesReadsAndTheDocumentsAreMethods(t *testing.T) {
	t.Parallel()
	s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: 8})
	ctx := context.Background()
	page, err := s.Server.Control().GetConsole(ctx)
	if err != nil || !strings.Contains(strings.ToLower(page), "<html") {
		t.Errorf("console page: %.80q %v", page, err)
	}
	c := s.Control()
	reads := map[string]func(context.Context, map[string][]string, any) error{
		"calls":    func(ctx context.Context, q map[string][]string, out any) error { return c.ConsoleCalls(ctx, q, out) },
		"messages": func(ctx context.Context, q map[string][]string, out any) error { return c.ConsoleMessages(ctx, q, out) },
		"numbers":  func(ctx context.Context, q map[string][]string, out any) error { return c.ConsoleNumbers(ctx, q, out) },
		"recordings": func(ctx context.Context, q map[string][]string, out any) error {
			return c.ConsoleRecordings(ctx, q, out)
		},
		"transcripts": func(ctx context.Context, q map[string][]string, out any) error {
			return c.ConsoleTranscripts(ctx, q, out)
		},
		"subscriptions": func(ctx context.Context, q map[string][]string, out any) error {
			return c.ConsoleSubscriptions(ctx, q, out)
		},
		"deliveries": func(ctx context.Context, q map[string][]string, out any) error {
			return c.ConsoleDeliveries(ctx, q, out)
		},
	}
	for name, read := range reads {
		var list struct {
			Data    []any
			HasMore *bool `json:"has_more"`
		}
		if err := read(ctx, map[string][]string{"limit": {"2"}}, &list); err != nil || list.HasMore == nil || *list.HasMore {
			t.Errorf("console %s: %+v %v", name, list, err)
		}
	}
	audio, err := c.ConsoleRecordingAudio(ctx, "rec_missing")
	var se *svcsandbox.SandboxError
	if !errors.As(err, &se) || se.Status != 404 || audio != nil {
		t.Errorf("a missing recording's audio: %d bytes, %v", len(audio), err)
	}
	if _, err := s.Control().StreamSession(ctx, 1); err != nil {
		t.Fatal(err)
	}
	var doc struct{ OpenAPI string }
	if err := s.Server.Control().GetOpenApi30(ctx, &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.0") {
		t.Errorf("openapi 3.0: %q %v", doc.OpenAPI, err)
	}
	if err := s.Server.Control().GetOpenApi(ctx, &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi: %q %v", doc.OpenAPI, err)
	}
}
