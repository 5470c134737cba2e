package ancestry

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
)

// ReliedCheck is one thing the audited target's graft/origin records that
// it relies on (session.Relies), recomputed from the log it names: the
// prefix of an ancestor (its events before the boundary the next
// generation was cut at) or the log line of a cited origin.
type ReliedCheck struct {
	// Kind is "prefix" (the events of Session before seq Boundary) or
	// "origin" (the event of Session at Seq).
	Kind       string `json:"kind"`
	Session    string `json:"session"`
	Generation int    `json:"generation"`
	Boundary   int64  `json:"boundary,omitempty"`
	Seq        int64  `json:"seq,omitempty"`
	// Recorded is the digest the graft/origin holds, Found the one the log
	// gives now ("" when it could not be read).
	Recorded string `json:"recorded"`
	Found    string `json:"found,omitempty"`
	OK       bool   `json:"ok"`
	Problem  string `json:"problem,omitempty"`
}

// Tamper-check states (AuditReport.TamperCheck).
const (
	// TamperChecked: every ancestor's prefix and every cited origin in an
	// ancestor has a recorded digest, and each was recomputed.
	TamperChecked = "checked"
	// TamperPartial: some were recorded and recomputed; the others (handed
	// down through a graft that recorded nothing) are named in the note.
	TamperPartial = "partial"
	// TamperNotAvailable: nothing was recorded (a generation-1 session, or
	// a target whose graft predates the record): only the texts are checked.
	TamperNotAvailable = "not available"
)

// checkRelied recomputes everything id's graft/origin relies on. cited are
// the origins the audit checks, chain id's ancestors (id first). note says
// what could not be checked and why.
func (r *Reader) checkRelied(id string, cited []session.Origin, chain []Ancestor) (checks []ReliedCheck, state, note string, err error) {
	origin, err := r.originOf(id)
	if err != nil {
		return nil, "", "", err
	}
	switch {
	case origin == nil:
		return []ReliedCheck{}, TamperNotAvailable, fmt.Sprintf("%s is generation 1 (no graft/origin): no graft recorded what it relies on", id), nil
	case origin.Relies == nil:
		return []ReliedCheck{}, TamperNotAvailable, fmt.Sprintf("%s's graft/origin (txn %s) was written by a graft that recorded nothing it relies on (no relies): only the constraint texts are checked", id, origin.Txn), nil
	}
	type want struct {
		prefix  *session.PrefixMark
		origins map[int64]session.OriginLine
		gen     int
	}
	wants := map[string]*want{}
	var order []string
	get := func(sess string, gen int) *want {
		w := wants[sess]
		if w == nil {
			w = &want{origins: map[int64]session.OriginLine{}, gen: gen}
			wants[sess] = w
			order = append(order, sess)
		}
		return w
	}
	for _, p := range origin.Relies.Prefixes {
		get(p.Session, p.Generation).prefix = &p
	}
	for _, ol := range origin.Relies.Origins {
		get(ol.Origin.Session, ol.Origin.Generation).origins[ol.Origin.Seq] = ol
	}
	checks = []ReliedCheck{}
	for _, sess := range order {
		w := wants[sess]
		seqs := make([]int64, 0, len(w.origins))
		for q := range w.origins {
			seqs = append(seqs, q)
		}
		slices.Sort(seqs)
		var boundary int64
		if w.prefix != nil {
			boundary = w.prefix.Boundary
		}
		prefix, lines, last, rerr := r.rehash(sess, boundary, seqs)
		if w.prefix != nil {
			c := ReliedCheck{Kind: "prefix", Session: sess, Generation: w.prefix.Generation, Boundary: boundary, Recorded: w.prefix.PrefixHash}
			switch {
			case session.ValidID(sess) != nil:
				c.Problem = fmt.Sprintf("unreadable: the record names session %q", sess)
			case rerr != nil && last < boundary-1:
				c.Problem = fmt.Sprintf("unreadable: the events of %s before seq %d: %v", sess, boundary, rerr)
			case last < boundary-1:
				c.Problem = fmt.Sprintf("changed: gen %d %s ends at seq %d; the graft that cut it at seq %d relied on its events before seq %d", c.Generation, sess, last, boundary, boundary)
			default:
				c.Found = prefix
				if c.Found == c.Recorded {
					c.OK = true
				} else {
					c.Problem = fmt.Sprintf("changed: gen %d %s: an event before seq %d is not what the graft that cut %s at seq %d read (its prefix hash differs)", c.Generation, sess, boundary, sess, boundary)
				}
			}
			checks = append(checks, c)
		}
		for _, q := range seqs {
			ol := w.origins[q]
			c := ReliedCheck{Kind: "origin", Session: sess, Generation: ol.Origin.Generation, Seq: q, Recorded: ol.Line}
			found, ok := lines[q]
			switch {
			case session.ValidID(sess) != nil:
				c.Problem = fmt.Sprintf("unreadable: the record names session %q", sess)
			case !ok && rerr != nil:
				c.Problem = fmt.Sprintf("unreadable: seq %d of %s: %v", q, sess, rerr)
			case !ok:
				c.Problem = fmt.Sprintf("changed: gen %d %s has no seq %d (it ends at seq %d); a graft relied on it as a cited origin", c.Generation, sess, q, last)
			default:
				c.Found = found
				if found == ol.Line {
					c.OK = true
				} else {
					c.Problem = fmt.Sprintf("changed: gen %d %s seq %d: the line is not the one a graft relied on as a cited origin (its line digest differs)", c.Generation, sess, q)
				}
			}
			checks = append(checks, c)
		}
	}
	var missing []string
	for _, a := range chain {
		if a.Session == id {
			continue
		}
		if w := wants[a.Session]; w == nil || w.prefix == nil {
			missing = append(missing, fmt.Sprintf("the prefix of gen %d %s", a.Generation, a.Session))
		}
	}
	seen := map[session.Origin]bool{}
	for _, o := range cited {
		if o.Session == id || seen[o] {
			continue // id's own words: no graft relied on them yet
		}
		seen[o] = true
		if w := wants[o.Session]; w == nil || w.origins[o.Seq].Line == "" {
			missing = append(missing, fmt.Sprintf("the line of gen %d %s seq %d", o.Generation, o.Session, o.Seq))
		}
	}
	if len(missing) > 0 {
		return checks, TamperPartial, fmt.Sprintf("not recorded by the graft that handed it down (an older graft), so not checked: %s", strings.Join(missing, ", ")), nil
	}
	return checks, TamperChecked, "", nil
}

