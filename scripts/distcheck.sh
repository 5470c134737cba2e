#!/bin/sh
# Checks what make dist built: distcheck.sh DIR VERSION.
# Each dist/graft-<os>-<arch> must say (go version -m) that it was built for
# its GOOS/GOARCH, static (CGO_ENABLED=0), with -trimpath, and hold VERSION
# (the go command leaves -ldflags out of the build info of a -trimpath
# build, so the stamp is looked for in the binary's bytes); SHA256SUMS must
# match the files; the binary for this machine must run and print VERSION. Exit 1 naming the first thing that is not so.
set -eu
dir=$1 version=$2
fail() { echo "distcheck: $*" >&2; exit 1; }
n=0
for f in "$dir"/graft-*-*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	name=${f##*/graft-}
	os=${name%%-*} arch=${name#*-}
	info=$(go version -m "$f") || fail "go version -m $f failed"
	for want in "	build	GOOS=$os" "	build	GOARCH=$arch" "	build	CGO_ENABLED=0" "	build	-trimpath=true"; do
		case "$info" in
		*"$want"*) ;;
		*) fail "$f: go version -m has no \"$(echo "$want" | tr '\t' ' ')\":
$info" ;;
		esac
	done
	grep -q -a -F -e "$version" "$f" || fail "$f does not hold the version $version"
done
[ "$n" -eq 4 ] || fail "$dir holds $n binaries, want 4 (linux and darwin, amd64 and arm64)"
if command -v sha256sum >/dev/null; then
	(cd "$dir" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not match"
else
	(cd "$dir" && shasum -a 256 -c --quiet SHA256SUMS) || fail "SHA256SUMS does not match"
fi
here="$dir/graft-$(go env GOOS)-$(go env GOARCH)"
if [ -x "$here" ]; then
	out=$("$here" --version) || fail "$here --version failed"
	case "$out" in
	"graft $version "*) ;;
	*) fail "$here --version printed \"$out\", want graft $version …" ;;
	esac
	echo "distcheck: $here --version: $out"
fi
echo "distcheck: $n binaries for their platforms, static, -trimpath, $version stamped in; SHA256SUMS match"
