//go:build amd64 && !purego

package logscan

import "golang.org/x/sys/cpu"

// haveStopsAVX2 selects scanStringAVX2; the tests turn it off to run the
// portable loop on the same inputs (WithPortable, export_test.go).
var haveStopsAVX2 = cpu.X86.HasAVX2

// scanStringAVX2 reads the body of a JSON string 64 bytes a block and
// steps over the two-byte escapes (\" \\ \/ \b \f \n \r \t) it meets
// without a branch per escape: which bytes are escaped comes from the
// backslash mask with carry arithmetic, as in simdjson (a real log's
// escapes, one every 40-120 bytes, cost a mispredicted branch each in a
// scan that stops at them: 4.5 vs 6.9 GB/s here). It returns the index of
// the first byte it leaves to the caller: a quote, a byte below 0x20, or a
// backslash starting any other escape (\u, or a malformed one) if one lies
// in b's whole 64-byte blocks; else the end of those blocks, or the byte
// before it when an escape starts there. escaped: b[:n] holds a
// backslash, or b[n] is one inside the blocks (scanStringRef is the
// contract, byte by byte).
//
//go:noescape
func scanStringAVX2(b []byte) (n int, escaped bool)
