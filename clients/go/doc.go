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
// `svc-sandbox` on PATH, else `npx --no-install svc-sandbox`. The server is given a pipe as its
// standard input that only the test binary holds, with --exit-on-stdin-close, so it ends with the
// test binary however that ends (a panic, os.Exit, SIGKILL). Shutdown stops it earlier (from
// TestMain); StartServer and Connect give a Server of your own.
//
// # Timeouts
//
// Nothing waits unbounded. A control call made without a context is bounded by the session's
// Timeout (DefaultTimeout, 60 s, unless Options.Timeout says otherwise); the ...Context variants
// follow their context, and a context without a deadline gets the same bound. Starting a server
// waits at most StartTimeout (30 s) for its ready line, connecting at most ConnectTimeout (10 s).
package svcsandbox
