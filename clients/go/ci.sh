#!/bin/sh
# CI for the Go helper: go vet and go test here (against a real server), then the example suite
# twice: with the helper starting its own server, and under `svc-sandbox exec`.
#
#   SVC_SANDBOX_BIN=/path/to/dist/server/cli.js clients/go/ci.sh   # a built checkout (needs node)
#   SVC_SANDBOX_BIN=/path/to/dist/bin/svc-sandbox clients/go/ci.sh # the single executable (no node)
#
# Offline: Go 1.19 or newer with the standard library only; GOPATH and GOCACHE live in a temporary
# directory removed at the end. Exits non-zero when anything fails.
set -eu

if [ -z "${SVC_SANDBOX_BIN:-}" ]; then
	echo "ci.sh: set SVC_SANDBOX_BIN to the svc-sandbox executable (dist/bin/svc-sandbox) or to dist/server/cli.js of a built checkout" >&2
	exit 2
fi
case "$SVC_SANDBOX_BIN" in
/*) ;;
*) SVC_SANDBOX_BIN="$PWD/$SVC_SANDBOX_BIN" ;;
esac
if [ ! -f "$SVC_SANDBOX_BIN" ] || [ ! -x "$SVC_SANDBOX_BIN" ]; then
	echo "ci.sh: SVC_SANDBOX_BIN=$SVC_SANDBOX_BIN is not an executable file (chmod +x it, or build it first: npm run build)" >&2
	exit 2
fi
export SVC_SANDBOX_BIN

here=$(cd "$(dirname "$0")" && pwd)
examples="$here/../../examples/go"
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
export GOPATH="$work/gopath" GOCACHE="$work/gocache" GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
# The helper starts its own server unless told otherwise: not one of an enclosing exec.
unset SVC_SANDBOX_URL SVC_API_BASE_URL SVC_API_KEY

step() {
	echo "ci.sh: $*"
	started=$(date +%s)
	"$@"
	echo "ci.sh: ok ($(($(date +%s) - started)) s): $*"
}

formatted() {
	unformatted=$(gofmt -l .)
	if [ -n "$unformatted" ]; then
		echo "ci.sh: not gofmt'd (gofmt -w them): $unformatted" >&2
		return 1
	fi
}

go version
cd "$here"
step formatted
step go vet ./...
step go test -count=1 ./...

cd "$examples"
step formatted
step go vet ./...
step go test -count=1 ./...
step "$SVC_SANDBOX_BIN" exec -- go test -count=1 ./...
