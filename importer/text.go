package importer

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Timestamp turns a source time into the session's form (RFC 3339, UTC).
// ok is false when s is empty or not RFC 3339: the caller keeps the raw
// value in meta and the store stamps the event when it is written.
func Timestamp(s string) (ts string, ok bool) {
	if s == "" {
		return "", false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	return t.UTC().Format(time.RFC3339Nano), true
}

// Clip shortens s to at most n runes on one line, marking the cut with "…".
// For the short texts of system events; message texts are never clipped.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
