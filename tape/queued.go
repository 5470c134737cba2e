package tape

import (
	"slices"
	"strings"

	"github.com/graft-project/graft/session"
)

// queuedNote is a message the person queued while the agent worked
// (importer: system/event "queued-input"), until a human instruction with
// its text delivers it or the person takes it back ("queue-popped"). A
// handoff made while it waits would lose it: the Goal quotes it.
type queuedNote struct {
	Seq  int64  `json:"seq"`
	Text string `json:"text"` // as the Goal quotes it (head and end)
	Head string `json:"head"` // its first queuedHeadRunes, to match its delivery or taking back
}

// queuedHeadRunes is how much of a queued message a human instruction must
// hold to deliver it: Claude Code may deliver several queued messages in
// one user line.
const queuedHeadRunes = 200

// keptQueued bounds the queued messages the fold keeps.
const keptQueued = 8

// maxQueuedRunes bounds what the Goal quotes of one.
const maxQueuedRunes = 800

// queuedHead is what a note keeps of text to match it.
func queuedHead(text string) string {
	head, _ := prefixRunes(strings.TrimSpace(text), queuedHeadRunes)
	return head
}

// queue folds the host's queue events.
func (b *Builder) queue(ev *session.Event) {
	st := &b.st
	switch ev.Source.Name {
	case "queued-input":
		n := queuedNote{Seq: ev.Seq, Text: clipHumanText(strings.TrimSpace(ev.Text), maxQueuedRunes, ev.Seq), Head: queuedHead(ev.Text)}
		st.Queued = keepLast(append(st.Queued, n), keptQueued)
	case "queue-popped":
		// The person took it back: the oldest note of that text.
		head := queuedHead(ev.Text)
		if k := slices.IndexFunc(st.Queued, func(q queuedNote) bool { return q.Head == head }); k >= 0 {
			st.Queued = slices.Delete(st.Queued, k, k+1)
		}
	}
}

// delivered is qs without the notes a human instruction of text delivers:
// those whose head it holds.
func delivered(qs []queuedNote, text string) []queuedNote {
	if len(qs) == 0 {
		return qs
	}
	return slices.DeleteFunc(qs, func(q queuedNote) bool { return strings.Contains(text, q.Head) })
}
