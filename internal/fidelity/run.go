package fidelity

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
)

// Candidates, in the order tables print them.
const (
	Graft   = "graft"   // graft's tape (prepare, default options)
	Excerpt = "excerpt" // what popular handoff hooks inject
	Tail    = "tail"    // the end of the conversation
	Summary = "summary" // the host's own compaction summary (compactBoundary cuts)
	Talk    = "talk"    // the end of the conversation's messages, tool calls and outputs left out
)

// Candidates lists them.
var Candidates = []string{Graft, Excerpt, Tail, Talk, Summary}

// Baseline sizes (issue 23): the tail at the tape's default budget, the
// hook excerpt at its own 8,000 characters.
const (
	TailRunes        = tape.DefaultBudget
	ExcerptRunes     = 8000
	excerptUserRunes = 2000
	excerptCallRunes = 300
)

// Result is one case scored.
type Result struct {
	Case *Case
	// Texts holds each candidate's text (Summary only for a
	// compactBoundary cut).
	Texts map[string]string
	// Carried[candidate][k] says whether Texts[candidate] carries
	// Case.Facts[k].
	Carried map[string][]bool
	// Unreachable are facts whose evidence is not in the transcript
	// before the cut at all: a mistake of the truth set.
	Unreachable []string
	// Where is the place of each fact's evidence in the imported session
	// (Places).
	Where []string
	// Reread says which facts the host gives the next window itself: the
	// instruction files it reads again when the export resumes (Reread).
	// The candidates' own tables do not count them; one more table does
	// (Tables).
	Reread []bool
	// Partial says which facts graft's tape misses while holding part of
	// their evidence: the topic named, a detail missing (Score).
	Partial   []bool
	TapeChars int
	Events    int64
}

