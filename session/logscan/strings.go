package logscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The string scan: where a JSON string ends, whether it is well formed,
// and its escapes. Every string a line holds, a MiB tool output included,
// goes through scanString once.

// Word masks for scanning eight string bytes at a time.
const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// simpleEscape marks the characters that may follow '\\' alone.
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// stops has the high bit set in the first byte of w that is '"', '\\' or
// a control character (and maybe in later bytes, never in earlier ones):
// the bytes a string scan must look at.
func stops(w uint64) uint64 {
	q := w ^ (lows * '"')
	b := w ^ (lows * '\\')
	return (((q - lows) &^ q) | ((b - lows) &^ b) | ((w - lows*0x20) &^ w)) & highs
}

// stringEnd validates the body of a JSON string that starts at data[i]
// (just past its opening quote) and returns the index of its closing quote
// and whether it holds escapes; ok is false when the string is malformed,
// unterminated, or has an unpaired surrogate escape.
func stringEnd(data []byte, i int) (end int, escaped bool, ok bool) {
	end, escaped, st := scanString(data, i)
	return end, escaped, st == strDone
}

// What scanString found.
type strStatus uint8

const (
	strDone  strStatus = iota // the closing quote
	strBad                    // a control byte, a malformed escape or surrogate
	strShort                  // data ends first (or cuts an escape short)
)

// scanString is stringEnd telling a string that data cuts short (then end
// is where to go on once data holds more: len(data), or the backslash of
// an escape that may be cut) from a malformed one. It jumps from one
// quote, backslash or control character to the next: 64 bytes at a time
// with AVX2 (scanStringAVX2, which also steps over two-byte escapes), else
// eight at a time.
func scanString(data []byte, i int) (end int, escaped bool, st strStatus) {
	for {
		if haveStopsAVX2 {
			n, esc := scanStringAVX2(data[i:])
			i += n
			escaped = escaped || esc
		}
		for ; i+8 <= len(data); i += 8 {
			if t := stops(binary.LittleEndian.Uint64(data[i:])); t != 0 {
				i += bits.TrailingZeros64(t) >> 3
				goto stop
			}
		}
		for ; i < len(data); i++ {
			if c := data[i]; c == '"' || c == '\\' || c < 0x20 {
				break
			}
		}
		if i >= len(data) {
			return len(data), escaped, strShort
		}
	stop:
		switch c := data[i]; {
		case c == '"':
			return i, escaped, strDone
		case c < 0x20:
			return 0, false, strBad
		}
		n := escapeLen(data, i)
		if n == 0 {
			if len(data)-i < maxEscapeLen {
				return i, escaped, strShort
			}
			return 0, false, strBad
		}
		escaped = true
		i += n
	}
}

// maxEscapeLen is the longest escape: a surrogate pair, \uXXXX\uYYYY.
const maxEscapeLen = 12

// escapeLen is how many bytes the escape at data[i] ('\\') spans, 0 when it
// is malformed or an unpaired surrogate.
func escapeLen(data []byte, i int) int {
	if i+1 >= len(data) {
		return 0
	}
	if simpleEscape[data[i+1]] {
		return 2
	}
	_, n := unicodeEscape(data[i:])
	return n
}

// appendEscape appends the character of the escape at s[k] ('\\'), which
// stringEnd has validated, and returns it and the index just past it.
func appendEscape(buf, s []byte, k int) ([]byte, rune, int) {
	switch c := s[k+1]; c {
	case 'b':
		return append(buf, '\b'), '\b', k + 2
	case 'f':
		return append(buf, '\f'), '\f', k + 2
	case 'n':
		return append(buf, '\n'), '\n', k + 2
	case 'r':
		return append(buf, '\r'), '\r', k + 2
	case 't':
		return append(buf, '\t'), '\t', k + 2
	case 'u':
		r, n := unicodeEscape(s[k:])
		return utf8.AppendRune(buf, r), r, k + n
	default: // '"', '\\', '/'
		return append(buf, c), rune(c), k + 2
	}
}

// textHeadOf appends to buf the head textHead takes of a string body
// (escapes whole, as stringEnd validated them), and says whether the body
// holds the '\n' that ends it (whole: a longer body gives the same head)
// and where in body that escape ends. A line ends only at an escape (\n
// or \u000a), so the raw bytes between escapes are appended whole.
func textHeadOf(buf, body []byte) (head []byte, end int, whole bool) {
	text := false // the line being built holds a non-space rune
	for i := 0; ; {
		k := bytes.IndexByte(body[i:], '\\')
		seg := body[i:]
		if k >= 0 {
			seg = seg[:k]
		}
		buf = append(buf, seg...)
		if !text {
			text = hasText(seg)
		}
		if k < 0 {
			return buf, len(body), false
		}
		var r rune
		n := len(buf)
		buf, r, i = appendEscape(buf, body, i+k)
		if r == '\n' {
			if text {
				return buf[:n], i, true
			}
			continue
		}
		if !text && !unicode.IsSpace(r) {
			text = true
		}
	}
}

// hasText reports whether b holds a rune that is not a space (as
// unicode.IsSpace, which strings.TrimSpace trims); invalid UTF-8 counts as
// text, as the U+FFFD encoding/json would make of it.
func hasText(b []byte) bool {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if !unicode.IsSpace(r) {
			return true
		}
		i += n
	}
	return false
}

// ThroughFirstTextLine is s up to the '\n' ending its first line holding
// a non-space rune, or s when no line does: what a fold keeps of a failed
// tool's output (session.ScanFold). Decoder.TextHead builds the same from
// the raw JSON.
func ThroughFirstTextLine(s string) string {
	at := 0
	for {
		line, _, more := strings.Cut(s[at:], "\n")
		if strings.TrimSpace(line) != "" {
			return s[:at+len(line)]
		}
		if !more {
			return s
		}
		at += len(line) + 1
	}
}

// unicodeEscape reads \uXXXX (and its low surrogate \uYYYY if XXXX is a high
// one) at the start of s: the rune and the bytes used, 0 when the escape is
// malformed or a surrogate is unpaired.
func unicodeEscape(s []byte) (rune, int) {
	r := hex4(s)
	if r < 0 {
		return 0, 0
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	r2 := hex4(s[6:])
	if r2 < 0 {
		return 0, 0
	}
	dec := utf16.DecodeRune(r, r2)
	if dec == utf8.RuneError {
		return 0, 0
	}
	return dec, 12
}

// hex4 is the value of \uXXXX at the start of s, or -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
