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

step graft commit "$id" --hash "$hash" --json
result=$("$bin" commit "$id" --hash "$hash" --json)
printf '%s\n' "$result"
target=$(printf '%s' "$result" | sed -n 's/^  "targetId": "\(.*\)",$/\1/p')
[ -n "$target" ] || { echo "demo: no targetId in the commit result" >&2; exit 1; }

step graft status
"$bin" status

step graft show "$target" --to 4
"$bin" show "$target" --to 4

# The first file of the tape's Workspace Files block cites a tool/result seq.
seq=$("$bin" show --prepared "$id" | awk '/\[Workspace Files\]/ {f=1; next} /^\[graft:tape/ {f=0} f && match($0, /seq=[0-9]+/) {print substr($0, RSTART+4, RLENGTH-4); exit}')
[ -n "$seq" ] || { echo "demo: no Workspace Files seq in the tape" >&2; exit 1; }
step graft recall demo "$seq"
"$bin" recall demo "$seq" | cut -c1-300

step graft find demo fsync --limit 3
"$bin" find demo fsync --limit 3 | cut -c1-300

step graft recover
"$bin" recover
printf '\ndemo home: %s (throw-away; make clean removes it)\n' "$GRAFT_HOME"
