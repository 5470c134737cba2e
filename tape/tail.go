package tape

import (
	"fmt"
	"strings"

	"github.com/graft-project/graft/session"
)

// Bounds of the conversation tail (tape/doc.go, Conversation Tail).
const (
	keptTail        = 40
	tailTextRunes   = 1200
	tailOutputRunes = 600
)

// tailEntry is one event of the conversation tail: a message with its
// text, a tool call with what it ran, a tool result by its offset (its
// output is read at Build).
type tailEntry struct {
	Seq int64 `json:"seq"`
	// Who is "user", "assistant", or the tool's name (Call or Result);
	// an injected message is "user" with Source.
	Who    string `json:"who"`
	Source string `json:"source,omitempty"`
	Call   bool   `json:"call,omitempty"`
	Result bool   `json:"result,omitempty"`
	Text   string `json:"text,omitempty"`
	Off    int64  `json:"off,omitempty"`
	Size   int    `json:"size,omitempty"`
	OK     bool   `json:"ok,omitempty"`
}

func (b *Builder) addTail(ev *session.Event, size int, off int64) {
	st := &b.st
	var e tailEntry
	switch ev.Type {
	case session.TypeUserMessage:
		if strings.Contains(ev.Text, session.GraftMarker) {
			return
		}
		e = tailEntry{Seq: ev.Seq, Who: "user", Text: clipAtSeq(strings.TrimSpace(ev.Text), tailTextRunes, "", ev.Seq)}
		if !ev.IsHumanInstruction() {
			e.Source = ev.Source.Kind + " " + ev.Source.Name
		}
	case session.TypeAssistantMessage:
		if strings.Contains(ev.Text, session.GraftMarker) || ev.Source.Name == "thinking" {
			return
		}
		e = tailEntry{Seq: ev.Seq, Who: "assistant", Text: clipAtSeq(strings.TrimSpace(ev.Text), tailTextRunes, "", ev.Seq)}
	case session.TypeToolCall:
		if ev.Tool == nil || isTodoTool(ev.Tool.Name) {
			return
		}
		e = tailEntry{Seq: ev.Seq, Who: ev.Tool.Name, Call: true, Text: b.lastWhat}
	case session.TypeToolResult:
		if ev.Tool == nil || isTodoTool(ev.Tool.Name) {
			return
		}
		e = tailEntry{Seq: ev.Seq, Who: ev.Tool.Name, Result: true, Off: off, Size: size, OK: ev.OKResult()}
		if off < 0 && size <= MaxOutputLine {
			e.Text = lastRunesOf(strings.TrimSpace(ev.Tool.Output), tailOutputRunes)
		}
	default:
		return
	}
	st.Tail = appendRing(st.Tail, e, keptTail)
}

// lastRunesOf is the end of s, at most n runes, from a line start when
// it cuts.
func lastRunesOf(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	t := string(r[len(r)-n:])
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
		t = t[i+1:]
	}
	return "… " + t
}

// tailBlock renders the tail; the outputs of its results come from src.
func (b *Builder) tailBlock(q *quoted) (*block, *section, error) {
	st := &b.st
	tail := ringLast(st.Tail, keptTail)
	if len(tail) == 0 {
		return nil, nil, nil
	}
	blk := newBlock("Conversation Tail")
	blk.optional = true
	blk.addHead("The last events as they were, as far as the budget leaves room (the assistant's are " + modelWritten + "):")
	sec := &section{singular: "event", plural: "events", cutFront: true}
	for _, e := range tail {
		text := e.Text
		who := e.Who
		switch {
		case e.Source != "":
			who = "injected (" + e.Source + ")"
		case e.Call:
			who += " call"
		case e.Result:
			who += " result"
		}
		if e.Result {
			if !e.OK {
				who += " (failed)"
			}
			if e.Off >= 0 || e.Size > MaxOutputLine {
				out, ok, err := q.get(e.Seq, e.Off, e.Size)
				if err != nil {
					return nil, nil, err
				}
				text = lastRunesOf(strings.TrimSpace(out), tailOutputRunes)
				if note := q.notes[e.Seq]; note != "" {
					text = note
				} else if !ok {
					text = ""
				}
			}
		}
		sec.items = append(sec.items, newItem(fmt.Sprintf("seq=%d %s: %s", e.Seq, who, text), "", e.Seq, e.Seq))
	}
	return blk, blk.addSection(sec), nil
}
