// Package svcsandbox meets `go test` with svc-sandbox, the deterministic sandbox of the Voice and
// Messaging API: a session of its own per test (its own virtual clock, seed, ids, accounts and
// webhook queues), the whole control API as methods with errors as values, webhook signature
// checks, and a Sleep that advances the session's virtual clock instead of sleeping, so an SDK's
// back-off is tested exactly and at once.
//
//	func TestACallCompletes(t *testing.T) {
//		s := svcsandbox.NewSession(t, svcsandbox.Options{Seed: 42}) // deleted by t.Cleanup
//		// point your SDK at s.BaseURL with the key s.APIKey, place a call, then:
//		res, err := s.Advance("65s")
//		...
//	}
//
// # Finding the server
//
// Under `svc-sandbox exec -- go test ./...` (SVC_SANDBOX_URL is set) the helper connects to the
// server exec started. Otherwise it starts `svc-sandbox serve --port 0` once per test binary, the
// first time a test asks for a session: from the executable named by SVC_SANDBOX_BIN, else
// `svc-sandbox` on PATH, else node_modules/.bin/svc-sandbox of the working directory or a parent,
// else `npx --no-install svc-sandbox`. With none, the error names SVC_SANDBOX_BIN, SVC_SANDBOX_URL
// and `npm run build:binary`. The server is given a pipe as its
// standard input that only the test binary holds, with --exit-on-stdin-close, so it ends with the
// test binary however that ends (a panic, os.Exit, SIGKILL of the binary). A SIGKILL of the `go`
// command is another matter: the test binary runs on, with its server, until -test.timeout; CI
// kills the process group (docs/go.md). Shutdown stops the server earlier (from TestMain);
// StartServer and Connect give a Server of your own.
//
// # Contexts
//
// One rule. Every method of a Session that talks to the server comes in two forms, as
// database/sql's do: Name(...) — the names the contract promises, s.Advance("65s"),
// s.Trigger(...), s.Events() — and NameContext(ctx, ...), ctx first (AdvanceContext,
// TriggerContext, EventsContext, ...). Name runs on the session's own context: for NewSession, one
// canceled when the test ends (after the cleanups registered after NewSession, before the session
// is deleted), so a goroutine the test left sleeping stops; for Server.NewSession,
// context.Background(). Everything below the Session — StartServer, Connect, the Server's methods, and the generated
// SessionControl and ServerControl (Session.Control, Server.Control) — takes ctx first and has no
// ctx-free form: code there manages its own lifetimes.
//
// # Timeouts
//
// Nothing waits unbounded. A control call whose context has no deadline is bounded by the
// session's Timeout: Options.Timeout, else SVC_SANDBOX_TIMEOUT (seconds), else DefaultTimeout
// (60 s). The bound is for the whole call: connecting, the headers and the whole body. Starting a
// server waits at most StartTimeout (30 s) for its ready line, connecting at most ConnectTimeout
// (10 s).
//
// # What the helper trusts a server with
//
// SVC_SANDBOX_URL may name anything, so the helper follows no redirect (a 3xx is an error naming
// the server and its Location, and no request or body goes elsewhere), reads at most
// MaxAnswerBytes (64 MiB) of an answer, and walks at most MaxPages (10,000) pages of a listing;
// each refusal is an error naming the server's URL.
package svcsandbox
