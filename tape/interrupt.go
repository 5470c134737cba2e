package tape

import (
	"strings"

	"github.com/graft-project/graft/session"
)

// A person who stops the agent stops it on purpose. The hosts write it
// into the log: Claude Code a user line "[Request interrupted by user]"
// (or "… for tool use"; imported as system "interrupted"), Codex an
// event_msg turn_aborted with its reason (system/event "turn_aborted",
// "turn_aborted: interrupted") and, since 0.13x, words to its model
// ("<turn_aborted>\nThe user interrupted the previous turn on purpose. …",
// system "turn-aborted"). The Breakpoint says the last one, in the host's
// words, while it is in the open turn or the turn just before it
// (TestTheBreakpointSaysTheUserInterrupted).

// interruption is where the person stopped the agent and how the host
// said it.
type interruption struct {
	Seq  int64  `json:"seq"`
	Text string `json:"text"`
}

// maxInterruptRunes bounds the host's words quoted.
const maxInterruptRunes = 120

// interrupted notes ev when it is a host's word that the person stopped
// the agent. Codex's event follows its words to the model: the words
// stay, at the words' seq.
func (b *Builder) interrupted(ev *session.Event) {
	st := &b.st
	var words string
	switch ev.Source.Name {
	case "interrupted":
		words = ev.Text
	case "turn-aborted":
		words = strings.TrimPrefix(strings.TrimSpace(ev.Text), "<turn_aborted>")
		if !strings.Contains(words, "interrupted") {
			return
		}
		// Its first sentence: the rest is advice to the model.
		if i := strings.Index(words, ". "); i >= 0 {
			words = words[:i+1]
		}
	case "turn_aborted":
		if !strings.HasSuffix(strings.TrimSpace(ev.Text), ": interrupted") {
			return // replaced, review ended: not the person's stop
		}
		if in := st.Interrupt; in != nil && in.Seq >= st.Boundary && ev.Seq-in.Seq <= 2 {
			return // the words came first
		}
		words = ev.Text
	default:
		return
	}
	st.Interrupt = &interruption{Seq: ev.Seq, Text: firstLine(strings.TrimSpace(words), maxInterruptRunes)}
}