// rehash reads id from seq 1 up to what is wanted: the prefix hash over the
// events before boundary (tape.PrefixHasher), the line digests at seqs,
// and the last seq read. Whatever was found before a read error is
// returned with it.
func (r *Reader) rehash(id string, boundary int64, seqs []int64) (prefix string, lines map[int64]string, last int64, err error) {
	lines = map[int64]string{}
	if err := session.ValidID(id); err != nil {
		return "", lines, 0, err
	}
	stop := boundary - 1
	if len(seqs) > 0 {
		stop = max(stop, seqs[len(seqs)-1])
	}
	h := tape.NewPrefixHasher()
	if stop < 1 {
		return h.Sum(), lines, 0, nil
	}
	f, _, err := r.Store.OpenLog(id)
	if err != nil {
		return "", lines, 0, err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("graft: closing %s: %w", f.Name(), cerr)
		}
	}()
	want := map[int64]bool{}
	for _, q := range seqs {
		want[q] = true
	}
	_, err = session.ScanFoldSums(io.NewSectionReader(f, 0, math.MaxInt64), r.Store.Path(id), session.ScanFrom{}, func(ev *session.Event, size int, sum session.LineSum, _ int64) error {
		last = ev.Seq
		if ev.Seq < boundary {
			h.Add(size, sum)
		}
		if want[ev.Seq] {
			lines[ev.Seq] = tape.LineDigest(size, sum)
		}
		if ev.Seq >= stop {
			return errFound
		}
		return nil
	})
	if errors.Is(err, errFound) {
		err = nil
	}
	if last >= boundary-1 {
		prefix = h.Sum()
	}
	return prefix, lines, last, err
}
