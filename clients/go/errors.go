package svcsandbox

import (
	"fmt"
	"strings"
)

// SandboxError is a control call answered with a 4xx or 5xx: the status, and the error envelope
// {"error": {"code", "message", "param"}} of the answer. Use errors.As to read it:
//
//	var se *svcsandbox.SandboxError
//	if errors.As(err, &se) && se.Code == "not_found" { ... }
type SandboxError struct {
	// Op is the method that made the call ("Advance", "NewSession").
	Op string
	// Session is the id of the session it was about; empty for server-wide calls.
	Session string
	// Method and Path are the request: "POST", "/__sandbox/sessions/ses_…/advance".
	Method, Path string
	// Status is the HTTP status of the answer.
	Status int
	// Code, Message and Param are the answer's error envelope; Param names the JSON field at
	// fault, when there is one.
	Code, Message, Param string
}

func (e *SandboxError) Error() string {
	var b strings.Builder
	b.WriteString("svcsandbox: ")
	b.WriteString(e.Op)
	if e.Session != "" {
		fmt.Fprintf(&b, " on session %s", e.Session)
	}
	fmt.Fprintf(&b, " (%s %s): %d", e.Method, e.Path, e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Param != "" {
		fmt.Fprintf(&b, " [param %s]", e.Param)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}
