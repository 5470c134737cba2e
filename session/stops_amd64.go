//go:build amd64 && !purego

package session

import "golang.org/x/sys/cpu"

// haveStopsAVX2 selects scanStringAVX2; the tests turn it off to run the
// portable loop on the same inputs.
var haveStopsAVX2 = cpu.X86.HasAVX2

// scanStringAVX2 reads the body of a JSON string 32 bytes at a time and
// steps over the two-byte escapes (\" \\ \/ \b \f \n \r \t) it meets.
// It returns the index of the first byte it leaves to the caller: a quote,
// a byte below 0x20, a backslash starting any other escape (\u, or a
// malformed one, or one cut by the end of b), or the start of the last
// part of b shorter than 32 bytes; and whether it stepped over an escape.
//
//go:noescape
func scanStringAVX2(b []byte) (n int, escaped bool)
