package tape

import (
	"crypto/sha256"
	"encoding/hex"
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
	Key  string `json:"key"`  // of the whole text, to match its taking back
	Head string `json:"head"` // its first queuedHeadRunes, to match its delivery
}

// queuedHeadRunes is how much of a queued message a human instruction must
// hold to deliver it: Claude Code may deliver several queued messages in
// one user line.
const queuedHeadRunes = 200

// keptQueued bounds the queued messages the fold keeps.
const keptQueued = 8

// maxQueuedRunes bounds what the Goal quotes of one.
const maxQueuedRunes = 800

func queuedKey(text string) string {
	h := sha256.Sum256([]byte(strings.TrimSpace(text)))
	return hex.EncodeToString(h[:8])
}

// queue folds the host's queue events.
func (b *Builder) queue(ev *session.Event) {
	st := &b.st
	switch ev.Source.Name {
	case "queued-input":
		t := strings.TrimSpace(ev.Text)
		head, _ := prefixRunes(t, queuedHeadRunes)
		n := queuedNote{Seq: ev.Seq, Text: clipHeadTail(t, maxQueuedRunes, "", ev.Seq), Key: queuedKey(t), Head: head}
		st.Queued = keepLast(append(st.Queued, n), keptQueued)
	case "queue-popped":
		st.Queued = dropQueued(st.Queued, ev.Text)
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

// dropQueued is qs without the oldest note of text.
func dropQueued(qs []queuedNote, text string) []queuedNote {
	if len(qs) == 0 {
		return qs
	}
	k := queuedKey(text)
	for i, q := range qs {
		if q.Key == k {
			return append(qs[:i:i], qs[i+1:]...)
		}
	}
	return qs
}
