#!/bin/sh
# Runs a command on a PATH with every program of /usr/local/bin, /usr/bin and /bin except Node's
# (node, npm, npx, corepack), and checks first that none of them is left: how CI proves the
# language helpers work against the single executable on a machine without Node.
#
#   scripts/without-node.sh clients/python/ci.sh
set -eu
bare=$(mktemp -d)
trap 'rm -rf "$bare"' EXIT INT TERM
for dir in /bin /usr/bin /usr/local/bin; do
  [ -d "$dir" ] || continue
  for program in "$dir"/*; do
    name=${program##*/}
    case $name in node | nodejs | npm | npx | corepack) continue ;; esac
    [ -e "$bare/$name" ] || ln -s "$program" "$bare/$name"
  done
done
PATH=$bare
export PATH
for tool in node nodejs npm npx; do
  if command -v "$tool" >/dev/null 2>&1; then
    echo "without-node.sh: $tool is still on PATH ($(command -v "$tool"))" >&2
    exit 2
  fi
done
"$@"
