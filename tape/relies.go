package tape

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"

	"github.com/graft-project/graft/session"
)

const lineVersion = "graft-line-v1"

// LineDigestPrefix starts every line digest (doc.go, Hashes).
const LineDigestPrefix = lineVersion + ":"

// LineDigest is the digest of one log line, given what the prefix hash
// reads of it: its length without the '\n' and its session.LineSum. It is
// the line's entry in the prefix hash, in hex: any changed byte changes it.
func LineDigest(size int, sum session.LineSum) string {
	var e [24]byte
	binary.BigEndian.PutUint64(e[:8], uint64(size))
	copy(e[8:], sum[:])
	return LineDigestPrefix + hex.EncodeToString(e[:])
}

// PrefixHasher computes PrefixHash over lines given one at a time, in seq
// order from seq 1: what a Builder computes over the events before its
// boundary, for a reader (graft audit) that knows the boundary already.
type PrefixHasher struct {
	h     hash.Hash
	entry [24]byte // writeLine's buffer
}

// NewPrefixHasher starts a prefix hash.
func NewPrefixHasher() *PrefixHasher {
	h := sha256.New()
	writeLP(h, []byte(prefixVersion))
	return &PrefixHasher{h: h}
}

// Add hashes the next line: its length without the '\n' and its
// session.LineSum.
func (p *PrefixHasher) Add(size int, sum session.LineSum) { writeLine(p.h, &p.entry, size, sum) }

// Sum is the prefix hash of the lines added so far.
func (p *PrefixHasher) Sum() string { return PrefixHashPrefix + hex.EncodeToString(p.h.Sum(nil)) }

func originKey(o session.Origin) string {
	return fmt.Sprintf("%d %s %d", o.Generation, o.Session, o.Seq)
}

// noteLine keeps the line digest of the human instruction at seq, which
// what the fold hands on cites.
func (b *Builder) noteLine(seq int64, size int, sum session.LineSum) {
	st := &b.st
	o := session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: seq}
	if st.Lines == nil {
		st.Lines = map[string]string{}
	}
	st.Lines[originKey(o)] = LineDigest(size, sum)
}

// noteSaid keeps the line digest of the human instruction at seq while
// it is among the newest keptSaid of Humans (inheritSaid), and lets go of
// those that fell out.
func (b *Builder) noteSaid(seq int64, size int, sum session.LineSum) {
	st := &b.st
	if st.SaidLines == nil {
		st.SaidLines = map[string]string{}
	}
	st.SaidLines[originKey(session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: seq})] = LineDigest(size, sum)
	if len(st.SaidLines) <= keptSaid+1 {
		return
	}
	keep := map[string]bool{}
	for _, q := range st.Humans[max(0, len(st.Humans)-keptSaid-1):] {
		keep[originKey(q.Origin)] = true
	}
	for k := range st.SaidLines {
		if !keep[k] {
			delete(st.SaidLines, k)
		}
	}
}

// inheritSaid is what a target hands on of the person's instructions
// besides the first goal: the newest keptSaid the Goal quotes, as the
// fold keeps them (an earlier generation's as it handed them on), and this
// session's answers to the assistant's questions the Goal quotes
// (answers: by seq, marked answer); those an earlier generation handed
// on first, then this session's in the order said.
func (b *Builder) inheritSaid(answers map[int64]string) []session.Quote {
	st := &b.st
	var out []session.Quote
	for k := len(st.Humans) - 1; k >= 0 && len(out) < keptSaid; k-- {
		q := st.Humans[k]
		if st.FirstGoal != nil && q.Origin == st.FirstGoal.Origin {
			continue
		}
		q.Command, q.Picks = b.commandOf(q), b.picksOf(q)
		if len(out) >= keptWholeSaid {
			// An older one at the length the Goal grows one to (its head
			// and end in humanCoreRunes; of its middle, the parts the
			// budget cuts first go): 60 pasted logs at 6,000 runes each
			// made a graft/origin of 390 KB.
			q.Text = clipHumanText(q.Text, humanCoreRunes, q.Origin.Seq)
		}
		out = append(out, q) // as the fold keeps it: the next Goal clips it as this one does
	}
	slices.Reverse(out) // Humans holds those handed on first, then this session's by seq
	for _, a := range st.Answers {
		if text := answers[a.Seq]; text != "" {
			out = append(out, session.Quote{Text: text, Origin: session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: a.Seq}, Answer: true})
		}
	}
	// This session's answers among its instructions, in the order said.
	n := slices.IndexFunc(out, func(q session.Quote) bool { return q.Origin.Session == st.SessionID })
	if n >= 0 {
		slices.SortStableFunc(out[n:], func(x, y session.Quote) int { return cmp.Compare(x.Origin.Seq, y.Origin.Seq) })
	}
	return out
}

// relies is what a target of this tape relies on: the prefixes its
// source's graft/origin relied on, the source's own prefix (the events
// before the boundary), and the line digest of each origin inherit cites
// that has one (an origin handed down by a graft that recorded none has
// none).
func (b *Builder) relies(inherit session.Inherited, prefixHash string) session.Relies {
	st := &b.st
	r := session.Relies{Prefixes: append(slices.Clone(st.Relied), session.PrefixMark{
		Session: st.SessionID, Generation: st.Generation, Boundary: st.Boundary, PrefixHash: prefixHash,
	}), Origins: []session.OriginLine{}}
	seen := map[session.Origin]bool{}
	add := func(o session.Origin) {
		if seen[o] {
			return
		}
		seen[o] = true
		k := originKey(o)
		line, ok := st.Lines[k]
		if !ok {
			line, ok = st.SaidLines[k] // this session's newest instructions
		}
		if ok {
			r.Origins = append(r.Origins, session.OriginLine{Origin: o, Line: line})
		}
	}
	if inherit.FirstGoal != nil {
		add(inherit.FirstGoal.Origin)
	}
	for _, c := range inherit.Constraints {
		add(c.Origin)
		for _, o := range c.Also {
			add(o)
		}
	}
	for _, q := range inherit.Said {
		add(q.Origin)
	}
	slices.SortFunc(r.Origins, func(a, c session.OriginLine) int {
		return cmp.Or(cmp.Compare(a.Origin.Generation, c.Origin.Generation), cmp.Compare(a.Origin.Session, c.Origin.Session), cmp.Compare(a.Origin.Seq, c.Origin.Seq))
	})
	return r
}
