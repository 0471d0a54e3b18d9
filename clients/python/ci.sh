#!/bin/sh
# CI for the Python helper: installs it into a fresh virtual environment exactly as its README
# says, runs its own tests, then the example suite examples/python through the installed helper,
# once with the helper starting its own server and once under `svc-sandbox exec`.
#
#   SVC_SANDBOX_BIN=dist/bin/svc-sandbox sh clients/python/ci.sh     # the single executable: no Node needed
#   SVC_SANDBOX_BIN=dist/server/cli.js sh clients/python/ci.sh       # a built checkout: node on PATH
#
# Needs Debian's python3 with python3-venv, python3-pytest and python3-pytest-xdist (or
# SVC_SANDBOX_PYTHON naming another Python that has pytest and pytest-xdist); nothing from
# the network, and no node, npm or npx unless SVC_SANDBOX_BIN is a script that needs node.
set -eu

if [ -z "${SVC_SANDBOX_BIN:-}" ]; then
  echo "ci.sh: set SVC_SANDBOX_BIN to the svc-sandbox executable (dist/bin/svc-sandbox) or a built checkout's dist/server/cli.js" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case $SVC_SANDBOX_BIN in /*) ;; *) SVC_SANDBOX_BIN=$PWD/$SVC_SANDBOX_BIN ;; esac
export SVC_SANDBOX_BIN
unset SVC_SANDBOX_URL SVC_API_BASE_URL SVC_API_KEY || true
python=${SVC_SANDBOX_PYTHON:-/usr/bin/python3}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
venv=$work/venv

step() { printf '\n== %s\n' "$*"; }

step "install: $python -m venv --system-site-packages V && V/bin/pip install --no-build-isolation --no-index ./clients/python"
"$python" -m venv --system-site-packages "$venv"
(cd "$root" && "$venv/bin/pip" install --quiet --no-build-isolation --no-index ./clients/python)
# From outside the source tree, so that the installed package is the one imported.
(cd "$work" && "$venv/bin/python" -c 'import svc_sandbox, sys; print("svc_sandbox", svc_sandbox.__version__, "from", svc_sandbox.__file__)')

pytest() { "$venv/bin/python" -m pytest -p no:cacheprovider "$@"; }

# Each pytest step runs with a mark of its own in its environment, which every process it starts
# inherits (xdist workers, servers, the runs the orphan tests start and their servers), and must
# leave none of them running, pass or fail: a test that leaves a process behind fails CI here,
# naming it, instead of passing while the leftover prints its traceback after CI ended. (/proc: Linux.)
steps=0
checked() {  # checked DIR COMMAND...: COMMAND in DIR, marked; then no marked process may be left
  steps=$((steps + 1))
  mark=svc-sandbox-ci-$$-$steps
  status=0
  (cd "$1" && shift && SVC_SANDBOX_CI_STEP=$mark && export SVC_SANDBOX_CI_STEP && "$@") || status=$?
  waited=0
  while [ -r /proc/self/environ ] && left=$(left_by "$mark") && [ -n "$left" ]; do
    if [ "$waited" -ge 100 ]; then  # 10 s: how long a server may take to exit once its owner is gone
      printf 'ci.sh: the step left these processes running (now killed):\n%s\n' "$left" >&2
      printf '%s\n' "$left" | while read -r pid _; do kill -9 "$pid" 2>/dev/null || true; done
      exit 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  return "$status"
}
left_by() {  # the processes running with mark $1 in their environment, one a line: pid and command line
  grep -lzxF "SVC_SANDBOX_CI_STEP=$1" /proc/[0-9]*/environ 2>/dev/null | while IFS=/ read -r _ _ pid _; do
    line=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") && [ -n "$line" ] && printf '  %s %s\n' "$pid" "$line"
  done
  return 0
}

step "the helper's tests, two workers"
checked "$work" pytest -p xdist -n 2 -q "$here/tests" --ignore "$here/tests/test_orphans.py"

step "the helper's orphan tests, one at a time (each runs pytest and ends it: pass, fail, signals, a killed worker)"
checked "$work" pytest -q "$here/tests/test_orphans.py"

step "examples/python, the helper starting its own server (one per xdist worker)"
checked "$root" pytest -p xdist -n 2 -q examples/python

step "examples/python under svc-sandbox exec"
if [ -x "$SVC_SANDBOX_BIN" ]; then exec_bin=$SVC_SANDBOX_BIN; else exec_bin="node $SVC_SANDBOX_BIN"; fi
# shellcheck disable=SC2086 # exec_bin is one word, or node and the script
checked "$root" $exec_bin exec -- "$venv/bin/python" -m pytest -p no:cacheprovider -q examples/python
