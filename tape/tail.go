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
	// tailGrownRunes is what a result shows of its output when the budget
	// leaves room for more once nothing of the tail was cut.
	tailGrownRunes = 2000
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
	// Head and End are the first and last runes of a result's output
	// longer than tailGrownRunes that the fold held (Off < 0), Runes its
	// length: enough for both of its lengths in the tail (outputWindow).
	Head  string `json:"head,omitempty"`
	End   string `json:"end,omitempty"`
	Runes int    `json:"runes,omitempty"`
	Off   int64  `json:"off,omitempty"`
	Size  int    `json:"size,omitempty"`
	OK    bool   `json:"ok,omitempty"`
	// Edit marks a write or edit call whose input is read at Build (Off,
	// Size) for the lines it adds.
	Edit bool `json:"edit,omitempty"`
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
		if ev.Tool == nil || b.class(ev.Tool.Name).todo {
			return
		}
		e = tailEntry{Seq: ev.Seq, Who: ev.Tool.Name, Call: true, Text: b.lastWhat}
		if cl := b.class(ev.Tool.Name); cl.file && cl.op != OpRead {
			if off >= 0 {
				e.Edit, e.Off, e.Size = true, off, size
			} else if b.lastChange != "" {
				e.Text += "\n+ " + b.lastChange
			}
		}
	case session.TypeToolResult:
		if ev.Tool == nil || b.class(ev.Tool.Name).todo {
			return
		}
		e = tailEntry{Seq: ev.Seq, Who: ev.Tool.Name, Result: true, Off: off, Size: size, OK: ev.OKResult()}
		if off < 0 && size <= MaxOutputLine {
			w := newOutputWindow(ev.Tool.Output, ev.Seq)
			e.Text, e.Head, e.End, e.Runes = w.whole, w.head, w.end, w.runes
		}
	default:
		return
	}
	st.Tail = appendRing(st.Tail, e, keptTail)
}

// outputWindow is what the tail may show of a tool's output, without the
// notes the host adds to it for its model (Claude Code's
// <system-reminder>): the whole of it when it has at most tailGrownRunes,
// else its head and its end as clipHeadTail cuts it to tailGrownRunes.
type outputWindow struct {
	whole, head, end string
	runes            int // of the output, when longer than tailGrownRunes
	seq              int64
}

func newOutputWindow(out string, seq int64) outputWindow {
	c := strings.TrimSpace(stripANSI(withoutReminders(outputBody(out))))
	r := []rune(c)
	if len(r) <= tailGrownRunes {
		return outputWindow{whole: c, seq: seq}
	}
	h, t := headTailRunes(tailGrownRunes, clipMark("", seq))
	return outputWindow{head: string(r[:h]), end: string(r[len(r)-t:]), runes: len(r), seq: seq}
}

// short is the end of the output, tailOutputRunes at most (lastRunesOf).
func (w outputWindow) short() string {
	if w.runes == 0 {
		return lastRunesOf(w.whole, tailOutputRunes)
	}
	return lastRunesOf(w.end, tailOutputRunes)
}

// grown is the output clipped to tailGrownRunes, its head and its end.
func (w outputWindow) grown() string {
	if w.runes == 0 {
		return w.whole
	}
	return w.head + clipMark("", w.seq) + w.end
}

// withoutReminders is s without its <system-reminder>…</system-reminder>
// parts.
func withoutReminders(s string) string {
	const open, end = "<system-reminder>", "</system-reminder>"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], end)
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len(end):]
	}
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

// breakpointSeqs are the assistant messages the Breakpoint quotes: the
// last one whole, the carryover's up to maxParagraphRunes (more than the
// tail's tailTextRunes).
func (b *Builder) breakpointSeqs() map[int64]bool {
	st := &b.st
	out := map[int64]bool{}
	if st.LastReply != nil {
		out[st.LastReply.Seq] = true
	}
	for _, p := range st.Carry.Paragraphs {
		if !p.User {
			out[p.Seq] = true
		}
	}
	return out
}

// tailBlock renders the tail (a message the Goal or the Breakpoint quotes
// is named by its seq, not quoted again; a tail of such messages alone is
// left out); the outputs of its results come from src.
func (b *Builder) tailBlock(q *quoted) (*block, *section, error) {
	st := &b.st
	tail := ringLast(st.Tail, keptTail)
	if len(tail) == 0 {
		return nil, nil, nil
	}
	blk := newBlock("Conversation Tail")
	blk.optional = true
	blk.addHead("The last events as they were, in the room left (the assistant's are " + modelWritten + "):")
	sec := &section{singular: "event", plural: "events", cutFront: true}
	above := b.breakpointSeqs()
	pointers := 0
	for _, e := range tail {
		text, grown := e.Text, ""
		switch {
		case e.Who == "user" && e.Source == "" && b.goalQuoted[e.Seq]:
			text = "(quoted in the Goal)"
			pointers++
		case e.Who == "assistant" && above[e.Seq]:
			text = "(in the Breakpoint)"
			pointers++
		}
		if e.Result && e.Off < 0 && e.Size <= MaxOutputLine {
			w := outputWindow{whole: e.Text, head: e.Head, end: e.End, runes: e.Runes, seq: e.Seq}
			text, grown = w.short(), w.grown()
		}
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
				w := newOutputWindow(out, e.Seq)
				text, grown = w.short(), w.grown()
				if note := q.notes[e.Seq]; note != "" {
					text, grown = note, ""
				} else if !ok {
					text, grown = "", ""
				}
			}
		}
		if e.Call && e.Edit {
			if ch := q.tailChange[e.Seq]; ch != "" {
				text += "\n+ " + ch
			}
		}
		sec.items = append(sec.items, newItem(fmt.Sprintf("seq=%d %s: %s", e.Seq, who, text), "", e.Seq, e.Seq))
		if grown != "" && grown != text {
			sec.grown = append(sec.grown, fmt.Sprintf("seq=%d %s: %s", e.Seq, who, grown))
		} else {
			sec.grown = append(sec.grown, "")
		}
	}
	if pointers == len(tail) {
		return nil, nil, nil // every event is quoted above: nothing to say
	}
	return blk, blk.addSection(sec), nil
}
