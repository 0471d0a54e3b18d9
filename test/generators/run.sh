#!/usr/bin/env bash
# Three client generators read the server's document, GET /__sandbox/openapi.json:
# @hey-api/openapi-ts, orval 8 and openapi-typescript (which test/api/typed-client.test.ts also
# runs on sandbox.openapi(); docs/openapi.md, "Generating a client"). Each generated client
#   1. compiles under `tsc --strict` together with a type test (hey-api.types.ts, orval.types.ts,
#      openapi-typescript.types.ts) whose @ts-expect-error lines prove that a create-call body
#      missing `to`, with an unknown field or with a wrong type does not compile, and that a
#      snapshot's tuples are read as tuples;
#   2. (openapi-ts and orval) runs a flow (clients.flow.ts: create calls, get one, list them a
#      page at a time with the cursor, and the control API's session and clock) against the
#      standalone server.
# The clients are generated into test/generators/generated/ (ignored; never committed). The
# generators are installed outside the project, so package.json stays as it is:
# node_modules/.cache/svc-sandbox-generators (GENERATORS_DIR to put them elsewhere). openapi-ts is
# pinned to the last version whose engines allow Node 20; orval 8 needs Node 22.18, so it runs on
# the registry's node@24 installed beside it (as .ci/run does); openapi-typescript is the
# project's own. Run by .ci/run; needs the npm registry on first run.
set -euo pipefail
cd "$(dirname "$0")/../.."
HEY_API=0.95.0 # 0.96 and later need Node 22
ORVAL=8.38.0   # needs Node 22.18: run on node@24 below
NODE24=24      # the major of the registry's node package orval runs on
tools=${GENERATORS_DIR:-node_modules/.cache/svc-sandbox-generators}
out=test/generators/generated

installed() { node -p "require('./$tools/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(installed @hey-api/openapi-ts)" != "$HEY_API" ] || [ "$(installed orval)" != "$ORVAL" ] ||
  [ "$(installed node | cut -d. -f1)" != "$NODE24" ]; then
  npm install --prefix "$tools" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "@hey-api/openapi-ts@$HEY_API" "orval@$ORVAL" "node@$NODE24" \
    "typescript@$(node -p "require('typescript/package.json').version")" >/dev/null
fi
node24="$tools/node_modules/.bin/node"

node scripts/ensure-built.mjs # builds dist/ only when it is stale
rm -rf "$out" && mkdir -p "$out"
node --input-type=module -e "
import { startServer } from './dist/index.js';
const server = await startServer({ port: 0 });
try {
  const res = await fetch(server.url + '/__sandbox/openapi.json');
  if (res.status !== 200) throw new Error('GET /__sandbox/openapi.json answered ' + res.status);
  process.stdout.write(await res.text());
} finally {
  await server.close();
}" >"$out/openapi.json"

ms() { date +%s%3N; }
t0=$(ms)
"$tools/node_modules/.bin/openapi-ts" --input "./$out/openapi.json" --output "$out/hey-api" --client @hey-api/client-fetch >/dev/null
t1=$(ms)
"$node24" "$tools/node_modules/.bin/orval" --config test/generators/orval.config.cjs >/dev/null
t2=$(ms)
npx openapi-typescript "./$out/openapi.json" -o "$out/openapi-typescript/openapi.d.ts" >/dev/null 2>&1
t3=$(ms)
echo "generated: @hey-api/openapi-ts $HEY_API in $((t1 - t0)) ms ($(cat "$out"/hey-api/*.ts "$out"/hey-api/*/*.ts | wc -l) lines)," \
  "orval $ORVAL (node $("$node24" --version)) in $((t2 - t1)) ms ($(cat "$out"/orval/*.ts | wc -l) lines)," \
  "openapi-typescript $(node -p "require('openapi-typescript/package.json').version") in $((t3 - t2)) ms ($(wc -l <"$out"/openapi-typescript/openapi.d.ts) lines)"

# The clients, the type tests and the flow, under tsc --strict; then the flow itself.
npx tsc -p test/generators/tsconfig.json
echo "tsc --strict: the three clients and their type tests compile"
npx vitest run --config test/generators/vitest.config.ts
