#!/bin/sh
# The Ruby helper's CI: builds and installs the gem exactly as its README says (offline, into a
# temporary folder), runs its own Minitest suite and RSpec spec against the installed copy, then
# the example suite examples/ruby through it twice: with the gem starting its own server, and
# under `svc-sandbox exec`. Needs no node, npm or npx when SVC_SANDBOX_BIN is the single
# executable.
#
#   SVC_SANDBOX_BIN=$PWD/dist/server/cli.js clients/ruby/ci.sh   # a built checkout (node on PATH)
#   SVC_SANDBOX_BIN=$PWD/dist/bin/svc-sandbox clients/ruby/ci.sh # the single executable
#
# RSpec comes from Debian (apt-get install ruby-rspec); without it the spec is skipped with a
# loud line, and with CI=true the run fails.
set -eu

if [ -z "${SVC_SANDBOX_BIN:-}" ]; then
  echo "ci.sh: set SVC_SANDBOX_BIN to the svc-sandbox executable (dist/server/cli.js of a built checkout, or dist/bin/svc-sandbox)" >&2
  exit 2
fi
case "$SVC_SANDBOX_BIN" in /*) ;; *) SVC_SANDBOX_BIN="$PWD/$SVC_SANDBOX_BIN" ;; esac
if [ ! -f "$SVC_SANDBOX_BIN" ] || [ ! -x "$SVC_SANDBOX_BIN" ]; then
  echo "ci.sh: SVC_SANDBOX_BIN=$SVC_SANDBOX_BIN is not an executable file" >&2
  exit 2
fi
export SVC_SANDBOX_BIN
# The helper's own suite starts its own server; a server of an outer exec would hide that path.
unset SVC_SANDBOX_URL SVC_API_BASE_URL SVC_API_KEY

here=$(cd "$(dirname "$0")" && pwd)
examples="$here/../../examples/ruby"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
started=$(date +%s)
step() { echo "== $1 ($(($(date +%s) - started)) s)"; }

step "gem build and gem install --local, as the README says"
# gem build writes into the current folder: build from a copy, so the tree stays clean.
mkdir "$work/src"
cp -R "$here/lib" "$here/README.md" "$here/svc_sandbox.gemspec" "$work/src/"
(cd "$work/src" && gem build svc_sandbox.gemspec)
gem install --local --no-document --install-dir "$work/gems" "$work"/src/svc_sandbox-*.gem
# The installed gem first, then Ruby's own (minitest and rake are gems there too).
GEM_HOME="$work/gems"
GEM_PATH="$work/gems:$(gem env gempath)"
export GEM_HOME GEM_PATH

# Every run below must load the installed copy, never the source tree.
ruby -e 'require "svc_sandbox"
  loaded = $LOADED_FEATURES.grep(%r{/svc_sandbox\.rb\z}).first
  abort "svc_sandbox came from #{loaded}, not the installed gem" unless loaded.start_with?(ENV.fetch("GEM_HOME"))
  puts "svc_sandbox #{SvcSandbox::VERSION} from #{loaded}"'

step "the helper's Minitest suite, against the installed gem"
(cd "$here" && ruby -w -Itest -e 'Dir["test/*_test.rb"].sort.each { |file| require File.expand_path(file) }')

step "the helper's RSpec spec, against the installed gem"
if command -v rspec >/dev/null 2>&1; then
  (cd "$here" && rspec --no-color spec)
elif [ "${CI:-}" = "true" ]; then
  echo "ci.sh: rspec not found: install it (apt-get install -y ruby-rspec)" >&2
  exit 1
else
  echo "ci.sh: SKIPPED the RSpec spec: rspec not found (apt-get install -y ruby-rspec); CI requires it"
fi

step "examples/ruby through the installed gem, with the gem starting its own server"
(cd "$examples" && rake test)

step "examples/ruby under \"\$SVC_SANDBOX_BIN\" exec -- rake test"
(cd "$examples" && "$SVC_SANDBOX_BIN" exec -- sh -c 'ruby -e "require %(svc_sandbox); abort %(not connected to exec) unless SvcSandbox.server.pid.nil?" && rake test')

step "done"
