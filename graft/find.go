package graft

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// Find searches one session's log for events that hold every word of a
// query: what a tape did not cite is still in its source's log, and the
// next window finds it by words instead of by seq (graft find, the MCP
// tool graft_find; the tape's Handoff block names the command).

// ErrInvalidQuery: a find without a word, or asking for more matches
// than MaxFindLimit.
var ErrInvalidQuery = errors.New("graft: invalid query")

const (
	// DefaultFindLimit is how many matches Find returns when the query
	// names no limit; MaxFindLimit the most it returns at once.
	DefaultFindLimit = 10
	MaxFindLimit     = 100
	// FindSnippetRunes is how much of an event a match shows on each side
	// of the first word's first occurrence.
	FindSnippetRunes = 100
)

// FindQuery is what Find looks for.
type FindQuery struct {
	// Words must each occur in the event, case folded, in any order and
	// place; white space splits a word given with it.
	Words []string
	// Before keeps only events whose seq is below it (0: every event):
	// FindResult.Older of the page before, to go on to older matches.
	Before int64
	// Limit is how many of the newest matches to return (0:
	// DefaultFindLimit; at most MaxFindLimit).
	Limit int
}

// FindMatch is one event that holds every word.
type FindMatch struct {
	Seq  int64  `json:"seq"`
	Type string `json:"type"`
	// Source is who the event is from (user, assistant, tool, plugin,
	// system, …: session.Source.Kind); a user/message is the person's
	// words only when it is "user".
	Source string `json:"source"`
	// Tool names the tool of a tool/call or tool/result.
	Tool string `json:"tool,omitempty"`
	// Snippet is the event's text around the first word's first
	// occurrence, on one line (a line break shown as ⏎), cut with "…".
	Snippet string `json:"snippet"`
}

// FindResult is the newest matches of a query.
type FindResult struct {
	Session string   `json:"session"`
	Words   []string `json:"words"`
	// Matches are the newest Limit matches, newest first.
	Matches []FindMatch `json:"matches"`
	// Total counts every event that matches (below Before).
	Total int `json:"total"`
	// Older is the Before that gives the next older page: the seq of the
	// oldest match shown, when older matches remain; 0 when none.
	Older int64 `json:"older,omitempty"`
	// Continues is the session a graft target continues (its graft/origin's
	// parent): what the target's tape did not carry of it is in that log,
	// for another Find. "" for a session nobody grafted into.
	Continues string `json:"continues,omitempty"`
}

