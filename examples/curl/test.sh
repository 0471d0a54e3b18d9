#!/bin/sh
# Testing against svc-sandbox from the shell: curl, sed, openssl and a few lines of Node for
# the webhook receiver (Node is there wherever svc-sandbox runs). Prints TAP; exits 1 when a
# check fails.
#
#   npx svc-sandbox exec -- sh examples/curl/test.sh
#
# `exec` sets SVC_API_BASE_URL (point your client at it) and SVC_SANDBOX_URL (the control API).
set -eu

API=${SVC_API_BASE_URL:-http://127.0.0.1:12111}
SANDBOX=${SVC_SANDBOX_URL:-$API/__sandbox}
SEED=42 # same seed + same requests = same ids, so a failure reproduces
WORK=$(mktemp -d)
RECEIVER_PID=
trap 'stop_receiver; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

tests=0
failed=0

# --- HTTP -----------------------------------------------------------------------------------

# request METHOD URL BODY [curl options...]: the answer's body goes to $WORK/body, its status
# to $STATUS, its headers to $WORK/headers. A BODY ('' for none) is sent with
# Content-Type: application/json. The server is on loopback: --noproxy '*' ignores an
# HTTP_PROXY in the environment.
request() {
  method=$1 url=$2 body=$3
  shift 3
  if [ -n "$body" ]; then
    STATUS=$(curl -sS --noproxy '*' -X "$method" -o "$WORK/body" -D "$WORK/headers" -w '%{http_code}' \
      -H 'Accept: application/json' -H 'Content-Type: application/json' --data-binary "$body" "$@" "$url")
  else
    STATUS=$(curl -sS --noproxy '*' -X "$method" -o "$WORK/body" -D "$WORK/headers" -w '%{http_code}' \
      -H 'Accept: application/json' "$@" "$url")
  fi
}

# api METHOD PATH [BODY]: the Voice and Messaging API with the session's key (what your SDK does).
api() {
  request "$1" "$API$2" "${3-}" -H "Authorization: Bearer $KEY"
}

# control METHOD PATH [BODY]: the control API of the session, below /__sandbox/sessions/{id}.
control() {
  request "$1" "$SANDBOX/sessions/$SESSION$2" "${3-}"
}

# --- JSON without jq ------------------------------------------------------------------------

# json_values KEY: every value of KEY in the JSON of the last answer (compact, or pretty-printed
# as webhook bodies are), one a line, in document order (strings, numbers, booleans, null).
# Enough for ids, statuses and types, which hold no commas, braces or quotes.
json_values() {
  tr ',{}[]' '\n\n\n\n\n' < "$WORK/body" | sed -e 's/^[[:space:]]*//' -e 's/":[[:space:]]*/":/' -e 's/[[:space:]]*$//' |
    sed -n "s/^\"$1\":\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p"
}
json_value() { json_values "$1" | head -n 1; }
json_count() { json_values "$1" | grep -c "^$2\$" || true; }

# --- Checks ---------------------------------------------------------------------------------

expect_eq() { # WHAT ACTUAL EXPECTED
  if [ "$2" != "$3" ]; then
    echo "#   $1: expected '$3', got '$2'"
    test_failed=1
  fi
}

run_test() { # NAME: runs test_NAME in a session of its own, deleted afterwards
  tests=$((tests + 1))
  test_failed=0
  new_session
  "test_$1"
  control DELETE ""
  expect_eq 'DELETE the session' "$STATUS" 204
  stop_receiver
  if [ "$test_failed" = 0 ]; then echo "ok $tests - $1"; else echo "not ok $tests - $1"; failed=$((failed + 1)); fi
}

# new_session: POST /__sandbox/sessions {seed}; its key routes to it on the same /v1 base URL.
new_session() {
  request POST "$SANDBOX/sessions" "{\"seed\": $SEED}"
  [ "$STATUS" = 201 ] || { echo "Bail out! POST $SANDBOX/sessions answered $STATUS: $(cat "$WORK/body")"; exit 1; }
  SESSION=$(json_value id)
  KEY=$(json_value apiKey)
}

# --- Webhooks -------------------------------------------------------------------------------

# verify_webhook BODY_FILE SIGNATURE SECRET: X-Service-Signature is the lowercase hex
# HMAC-SHA256 of the raw body, keyed with the whole whsec_… secret. Verify the exact bytes
# received, before parsing them. (A shell comparison is not constant-time: fine in a test;
# a production receiver uses its language's constant-time compare.)
verify_webhook() {
  expected=$(openssl dgst -sha256 -hmac "$3" -r < "$1" | cut -d ' ' -f 1)
  [ -n "$2" ] && [ "$expected" = "$2" ]
}

# start_receiver: a webhook receiver on 127.0.0.1, a free port, in the background. Request N
# is saved as $HOOKS/N.body (the raw bytes) and $HOOKS/N.headers (lowercase names); it answers
# with the status in $HOOKS/status, which a test can change at any time.
start_receiver() {
  HOOKS=$WORK/hooks.$tests
  mkdir "$HOOKS"
  echo 200 > "$HOOKS/status"
  echo 0 > "$HOOKS/count"
  mkfifo "$HOOKS/ready"
  node -e '
    const { createServer } = require("node:http");
    const { readFileSync, writeFileSync } = require("node:fs");
    const dir = process.argv[1];
    let count = 0;
    createServer((req, res) => {
      const chunks = [];
      req.on("data", (chunk) => chunks.push(chunk));
      req.on("end", () => {
        count += 1;
        writeFileSync(`${dir}/${count}.body`, Buffer.concat(chunks));
        writeFileSync(`${dir}/${count}.headers`, Object.entries(req.headers).map(([k, v]) => `${k}: ${v}\n`).join(""));
        writeFileSync(`${dir}/count`, `${count}\n`);
        res.writeHead(Number(readFileSync(`${dir}/status`, "utf8"))).end();
      });
    }).listen(0, "127.0.0.1", function () {
      console.log(`http://127.0.0.1:${this.address().port}/hooks`);
    });
  ' "$HOOKS" > "$HOOKS/ready" &
  RECEIVER_PID=$!
  read -r RECEIVER_URL < "$HOOKS/ready"
}

stop_receiver() {
  if [ -n "$RECEIVER_PID" ]; then
    kill "$RECEIVER_PID" 2>/dev/null || true
    wait "$RECEIVER_PID" 2>/dev/null || true
    RECEIVER_PID=
  fi
}

received() { cat "$HOOKS/count"; }
header() { sed -n "s/^$2: //p" "$HOOKS/$1.headers"; } # header N NAME

# subscribe EVENTS_JSON: subscribes the receiver; sets $SECRET.
subscribe() {
  api POST /v1/webhooks "{\"url\": \"$RECEIVER_URL\", \"events\": $1}"
  expect_eq 'POST /v1/webhooks' "$STATUS" 201
  SECRET=$(json_value secret)
}

# --- The tests ------------------------------------------------------------------------------

# A call's lifecycle on the session's virtual clock: no sleeps, time moves when the test says so.
test_a_call_rings_is_answered_and_completes() {
  api POST /v1/calls '{"to": "+14155550123", "from": "+14155550100"}'
  expect_eq 'POST /v1/calls' "$STATUS" 201
  call=$(json_value id)
  expect_eq 'status' "$(json_value status)" ringing

  # Any ordinary number rings 5 s, is answered, and talks 60 s. advance answers once
  # everything due has settled, with the events emitted during it.
  control POST /advance '{"duration": "65s"}'
  expect_eq 'advance' "$STATUS" 200
  expect_eq 'now' "$(json_value now)" 2026-01-01T00:01:05.000Z
  expect_eq 'events' "$(json_values type | tr '\n' ' ')" 'call.answered call.completed '

  api GET "/v1/calls/$call"
  expect_eq 'GET /v1/calls/{id}' "$STATUS" 200
  expect_eq 'status, disposition, duration' "$(json_value status) $(json_value disposition) $(json_value duration)" 'completed answered 60'
}

test_a_bad_body_is_400_naming_the_field() {
  api POST /v1/calls '{"to": "4155550123", "from": "+14155550100"}'
  expect_eq 'status' "$STATUS" 400
  expect_eq 'code' "$(json_value code)" invalid_parameter
  expect_eq 'param' "$(json_value param)" to
  expect_eq 'X-Request-Id' "$(grep -ci '^x-request-id: req_' "$WORK/headers")" 1
}

test_events_arrive_signed_and_the_signature_verifies() {
  start_receiver
  subscribe '["call.started", "call.answered", "call.completed"]'
  api POST /v1/calls '{"to": "+14155550123", "from": "+14155550100"}'
  call=$(json_value id)
  control POST /advance '{"duration": "65s"}'

  expect_eq 'webhooks received' "$(received)" 3
  types=
  for n in 1 2 3; do
    # Verify the exact raw bytes first, then read them.
    verify_webhook "$HOOKS/$n.body" "$(header $n x-service-signature)" "$SECRET" || expect_eq "webhook $n verifies" no yes
    cp "$HOOKS/$n.body" "$WORK/body"
    expect_eq "webhook $n call" "$(json_value id | head -n 1)" "$(header $n x-service-event-id)"
    expect_eq "webhook $n data" "$(json_values id | sed -n 2p)" "$call"
    expect_eq "webhook $n attempt" "$(header $n x-service-delivery-attempt)" 1
    types="$types$(json_value type) "
  done
  expect_eq 'event types' "$types" 'call.started call.answered call.completed '

  signature=$(header 1 x-service-signature)
  expect_eq 'lowercase hex' "$(printf %s "$signature" | sed -n '/^[0-9a-f]\{64\}$/p')" "$signature"
  printf ' ' | cat "$HOOKS/1.body" - > "$WORK/tampered"
  if verify_webhook "$WORK/tampered" "$signature" "$SECRET"; then expect_eq 'a tampered body' verifies 'does not verify'; fi
  if verify_webhook "$HOOKS/1.body" "$signature" whsec_not_the_secret; then expect_eq 'a wrong secret' verifies 'does not verify'; fi
}

test_a_failing_receiver_is_dead_lettered_then_replayed() {
  start_receiver
  echo 500 > "$HOOKS/status"
  subscribe '["call.completed"]'
  api POST /v1/calls '{"to": "+14155550123", "from": "+14155550100"}'

  # 30 s, 1 m, 2 m, ... doubling, within 24 h of the first attempt: a day in a fraction of a second.
  control POST /advance '{"duration": "25h"}'
  control GET /dead-letters
  expect_eq 'dead letters' "$(json_count state dead)" 1
  dead=$(json_value id)
  event=$(json_value eventId)
  expect_eq 'failed attempts' "$(json_count ok false)" 13
  expect_eq 'attempts answered 500' "$(json_count status 500)" 13
  expect_eq 'webhooks received' "$(received)" 13
  expect_eq 'attempt 13 numbered' "$(header 13 x-service-delivery-attempt)" 13

  # The receiver is fixed: replay the dead letter from the control API.
  echo 200 > "$HOOKS/status"
  control POST "/dead-letters/$dead/replay"
  expect_eq 'replay' "$STATUS" 200
  expect_eq 'replayed ok' "$(json_value ok) $(json_value status)" 'true 200'
  expect_eq 'webhooks received' "$(received)" 14
  expect_eq 'the same event' "$(header 14 x-service-event-id)" "$event"
  cmp -s "$HOOKS/1.body" "$HOOKS/14.body" || expect_eq 'the same bytes' differ same
  control GET /dead-letters
  expect_eq 'dead letters after the replay' "$(cat "$WORK/body")" '{"data":[],"next_cursor":null,"has_more":false}'
}

echo 'TAP version 13'
for name in a_call_rings_is_answered_and_completes a_bad_body_is_400_naming_the_field \
  events_arrive_signed_and_the_signature_verifies a_failing_receiver_is_dead_lettered_then_replayed; do
  run_test "$name"
done
echo "1..$tests"
echo "# pass $((tests - failed))"
echo "# fail $failed"
[ "$failed" = 0 ]
