#!/usr/bin/env bash
# make demo: the main job on the embedded default, in a throw-away GRAFT_HOME.
# Generates the seed-shaped session, prepares a review, commits it, shows the
# state and recalls one Workspace Files seq from the retired source.
set -euo pipefail
bin=${1:?usage: demo.sh path/to/graft}
: "${GRAFT_HOME:?GRAFT_HOME must be set}"
export GRAFT_HOME
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

step graft gen demo --preset seed
"$bin" gen demo --preset seed

step graft status
"$bin" status

step graft prepare demo
"$bin" prepare demo
review=$("$bin" prepare demo --json)
id=$(printf '%s' "$review" | sed -n 's/^  "preparedId": "\(.*\)",$/\1/p')
hash=$(printf '%s' "$review" | sed -n 's/^  "tapeHash": "\(.*\)",$/\1/p')

step graft commit "$id" --hash "$hash"
"$bin" commit "$id" --hash "$hash"

step graft status
"$bin" status

target=$("$bin" status --json | sed -n 's/^      "target": "\(.*\)",$/\1/p' | head -1)
step graft show "$target" --to 4
"$bin" show "$target" --to 4

seq=$("$bin" show --prepared "$id" | sed -n 's/.*seq=\([0-9][0-9]*\).*/\1/p' | head -1)
if [ -n "$seq" ]; then
  step graft recall demo "$seq"
  "$bin" recall demo "$seq"
fi

step graft recover
"$bin" recover
printf '\ndemo home: %s (throw-away; make clean removes it)\n' "$GRAFT_HOME"
