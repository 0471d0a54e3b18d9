#!/usr/bin/env bash
# kin-openapi (Debian's golang-github-getkin-kin-openapi-dev, 0.110: it reads OpenAPI 3.0) loads
# and validates the server's 3.0 rendering, GET /__sandbox/openapi-3.0.json (docs/server.md),
# examples included. Builds offline: GOPATH mode on Debian's Go sources, no module proxy.
# Needs the Debian packages golang-go and golang-github-getkin-kin-openapi-dev (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

npm run build --silent >/dev/null
node --input-type=module -e "
import { startServer } from './dist/index.js';
const server = await startServer({ port: 0 });
try {
  const res = await fetch(server.url + '/__sandbox/openapi-3.0.json');
  if (res.status !== 200) throw new Error('GET /__sandbox/openapi-3.0.json answered ' + res.status);
  process.stdout.write(await res.text());
} finally {
  await server.close();
}" >"$work/openapi-3.0.json"

(cd test/kin-openapi && GO111MODULE=off GOPATH=/usr/share/gocode GOPROXY=off GOFLAGS= GOCACHE="$work/go-cache" go build -o "$work/kin-openapi" .)
"$work/kin-openapi" "$work/openapi-3.0.json"
