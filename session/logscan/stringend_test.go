package logscan_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/graft-project/graft/session/logscan"
)

// stringBodies are string bodies (after the opening quote, through the
// closing one) of the shapes a log holds: a tool output of log lines, with
// an escape every ~80 bytes (the same line again, and lines of random
// lengths), plain ASCII, and text with non-ASCII runes.
func stringBodies() map[string][]byte {
	var out bytes.Buffer
	for out.Len() < 4<<20 {
		out.WriteString(`2025-11-15T21:16:35.025Z ERROR api: GET /v1/sessions/98101: context deadline exceeded after 3221ms\n`)
	}
	out.WriteByte('"')
	// Log lines of random lengths, with tabs and quotes among the newlines
	// as in the large preset's outputs (56% \n, 33% \t, 10% \"): escapes
	// where a branch cannot guess them, nor guess which.
	var varied bytes.Buffer
	r := rand.New(rand.NewPCG(3, 4))
	for varied.Len() < 4<<20 {
		varied.WriteString("2025-11-15T21:16:35.025Z INFO  journal: ")
		for range r.IntN(3) {
			varied.WriteString([]string{`\t`, `\t`, `\"`}[r.IntN(3)])
			varied.WriteString(strings.Repeat("x", r.IntN(40)))
		}
		varied.WriteString(strings.Repeat("x", r.IntN(120)))
		varied.WriteString(`\n`)
	}
	varied.WriteByte('"')
	plain := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", 1<<17) + `"`
	uni := strings.Repeat(`Привет, мир: \"ok\" \u00e9 \ud83d\ude00 done. `, 1<<16) + `"`
	return map[string][]byte{"log": out.Bytes(), "logvaried": varied.Bytes(), "plain": []byte(plain), "unicode": []byte(uni)}
}

func BenchmarkStringEnd(b *testing.B) {
	for name, body := range stringBodies() {
		run := func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if end, _, ok := logscan.StringEnd(body, 0); !ok || end != len(body)-1 {
					b.Fatalf("stringEnd = %d, %v; want %d", end, ok, len(body)-1)
				}
			}
		}
		b.Run(name, run)
		b.Run(name+"/portable", func(b *testing.B) { logscan.WithPortable(func() { run(b) }) })
	}
}

// scanStringRef is the contract of scanStringAVX2, byte by byte: walking
// b from 0 and stepping over the two-byte escapes \" \\ \/ \b \f \n \r \t,
// the first byte left to the caller (a quote, a control byte, a backslash
// starting any other escape or ending b) if it lies in the whole 64-byte
// blocks of b; else the end of those blocks, or the byte before it when an
// escape starts there. escaped: b[:n] holds a backslash, or b[n] is one
// inside the blocks.
func scanStringRef(b []byte) (int, bool) {
	blocks := len(b) / 64 * 64
	n := blocks
	for i := 0; i < len(b); {
		c := b[i]
		hard := c == '"' || c < 0x20
		if c == '\\' {
			if i+1 < len(b) && strings.ContainsRune(`"\\/bfnrt`, rune(b[i+1])) {
				if i == blocks-1 {
					n = i
					break
				}
				i += 2
				continue
			}
			hard = true
		}
		if hard {
			if i < blocks {
				n = i
			}
			break
		}
		i++
	}
	return n, bytes.IndexByte(b[:n], '\\') >= 0 || n < blocks && b[n] == '\\'
}

// TestScanStringAVX2 puts each kind of stop (a quote, control bytes, a
// backslash before each escape letter and before others) at every
// position of inputs of every length up to 136, alone and followed by
// more, and compares scanStringAVX2 with scanStringRef; then random
// inputs dense with escapes.
func TestScanStringAVX2(t *testing.T) {
	if !logscan.HaveStopsAVX2() {
		t.Skip("no AVX2 on this machine (or not amd64): stringEnd uses its portable loop, which every other decoder test covers")
	}
	check := func(b []byte) {
		t.Helper()
		wn, we := scanStringRef(b)
		if gn, ge := logscan.ScanStringAVX2(b); gn != wn || ge != we {
			t.Fatalf("scanStringAVX2(%q) = %d %v, want %d %v", b, gn, ge, wn, we)
		}
	}
	fillers := []byte{'a', ' ', 0x7f, 0x80, 0xff, '!', '#', '[', ']', 0x20}
	// Runs of backslashes of both parities, so that a run crosses a block
	// edge (at 64 and 128) at each of its bytes.
	stops := []string{`"`, "\x00", "\x1f", "\n", `\n`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\t`, `\u`, `\x`, `\`, `\\\`, `\\\\"`, `\\\"`, `\\\\\\x`}
	for n := 0; n <= 136; n++ {
		for _, f := range fillers {
			b := bytes.Repeat([]byte{f}, n)
			check(b)
			for _, s := range stops {
				for at := 0; at+len(s) <= n; at++ {
					c := bytes.Clone(b)
					copy(c[at:], s)
					check(c)
					if at+len(s) < n {
						c[n-1] = '"' // a later stop must not hide an earlier one
						check(c)
					}
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 50000 {
		b := make([]byte, r.IntN(300))
		for i := range b {
			b[i] = byte(0x20 + r.IntN(0xe0))
			switch r.IntN(40) {
			case 0:
				b[i] = '\\'
			case 1:
				b[i] = "nt\"/ux0\\"[r.IntN(8)]
			}
		}
		check(b)
	}
}

// TestStringEndPortableAgrees: stringEnd with and without the AVX2 scan
// gives the same answer on the benchmark bodies, on each of them cut short
// and on bodies with a bad byte at every position near a block edge.
func TestStringEndPortableAgrees(t *testing.T) {
	bodies := stringBodies()
	var cases [][]byte
	for _, b := range bodies {
		cases = append(cases, b, b[:len(b)-1], b[:1000], b[:33], b[:31])
	}
	base := []byte(strings.Repeat(`ab\ncd\u00e9 `, 20) + `"`)
	for at := 0; at < len(base)-1; at++ {
		for _, bad := range []byte{0x01, '\n', '\\', '"'} {
			c := bytes.Clone(base)
			c[at] = bad
			cases = append(cases, c)
		}
	}
	for _, c := range cases {
		end, esc, ok := logscan.StringEnd(c, 0)
		var pend int
		var pesc, pok bool
		logscan.WithPortable(func() { pend, pesc, pok = logscan.StringEnd(c, 0) })
		if end != pend || esc != pesc || ok != pok {
			t.Fatalf("stringEnd(%.60q…) = %d %v %v with AVX2, %d %v %v without", c, end, esc, ok, pend, pesc, pok)
		}
	}
}
