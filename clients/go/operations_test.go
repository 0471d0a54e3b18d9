package svcsandbox

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
)

// Every operation of the served control document (clients/control-operations.json, written by
// scripts/generate-clients.mjs) is a method of the client: none is left out.
func TestEveryControlOperationIsAMethod(t *testing.T) {
	raw, err := os.ReadFile("../control-operations.json")
	if err != nil {
		t.Fatal(err)
	}
	var served []struct{ OperationID string }
	if err := json.Unmarshal(raw, &served); err != nil {
		t.Fatal(err)
	}
	if len(served) < 40 {
		t.Fatalf("only %d operations in ../control-operations.json", len(served))
	}
	byID := map[string]int{}
	for i, o := range operations {
		byID[o.id] = i
	}
	types := map[string]reflect.Type{"SessionControl": reflect.TypeOf(SessionControl{}), "ServerControl": reflect.TypeOf(ServerControl{})}
	reached := map[string]bool{}
	for _, op := range served {
		i, ok := byID[op.OperationID]
		if !ok {
			t.Errorf("the operation %s has no method: run npm run build && node scripts/generate-clients.mjs", op.OperationID)
			continue
		}
		entry := operations[i]
		typeName, method, _ := strings.Cut(entry.method, ".")
		typ, ok := types[typeName]
		if !ok {
			t.Errorf("%s: no type %s", op.OperationID, typeName)
			continue
		}
		if _, ok := typ.MethodByName(method); !ok {
			t.Errorf("%s: %s has no method %s", op.OperationID, typeName, method)
		}
		reached[entry.method] = true
	}
	if len(operations) != len(served) {
		t.Errorf("the generated table has %d operations, the served document %d: regenerate", len(operations), len(served))
	}
	for name, typ := range types {
		for i := 0; i < typ.NumMethod(); i++ {
			if m := name + "." + typ.Method(i).Name; !reached[m] {
				t.Errorf("%s makes no served operation", m)
			}
		}
	}
}

// The rule for contexts (doc.go): each method of a Session that talks to the server has a
// ...Context twin taking ctx first.
func TestEverySessionCallHasAContextTwin(t *testing.T) {
	local := map[string]bool{"ConsoleURL": true, "Control": true, "HTTPClient": true, "Transport": true, "Sleeps": true}
	typ := reflect.TypeOf(&Session{})
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	for i := 0; i < typ.NumMethod(); i++ {
		m := typ.Method(i)
		if local[m.Name] || strings.HasSuffix(m.Name, "Context") {
			continue
		}
		twin, ok := typ.MethodByName(m.Name + "Context")
		if !ok {
			t.Errorf("Session.%s has no %sContext", m.Name, m.Name)
			continue
		}
		if twin.Type.NumIn() != m.Type.NumIn()+1 || twin.Type.In(1) != ctxType {
			t.Errorf("Session.%sContext does not take a context first, then %s's arguments: %s", m.Name, m.Name, twin.Type)
		}
	}
}

// The generated methods percent-encode their path parameters: a key or number with a slash or a
// space stays one segment.
func TestTheGeneratedMethodsEncodeTheirPathParameters(t *testing.T) {
	var paths []string
	fake := newFakeControl(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodDelete && strings.Contains(r.URL.Path, "/keys/") {
			paths = append(paths, r.URL.EscapedPath())
			w.WriteHeader(204)
			return true
		}
		return false
	})
	srv, err := Connect(context.Background(), fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := srv.NewSession(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeKey("a/b c?d"); err != nil {
		t.Fatal(err)
	}
	if want := "/__sandbox/sessions/" + fakeSessionID + "/keys/a%2Fb%20c%3Fd"; len(paths) != 1 || paths[0] != want {
		t.Errorf("paths %v, want [%s]", paths, want)
	}
}
