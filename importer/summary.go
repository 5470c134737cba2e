package importer

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/graft-project/graft/session"
)

// maxListed caps the malformed lines and warnings a summary lists one by
// one; the counts stay exact.
const maxListed = 100

// Counts are the events an import produced, by what they are.
type Counts struct {
	HumanInstructions int `json:"humanInstructions"`
	InjectedMessages  int `json:"injectedMessages"`
	AssistantMessages int `json:"assistantMessages"`
	Thinking          int `json:"thinking"`
	ToolCalls         int `json:"toolCalls"`
	ToolResults       int `json:"toolResults"`
	Todos             int `json:"todos"`
	Reports           int `json:"reports"`
	System            int `json:"system"`
}

func (c *Counts) add(ev *session.Event) {
	switch ev.Type {
	case session.TypeUserMessage:
		if ev.IsHumanInstruction() {
			c.HumanInstructions++
		} else {
			c.InjectedMessages++
		}
	case session.TypeAssistantMessage:
		if ev.Source.Name == ThinkingName {
			c.Thinking++
		} else {
			c.AssistantMessages++
		}
	case session.TypeToolCall:
		c.ToolCalls++
	case session.TypeToolResult:
		c.ToolResults++
	case session.TypeTodoWrite:
		c.Todos++
	case session.TypeSubagentReport:
		c.Reports++
	default:
		c.System++
	}
}

// ThinkingName is source.name of an assistant/message that carries the
// model's thinking, kept only on request (--keep-thinking).
const ThinkingName = "thinking"

// Malformed is a source line that could not be read; it was skipped.
type Malformed struct {
	Line   int    `json:"line"`
	Offset int64  `json:"offset"`
	Error  string `json:"error"`
}

// Summary is what one import run did.
type Summary struct {
	Format  string `json:"format"`
	Session string `json:"session"`
	Source  string `json:"source"`
	// Resumed: a cursor existed and this run continued from it.
	Resumed bool `json:"resumed"`
	// PrefixCheck is "resumed" when the imported prefix was checked by its
	// identity and last 4 KiB, its hash resumed (doc.go, step 3); empty when
	// it was read whole (or there was none).
	PrefixCheck string `json:"prefixCheck,omitempty"`
	// FromLine/ToLine: the source lines this run consumed (ToLine < FromLine:
	// nothing new).
	FromLine int   `json:"fromLine"`
	ToLine   int   `json:"toLine"`
	Offset   int64 `json:"offset"`
	// Appended events were written to the session by this run; Verified ones
	// were already there (an earlier run stopped before its cursor was saved)
	// and were checked equal to what the source produces.
	Appended int `json:"appended"`
	Verified int `json:"verified,omitempty"`
	// GraftMarks: graft/* marks (a graft or revert of the session) found
	// past the cursor; they are graft's own and were stepped over.
	GraftMarks int   `json:"graftMarks,omitempty"`
	FirstSeq   int64 `json:"firstSeq,omitempty"`
	LastSeq    int64 `json:"lastSeq"`
	// Counts are the events produced from the lines this run consumed.
	Counts Counts `json:"counts"`
	// Skipped counts what was deliberately not imported, by what it was.
	Skipped        map[string]int `json:"skipped,omitempty"`
	MalformedCount int            `json:"malformedCount"`
	Malformed      []Malformed    `json:"malformed,omitempty"`
	// PendingTail is a last line without its newline: the host is still
	// writing it. It is not consumed; the next run reads it.
	PendingTail  *session.Torn `json:"pendingTail,omitempty"`
	WarningCount int           `json:"warningCount,omitempty"`
	Warnings     []string      `json:"warnings,omitempty"`
	SubSessions  []*Summary    `json:"subSessions,omitempty"`
}

// Warn adds a warning to the summary (an importer's own, beside the run's).
func (s *Summary) Warn(format string, args ...any) { s.warn(format, args...) }

func (s *Summary) warn(format string, args ...any) {
	s.WarningCount++
	if len(s.Warnings) < maxListed {
		s.Warnings = append(s.Warnings, fmt.Sprintf(format, args...))
	}
}

func (s *Summary) malformed(m Malformed) {
	s.MalformedCount++
	if len(s.Malformed) < maxListed {
		s.Malformed = append(s.Malformed, m)
	}
}

// Text renders the summary for a person, sub-sessions indented below.
func (s *Summary) Text() string {
	var b strings.Builder
	s.text(&b, "")
	return b.String()
}

