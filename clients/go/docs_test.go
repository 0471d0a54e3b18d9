package svcsandbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The README's first test, its webhook receiver and docs/go.md's back-off recipe pass as written: each is extracted
// into a module of its own that requires this one with a replace, as a user's module does, and
// run with go test.
func TestTheDocumentedTestsPassAsWritten(t *testing.T) {
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	module := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/documented\n\ngo 1.19\n\n" +
			"require github.com/svc-sandbox/svc-sandbox/clients/go v0.0.0\n\n" +
			"replace github.com/svc-sandbox/svc-sandbox/clients/go => " + here + "\n",
		"readme/readme_test.go":   goBlock(t, "README.md", ""),
		"webhook/webhook_test.go": goBlock(t, "README.md", "## Checking webhooks"),
		"backoff/backoff_test.go": goBlock(t, filepath.Join("..", "..", "docs", "go.md"), "## Testing back-off"),
	}
	for name, text := range files {
		path := filepath.Join(module, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	cmd := exec.CommandContext(ctx, goTool, "test", "-count=1", "-v", "./...")
	cmd.Dir = module
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test of the documented tests: %v\n%s", err, output)
	}
	for _, name := range []string{"TestACallIsAnsweredAndCompletes", "TestWebhooksArriveSignedAndVerify", "TestAnOutageIsRetriedAfterItsRetryAfter", "TestABurstOverTheRateLimitBacksOffOnTheVirtualClock"} {
		if !strings.Contains(string(output), "--- PASS: "+name) {
			t.Errorf("%s did not pass:\n%s", name, output)
		}
	}
}

// goBlock is the first ```go block of file after the line heading ("": from the start).
func goBlock(t *testing.T, file, heading string) string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	if heading != "" {
		at := strings.Index(text, "\n"+heading+"\n")
		if at < 0 {
			t.Fatalf("%s has no heading %q", file, heading)
		}
		text = text[at:]
	}
	start := strings.Index(text, "\n```go")
	if start < 0 {
		t.Fatalf("%s has no go block after %q", file, heading)
	}
	// Past the fence's line, with its mark (```go run: docs/contributing.md).
	text = text[start+len("\n```go"):]
	text = text[strings.Index(text, "\n")+1:]
	end := strings.Index(text, "\n```\n")
	if end < 0 {
		t.Fatalf("%s: the go block after %q never ends", file, heading)
	}
	return text[:end+1]
}
