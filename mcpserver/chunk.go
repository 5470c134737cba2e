package mcpserver

import (
	"fmt"
	"unicode/utf8"
)

// chunk is one page of a long text. Offsets count characters (runes), the
// unit tapeChars and the tape budget use, so a cut never splits a UTF-8
// sequence.
type chunk struct {
	Text  string
	Total int // characters of the whole text
	Next  int // offset of the next page; 0 when Text ends the text
}

// pageOf returns at most limit characters of s from offset on. An offset
// beyond the text is the caller's mistake and says where the text ends.
func pageOf(s string, offset, limit int) (chunk, error) {
	total := utf8.RuneCountInString(s)
	if offset < 0 || offset > total || (offset == total && total > 0) {
		return chunk{}, inputErrorf("offset %d is outside the text (%d characters; valid offsets are 0..%d)", offset, total, max(total-1, 0))
	}
	start := byteIndex(s, 0, offset)
	end := len(s)
	next := 0
	if total-offset > limit {
		end = byteIndex(s, start, limit)
		next = offset + limit
	}
	return chunk{Text: s[start:end], Total: total, Next: next}, nil
}

// byteIndex returns the byte index of the rune n runes after byte index from.
func byteIndex(s string, from, n int) int {
	i := from
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// clip cuts s to limit characters and says how to read the rest, for
// texts an output carries whole (goal quotes, constraints) rather than paged.
func clip(s string, limit int, rest string) string {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	return s[:byteIndex(s, 0, limit)] + fmt.Sprintf(" … [cut: %d more characters; %s]", n-limit, rest)
}