func (s *Summary) text(b *strings.Builder, ind string) {
	lines := "no new lines"
	if s.ToLine >= s.FromLine {
		lines = fmt.Sprintf("lines %d-%d", s.FromLine, s.ToLine)
	}
	fmt.Fprintf(b, "%simported %s %s into %s: %s, %d new event(s)", ind, s.Format, s.Source, s.Session, lines, s.Appended)
	if s.Appended > 0 {
		fmt.Fprintf(b, " (seq %d..%d)", s.FirstSeq, s.LastSeq)
	}
	b.WriteString("\n")
	if s.GraftMarks > 0 {
		fmt.Fprintf(b, "%s  the session was grafted or reverted since the last import (%d graft mark(s) stepped over)\n", ind, s.GraftMarks)
	}
	if s.Verified > 0 {
		fmt.Fprintf(b, "%s  %d event(s) already in the session were checked against the source and kept\n", ind, s.Verified)
	}
	c := s.Counts
	fmt.Fprintf(b, "%s  human instructions %d, injected messages %d, assistant messages %d, thinking %d\n", ind, c.HumanInstructions, c.InjectedMessages, c.AssistantMessages, c.Thinking)
	fmt.Fprintf(b, "%s  tool calls %d, tool results %d, todo lists %d, sub-agent reports %d, system events %d\n", ind, c.ToolCalls, c.ToolResults, c.Todos, c.Reports, c.System)
	if len(s.Skipped) > 0 {
		keys := make([]string, 0, len(s.Skipped))
		for k := range s.Skipped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, s.Skipped[k])
		}
		fmt.Fprintf(b, "%s  skipped: %s\n", ind, strings.Join(parts, ", "))
	}
	if s.MalformedCount > 0 {
		nums := make([]string, len(s.Malformed))
		for i, m := range s.Malformed {
			nums[i] = fmt.Sprint(m.Line)
		}
		more := ""
		if s.MalformedCount > len(s.Malformed) {
			more = fmt.Sprintf(" and %d more", s.MalformedCount-len(s.Malformed))
		}
		fmt.Fprintf(b, "%s  malformed lines skipped: %d (line %s%s)\n", ind, s.MalformedCount, strings.Join(nums, ", "), more)
	}
	if s.PendingTail != nil {
		fmt.Fprintf(b, "%s  last line is incomplete (%d bytes at offset %d): left for the next import\n", ind, s.PendingTail.Bytes, s.PendingTail.Offset)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(b, "%s  warning: %s\n", ind, w)
	}
	if s.WarningCount > len(s.Warnings) {
		fmt.Fprintf(b, "%s  … and %d more warnings\n", ind, s.WarningCount-len(s.Warnings))
	}
	for _, sub := range s.SubSessions {
		sub.text(b, ind+"  ")
	}
}

// Output collects what a Mapper makes of one source line.
type Output struct {
	events    []session.Event
	skipped   []string
	warnings  []string
	malformed error
	uuid      string
}

// Emit adds an event. seq is assigned by the store; ts should be the
// source's. The importer adds meta "line".
func (o *Output) Emit(ev session.Event) { o.events = append(o.events, ev) }

// Skip counts something deliberately not imported (Summary.Skipped[what]).
func (o *Output) Skip(what string) { o.skipped = append(o.skipped, what) }

// Warn reports something imported imperfectly (an unmatched tool result).
func (o *Output) Warn(format string, args ...any) {
	o.warnings = append(o.warnings, fmt.Sprintf(format, args...))
}

// maxTold bounds the unknown shapes a mapper remembers having reported.
const maxTold = 32

// NoteUnknown warns, once per shape (told holds those reported already;
// the new list is returned), that a host wrote a shape of record this
// importer does not know: which, and the host version the file names, so
// a person can tell graft's maintainers. The line itself is kept as a
// system event; what it holds is not read.
func NoteUnknown(o *Output, told []string, host, version, what, name string) []string {
	key := what + " " + name
	if slices.Contains(told, key) || len(told) >= maxTold {
		return told
	}
	if version == "" {
		version = "(version not named in the file)"
	}
	o.Warn("%s %s wrote a %s this graft does not know, %q: kept as a system event, what it holds is not read (a newer %s than graft knows? graft version and this line's type help its maintainers)", host, version, what, name, host)
	return append(told, key)
}

// Malformed marks the line unreadable: it is reported with its number and
// skipped, and events emitted for it are dropped.
func (o *Output) Malformed(err error) { o.malformed = err }

// SourceUUID records the source's own id of the line (cursor lastUuid).
func (o *Output) SourceUUID(uuid string) { o.uuid = uuid }

func (o *Output) reset() {
	o.events = o.events[:0]
	o.skipped = o.skipped[:0]
	o.warnings = o.warnings[:0]
	o.malformed = nil
	o.uuid = ""
}