// Run scores one case: it cuts the transcript, imports the prefix into a
// fresh graft home under tmp, prepares it as a person would (default
// options), and builds the baselines from the same imported events.
func Run(ctx context.Context, root, tmp string, c *Case) (*Result, error) {
	p, err := c.CutTranscript(root)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(tmp, "fidelity-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	svc, id, err := importInto(ctx, dir, c, p)
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	rv, err := svc.Prepare(ctx, id, graft.PrepareOptions{Tape: tape.Options{Budget: c.Budget}})
	if err != nil {
		return nil, fmt.Errorf("fidelity: %s: prepare: %w", c.Name, err)
	}
	evs, err := sessionEvents(svc, id)
	if err != nil {
		return nil, fmt.Errorf("fidelity: %s: reading the imported session: %w", c.Name, err)
	}
	res := &Result{Case: c, TapeChars: rv.TapeChars, Texts: map[string]string{
		Graft:   rv.Tape,
		Excerpt: HookExcerpt(evs),
		Tail:    ConversationTail(evs, TailRunes),
		Talk:    MessagesTail(evs, TailRunes),
	}}
	if len(evs) > 0 {
		res.Events = evs[len(evs)-1].Seq
	}
	res.Where = Where(c.Facts, evs)
	res.Reread = Reread(c.Facts, evs)
	if c.Cut.CompactBoundary > 0 {
		res.Texts[Summary] = p.HostSummary
	}
	res.Score()
	raw := Normalize(rawText(p.Lines))
	for _, f := range c.Facts {
		if !Carries(raw, f) {
			res.Unreachable = append(res.Unreachable, f.ID)
		}
	}
	return res, nil
}

// Score sets Carried from Texts, each candidate's text against each fact
// of the case, and Partial from graft's.
func (r *Result) Score() {
	facts := r.Case.Facts
	r.Carried = map[string][]bool{}
	for name, text := range r.Texts {
		norm := Normalize(text)
		got := make([]bool, len(facts))
		for k, f := range facts {
			got[k] = Carries(norm, f)
		}
		r.Carried[name] = got
		if name != Graft {
			continue
		}
		r.Partial = make([]bool, len(facts))
		for k, f := range facts {
			if got[k] {
				continue
			}
			for _, e := range f.Evidence {
				if strings.Contains(norm, Normalize(e)) {
					r.Partial[k] = true
					break
				}
			}
		}
	}
}

// rawText is every string value of every line, one per line: all a
// transcript says before the cut.
func rawText(lines [][]byte) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
			// A JSON document inside a string (tool inputs, some
			// payloads) is read too.
			if t := strings.TrimSpace(x); len(t) > 1 && (t[0] == '{' || t[0] == '[') {
				var inner any
				if json.Unmarshal([]byte(t), &inner) == nil {
					walk(inner)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, l := range lines {
		var v any
		if json.Unmarshal(l, &v) == nil {
			walk(v)
		}
	}
	return b.String()
}

// render is one event as a plain conversation would show it; "" for what
// a conversation does not show (system events, graft's marks).
func render(ev *session.Event) string {
	switch ev.Type {
	case session.TypeUserMessage:
		if ev.IsHumanInstruction() {
			return "User: " + ev.Text
		}
		return "User (" + ev.Source.Kind + " " + ev.Source.Name + "): " + ev.Text
	case session.TypeAssistantMessage:
		return "Assistant: " + ev.Text
	case session.TypeToolCall:
		return "Tool call " + ev.Tool.Name + ": " + string(ev.Tool.Input)
	case session.TypeToolResult:
		status := ""
		if !ev.OKResult() {
			status = " (failed)"
		}
		return "Tool result " + ev.Tool.Name + status + ": " + ev.Tool.Output
	case session.TypeTodoWrite:
		var b strings.Builder
		b.WriteString("Todos:")
		for _, td := range ev.Todos {
			b.WriteString("\n- [" + td.Status + "] " + td.Content)
		}
		return b.String()
	case session.TypeSubagentReport:
		return "Sub-agent report: " + ev.Text
	}
	return ""
}

// ConversationTail is the last n runes of the conversation: every message,
// tool call and output in order, as plain text.
func ConversationTail(evs []*session.Event, n int) string {
	var parts []string
	for _, ev := range evs {
		if r := render(ev); r != "" {
			parts = append(parts, r)
		}
	}
	return lastRunes(strings.Join(parts, "\n\n"), n)
}

// MessagesTail is the last n runes of the conversation's messages: what
// the user and the assistant wrote, in order, without tool calls or
// outputs (a person pasting the end of the chat).
func MessagesTail(evs []*session.Event, n int) string {
	var parts []string
	for _, ev := range evs {
		switch ev.Type {
		case session.TypeUserMessage, session.TypeAssistantMessage:
			if r := render(ev); r != "" {
				parts = append(parts, r)
			}
		}
	}
	return lastRunes(strings.Join(parts, "\n\n"), n)
}

// HookExcerpt is what popular PreCompact/SessionStart handoff hooks
// inject: the first user message, the last 3, the last 5 tool calls, cut
// to 8,000 characters. A user message is a human instruction, or the
// message Claude Code starts a cleared context with when the person
// approves a plan (plan-approved): the hooks read the transcript's user
// lines, and that is one.
func HookExcerpt(evs []*session.Event) string {
	var humans, calls []*session.Event
	for _, ev := range evs {
		switch {
		case ev.IsHumanInstruction(), ev.Type == session.TypeUserMessage && ev.Source.Name == session.SourcePlanApproved:
			humans = append(humans, ev)
		case ev.Type == session.TypeToolCall:
			calls = append(calls, ev)
		}
	}
	var b strings.Builder
	if len(humans) > 0 {
		b.WriteString("First user message:\n" + firstRunes(humans[0].Text, excerptUserRunes) + "\n\n")
		last := humans[max(1, len(humans)-3):]
		if len(last) > 0 {
			b.WriteString("Last user messages:\n")
			for _, h := range last {
				b.WriteString("- " + firstRunes(h.Text, excerptUserRunes) + "\n")
			}
			b.WriteString("\n")
		}
	}
	if len(calls) > 0 {
		b.WriteString("Last tool calls:\n")
		for _, c := range calls[max(0, len(calls)-5):] {
			b.WriteString("- " + c.Tool.Name + ": " + firstRunes(string(c.Tool.Input), excerptCallRunes) + "\n")
		}
	}
	return firstRunes(b.String(), ExcerptRunes)
}

func firstRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

func lastRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}
