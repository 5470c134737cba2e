#!/bin/sh
# The version make stamps into graft (version.stamped), from git: the
# nearest v* tag as git describe writes it (v1.2.3, v1.2.3-4-gabcdef012345),
# else v0.0.0-dev+<revision>; "-dirty" when tracked files differ from HEAD.
# Outside a git checkout: "(devel)". With "rev" or "modified" as its
# argument, it prints the revision or true/false instead.
set -u
rev=$(git rev-parse HEAD 2>/dev/null) || { [ "${1:-}" = modified ] && echo false || { [ "${1:-}" = rev ] || echo "(devel)"; }; exit 0; }
modified=false
git diff --quiet HEAD -- 2>/dev/null || modified=true
case "${1:-}" in
rev) echo "$rev"; exit 0 ;;
modified) echo "$modified"; exit 0 ;;
esac
dirty=
[ "$modified" = true ] && dirty=-dirty
if v=$(git describe --tags --match 'v[0-9]*' --abbrev=12 HEAD 2>/dev/null); then
	echo "$v$dirty"
else
	echo "v0.0.0-dev+$(echo "$rev" | cut -c1-12)$dirty"
fi
