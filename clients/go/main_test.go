package svcsandbox

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// fakeServerEnv makes this test binary act as a broken svc-sandbox when a test starts it as
// SVC_SANDBOX_BIN: "silent" prints nothing and hangs, "wrongline" prints another first line,
// "crash" writes to stderr and exits 3. SVCSANDBOX_FAKE_PIDFILE receives its pid.
const fakeServerEnv = "SVCSANDBOX_FAKE_SERVER"

// orphanMode, in the environment of a re-executed test binary, makes it the child of
// TestNoServerOutlivesItsTestBinary: it starts the shared server, reports its pid and URL, and
// ends as the mode says.
const orphanMode = "SVCSANDBOX_ORPHAN_MODE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeServerEnv); mode != "" {
		os.Exit(fakeServer(mode))
	}
	code := m.Run()
	if os.Getenv(orphanMode) != "" {
		os.Exit(code) // the child of the orphan test ends without stopping its server
	}
	if err := Shutdown(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

func fakeServer(mode string) int {
	if file := os.Getenv("SVCSANDBOX_FAKE_PIDFILE"); file != "" {
		_ = os.WriteFile(file, []byte(fmt.Sprint(os.Getpid())), 0o600)
	}
	switch mode {
	case "silent":
		time.Sleep(time.Hour)
	case "wrongline":
		fmt.Println("Welcome to a server that is not svc-sandbox")
		time.Sleep(time.Hour)
	case "crash":
		fmt.Fprintln(os.Stderr, "boom: the configuration is broken")
		return 3
	}
	return 0
}