// Find reads the log of id (any session: retired and abandoned ones
// too) from its start and returns the newest events that hold every word
// of q. An event's text is searched with its tool call's input (its
// string values: a file written is searched as its text), its result's
// output, its todos and its agent's name. ctx is checked as the log is
// read.
func (s *Service) Find(ctx context.Context, id string, q FindQuery) (*FindResult, error) {
	var words []string
	for _, w := range q.Words {
		for _, f := range strings.Fields(w) {
			words = append(words, strings.ToLower(f))
		}
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("%w: no word to find", ErrInvalidQuery)
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultFindLimit
	}
	if limit < 0 || limit > MaxFindLimit {
		return nil, fmt.Errorf("%w: limit %d: want 1 to %d", ErrInvalidQuery, q.Limit, MaxFindLimit)
	}
	if q.Before < 0 {
		return nil, fmt.Errorf("%w: before %d: want a seq, or 0 for every event", ErrInvalidQuery, q.Before)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &FindResult{Session: id, Words: words, Matches: []FindMatch{}}
	ring := make([]FindMatch, 0, limit) // the newest limit matches, oldest first
	next := 0
	var full session.Event
	// The fold's scan validates every line and builds no tool output; a
	// line that may hold every word (mayHold) is decoded whole.
	_, err := s.store.ScanFold(id, session.ScanFrom{}, func(folded *session.Event, raw []byte, _ int64) error {
		if folded.Seq%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if folded.Seq == 1 && folded.Type == session.TypeGraftOrigin {
			res.Continues = folded.Parent
		}
		if q.Before > 0 && folded.Seq >= q.Before || !mayHold(raw, words) {
			return nil
		}
		if err := session.Decode(raw, &full); err != nil {
			return fmt.Errorf("graft: find: seq %d of %s: %w", folded.Seq, id, err)
		}
		ev := &full
		text := ev.AllText()
		lower := strings.ToLower(text)
		at := -1
		for k, w := range words {
			i := strings.Index(lower, w)
			if i < 0 {
				return nil
			}
			if k == 0 {
				at = i
			}
		}
		res.Total++
		m := FindMatch{Seq: ev.Seq, Type: ev.Type, Source: ev.Source.Kind, Snippet: snippet(text, lower, at, len(words[0]))}
		if ev.Tool != nil {
			m.Tool = ev.Tool.Name
		}
		if len(ring) < limit {
			ring = append(ring, m)
		} else {
			ring[next] = m
			next = (next + 1) % limit
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k := range ring {
		res.Matches = append(res.Matches, ring[(next+len(ring)-1-k)%len(ring)])
	}
	if res.Total > len(res.Matches) {
		res.Older = res.Matches[len(res.Matches)-1].Seq
	}
	return res, nil
}

// snippet is text around the n bytes at at (an index into lower, the
// lower case of text), FindSnippetRunes on each side, on one line.
func snippet(text, lower string, at, n int) string {
	if len(lower) != len(text) {
		// Lower casing changed a length (a few letters do): the place is
		// found again in text itself, or the snippet starts at the top.
		at = strings.Index(text, lower[at:at+n])
		if at < 0 {
			at = 0
		}
	}
	start, end := at, at+n
	for k := 0; k < FindSnippetRunes && start > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(text[:start])
		start -= size
	}
	for k := 0; k < FindSnippetRunes && end < len(text); k++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	out := strings.ReplaceAll(strings.TrimSpace(text[start:end]), "\n", "⏎")
	if start > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out += "…"
	}
	return out
}

// mayHold is false only when the log line raw cannot hold every word of
// words as Find reads an event: a word of plain ASCII (letters, digits
// and punctuation other than a quote or a backslash) occurs, case folded,
// in the event's strings only if it occurs in the line's JSON, case folded
// as ASCII, unless the line writes a character another way (a \uXXXX
// escape, a slash as \/) or holds one of the two letters whose lower case
// is ASCII (K, the Kelvin sign, to k; İ to i): then the line is read
// whole.
func mayHold(raw []byte, words []string) bool {
	if escapesPlain(raw) || bytes.Contains(raw, []byte("\u212a")) || bytes.Contains(raw, []byte("\u0130")) {
		return true
	}
	for _, w := range words {
		if plainWord(w) && !containsFoldASCII(raw, w) {
			return false
		}
	}
	return true
}

// escapesPlain: raw holds a backslash before a u or a slash, which may
// write a character of a plain word another way (an escaped backslash
// before one is taken for such an escape too: the line is only read
// whole).
func escapesPlain(raw []byte) bool {
	for at := 0; ; {
		i := bytes.IndexByte(raw[at:], '\\')
		if i < 0 || at+i+1 >= len(raw) {
			return false
		}
		at += i + 1
		if c := raw[at]; c == 'u' || c == '/' {
			return true
		}
	}
}

// plainWord: w is ASCII without a quote, a backslash or a control byte,
// so it stands in a JSON string as it is.
func plainWord(w string) bool {
	for k := 0; k < len(w); k++ {
		if c := w[k]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// containsFoldASCII reports whether b holds w (lower case ASCII) with
// ASCII letters in either case.
func containsFoldASCII(b []byte, w string) bool {
	if w == "" {
		return true
	}
	firsts := []byte{w[0]}
	if c := w[0]; 'a' <= c && c <= 'z' {
		firsts = append(firsts, c-'a'+'A')
	}
	for _, c := range firsts {
		for at := 0; ; {
			i := bytes.IndexByte(b[at:], c)
			if i < 0 {
				break
			}
			at += i
			if len(b)-at < len(w) {
				break
			}
			if equalFoldASCII(b[at:at+len(w)], w) {
				return true
			}
			at++
		}
	}
	return false
}

// equalFoldASCII: b is w (lower case ASCII) with ASCII letters in either
// case; any other byte must be the same.
func equalFoldASCII(b []byte, w string) bool {
	for k := 0; k < len(w); k++ {
		c := b[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[k] {
			return false
		}
	}
	return true
}
