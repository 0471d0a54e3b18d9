#!/usr/bin/env bash
# Stoplight Prism's proxy mode in front of the standalone server validates a workload over every
# /v1 operation and the control API against GET /__sandbox/openapi.json: 0 request or response
# violations, and two canaries it must mark (workload.mjs says more; docs/server.md, "The OpenAPI
# document"). Prism is pinned to 5.14.2, the last release whose engines allow Node 20 (5.15 and
# later need Node 24), and installed outside the project so package.json stays as it is:
# node_modules/.cache/svc-sandbox-prism (PRISM_DIR to put it elsewhere). Run by .ci/run; needs
# the npm registry on first run.
set -euo pipefail
cd "$(dirname "$0")/../.."
PRISM=5.14.2
dir=${PRISM_DIR:-node_modules/.cache/svc-sandbox-prism}

if [ "$(node -p "require('./$dir/node_modules/@stoplight/prism-cli/package.json').version" 2>/dev/null || true)" != "$PRISM" ]; then
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "@stoplight/prism-cli@$PRISM" >/dev/null
fi
node scripts/ensure-built.mjs # builds dist/ only when it is stale
node test/prism/workload.mjs "$dir/node_modules/@stoplight/prism-cli/dist/index.js"
