package ancestry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/graft-project/graft/anchors"
	"github.com/graft-project/graft/internal/nonnil"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
)

// ErrNoOrigin: recall --origin was pointed at an event that cites no
// origin (neither a human instruction nor part of a graft tape).
var ErrNoOrigin = errors.New("graft: the event cites no origin")

// ErrAuditFailed: graft audit found a broken origin chain (AuditReport.Err).
var ErrAuditFailed = errors.New("graft: audit failed")

// AuditCheck is one origin of a constraint, re-read from its session's log.
type AuditCheck struct {
	Origin  session.Origin `json:"origin"`
	OK      bool           `json:"ok"`
	Problem string         `json:"problem,omitempty"`
}

// AuditedConstraint is one constraint with a check per origin: its origin
// first, then each of Also.
type AuditedConstraint struct {
	Text   string           `json:"text"`
	Origin session.Origin   `json:"origin"`
	Also   []session.Origin `json:"also"`
	Checks []AuditCheck     `json:"checks"`
}

// AuditReport is graft audit of one session.
type AuditReport struct {
	Session     string              `json:"session"`
	Generation  int                 `json:"generation"`
	Constraints []AuditedConstraint `json:"constraints"`
	// MoreConstraints counts, per session, the constraint sayings past the
	// tape's cap (tape.MaxConstraints): not kept, so not audited.
	MoreConstraints []session.More `json:"moreConstraints,omitempty"`
	// TamperCheck is TamperChecked when the session's graft/origin records
	// what it relies on and Relied holds each check, TamperPartial or
	// TamperNotAvailable (TamperNote says what was not checked) otherwise.
	TamperCheck string        `json:"tamperCheck"`
	TamperNote  string        `json:"tamperNote,omitempty"`
	Relied      []ReliedCheck `json:"relied"`
	OK          bool          `json:"ok"`
}

// Audit checks every constraint of id's current tape state (what prepare
// would carry into the next generation) against the human words it cites.
// For each origin (origin, then also) the event is re-read from its
// session's log, retired or not, and must exist, be a human instruction,
// still contain the constraint (anchors.Holds), and sit in id or one of its
// ancestors at the generation the origin names. Then what id's graft/origin
// records that it relies on (session.Relies: each ancestor's prefix and
// each cited origin's log line, as the grafts saw them) is recomputed from
// the logs: any changed byte there fails the audit, naming the session and
// the seq (for a prefix: the boundary the changed event lies before). A
// target whose graft recorded nothing (older grafts) is audited by its
// texts alone, and the report says the tamper check is not available. The
// error is for an audit that could not run; a failed check is in the
// report (see Err).
func (r *Reader) Audit(id string) (*AuditReport, error) {
	if err := session.ValidID(id); err != nil {
		return nil, err
	}
	// The fold is what prepare builds; MaxBudget only keeps rendering from
	// refusing a tape whose text nobody reads here.
	bt, err := r.Folds.Build(context.Background(), id, tape.Options{Budget: tape.MaxBudget}, nil)
	if err != nil {
		return nil, fmt.Errorf("graft: audit of %s: reading its constraints: %w", id, err)
	}
	cs := bt.Tape.Constraints
	var origins []session.Origin
	texts := map[session.Origin][]string{}
	for _, c := range cs {
		for _, o := range append([]session.Origin{c.Origin}, c.Also...) {
			origins = append(origins, o)
			texts[o] = append(texts[o], c.Text)
		}
	}
	oc := r.newOriginChecker(id, origins, texts)
	rep := &AuditReport{Session: id, Generation: bt.Tape.Generation, Constraints: []AuditedConstraint{}, MoreConstraints: bt.Tape.MoreConstraints, OK: true}
	for _, c := range cs {
		ac := AuditedConstraint{Text: c.Text, Origin: c.Origin, Also: nonnil.Slice(c.Also), Checks: []AuditCheck{}}
		for _, o := range append([]session.Origin{c.Origin}, c.Also...) {
			_, problem := oc.check(o, []string{c.Text})
			ac.Checks = append(ac.Checks, AuditCheck{Origin: o, OK: problem == "", Problem: problem})
			rep.OK = rep.OK && problem == ""
		}
		rep.Constraints = append(rep.Constraints, ac)
	}
	rep.Relied, rep.TamperCheck, rep.TamperNote, err = r.checkRelied(id, origins, oc.chain)
	if err != nil {
		return nil, fmt.Errorf("graft: audit of %s: reading what its graft/origin relies on: %w", id, err)
	}
	for _, c := range rep.Relied {
		rep.OK = rep.OK && c.OK
	}
	return rep, nil
}

// Err is nil when every check passed, else an error matching ErrAuditFailed
// that names each failed check: constraint, origin (session and seq) and
// what was found.
func (rep *AuditReport) Err() error {
	var failed, relied []string
	for _, c := range rep.Constraints {
		for _, k := range c.Checks {
			if !k.OK {
				failed = append(failed, fmt.Sprintf("constraint %q, origin %s: %s", clipText(c.Text, 80), k.Origin, k.Problem))
			}
		}
	}
	for _, c := range rep.Relied {
		if !c.OK {
			relied = append(relied, c.Problem)
		}
	}
	switch {
	case len(failed) == 0 && len(relied) == 0:
		return nil
	case len(relied) == 0:
		return fmt.Errorf("%w: %s: %d origin check(s) failed: %s", ErrAuditFailed, rep.Session, len(failed), strings.Join(failed, "; "))
	case len(failed) == 0:
		return fmt.Errorf("%w: %s: %d of what it relies on changed: %s", ErrAuditFailed, rep.Session, len(relied), strings.Join(relied, "; "))
	}
	return fmt.Errorf("%w: %s: %d origin check(s) failed: %s; and %d of what it relies on changed: %s", ErrAuditFailed, rep.Session, len(failed), strings.Join(failed, "; "), len(relied), strings.Join(relied, "; "))
}

// originChecker re-reads origins cited from session id: id's lineage is
// read once, each origin session's log once, up to the last seq wanted,
// and each origin event's text once for all the constraints that cite it
// (anchors.HoldsAll), so an audit costs the size of the texts it reads,
// not that size times the constraints.
type originChecker struct {
	id       string
	chain    []Ancestor
	chainErr error
	events   map[string]map[int64]*session.Event
	lastSeq  map[string]int64
	readErr  map[string]error
	// human says, per origin event read, whether it is a human
	// instruction (asked once: it searches the whole text for the graft
	// marker); holds, which texts it holds.
	human map[eventKey]bool
	holds map[eventKey]map[string]bool
	// answers are the origins cited as the person's answers to the
	// assistant's questions (inherit.said, answer): checked as such.
	answers map[session.Origin]bool
}

type eventKey struct {
	session string
	seq     int64
}

// newOriginChecker reads origins, for checking that each holds the texts
// that texts lists for it.
func (r *Reader) newOriginChecker(id string, origins []session.Origin, texts map[session.Origin][]string) *originChecker {
	oc := &originChecker{id: id, events: map[string]map[int64]*session.Event{}, lastSeq: map[string]int64{}, readErr: map[string]error{}, human: map[eventKey]bool{}, holds: map[eventKey]map[string]bool{}}
	oc.chain, oc.chainErr = r.Ancestors(id)
	want := map[string]map[int64]bool{}
	for _, o := range origins {
		if session.ValidID(o.Session) != nil {
			continue // check names the bad id
		}
		if want[o.Session] == nil {
			want[o.Session] = map[int64]bool{}
		}
		want[o.Session][o.Seq] = true
	}
	for sid, seqs := range want {
		oc.events[sid], oc.lastSeq[sid], oc.readErr[sid] = r.readSeqs(sid, seqs)
		for seq, ev := range oc.events[sid] {
			oc.human[eventKey{sid, seq}] = ev.IsHumanInstruction()
		}
	}
	// Every text cited at one event, checked in one reading of its text.
	perEvent := map[eventKey][]string{}
	for o, ts := range texts {
		k := eventKey{o.Session, o.Seq}
		perEvent[k] = append(perEvent[k], ts...)
	}
	for k, ts := range perEvent {
		ev := oc.events[k.session][k.seq]
		if ev == nil || !oc.human[k] {
			continue // check says why
		}
		held := anchors.HoldsAll(ev.Text, ts)
		m := make(map[string]bool, len(ts))
		for i, t := range ts {
			m[t] = held[i]
		}
		oc.holds[k] = m
	}
	return oc
}

// readSeqs returns the events of id at the given seqs, reading the log up
// to the last of them, and the last seq read. Events found before a read
// error are returned with it.
func (r *Reader) readSeqs(id string, seqs map[int64]bool) (map[int64]*session.Event, int64, error) {
	var last int64
	for q := range seqs {
		last = max(last, q)
	}
	found := map[int64]*session.Event{}
	res, err := r.Store.Scan(id, session.ScanFrom{}, func(ev *session.Event, _ []byte, _ int64) error {
		if seqs[ev.Seq] {
			e := *ev
			found[ev.Seq] = &e
		}
		if ev.Seq >= last {
			return errFound
		}
		return nil
	})
	if errors.Is(err, errFound) {
		err = nil
	}
	return found, res.LastSeq, err
}

// check re-reads origin o and returns its event and "" when it holds, or
// the first problem found: missing ancestor, missing event, unreadable, not
// a human instruction, text mismatch (for any of texts), not an ancestor,
// generation mismatch.
func (oc *originChecker) check(o session.Origin, texts []string) (*session.Event, string) {
	if err := session.ValidID(o.Session); err != nil {
		return nil, fmt.Sprintf("unreadable: the origin names session %q: %v", o.Session, err)
	}
	ev := oc.events[o.Session][o.Seq]
	if ev == nil {
		err := oc.readErr[o.Session]
		switch {
		case errors.Is(err, session.ErrNotFound):
			return nil, fmt.Sprintf("missing ancestor: session %s has no log", o.Session)
		case err != nil:
			return nil, fmt.Sprintf("unreadable: seq %d of %s: %v", o.Seq, o.Session, err)
		case o.Seq < 1:
			return nil, fmt.Sprintf("missing event: seq %d of %s (seqs start at 1)", o.Seq, o.Session)
		}
		return nil, fmt.Sprintf("missing event: %s has seqs 1..%d, no seq %d", o.Session, oc.lastSeq[o.Session], o.Seq)
	}
	if oc.answers[o] {
		// The person's answer, handed on with the instructions: the
		// answer tool's successful result, which holds no constraint.
		if !ev.IsAnswer() {
			return ev, fmt.Sprintf("not an answer of the person's: seq %d of %s is an event of type %s from source.kind %q, not a successful result of a question tool", o.Seq, o.Session, ev.Type, ev.Source.Kind)
		}
	} else if !oc.human[eventKey{o.Session, o.Seq}] {
		what := fmt.Sprintf("an event of type %s from source.kind %q", ev.Type, ev.Source.Kind)
		if strings.Contains(ev.Text, session.GraftMarker) {
			what += " carrying the graft marker"
		}
		return ev, fmt.Sprintf("not a human instruction: seq %d of %s is %s", o.Seq, o.Session, what)
	}
	held := oc.holds[eventKey{o.Session, o.Seq}]
	for _, t := range texts {
		ok, known := held[t]
		if !known {
			ok = anchors.Holds(ev.Text, t)
		}
		if !ok {
			return ev, fmt.Sprintf("text mismatch: seq %d of %s no longer contains the constraint; it reads %q", o.Seq, o.Session, clipText(ev.Text, 160))
		}
	}
	var names []string
	for _, a := range oc.chain {
		if a.Session == o.Session {
			if a.Generation != o.Generation {
				return ev, fmt.Sprintf("generation mismatch: %s is generation %d in the lineage of %s, the origin says %d", o.Session, a.Generation, oc.id, o.Generation)
			}
			return ev, ""
		}
		names = append(names, a.Session)
	}
	if oc.chainErr != nil {
		return ev, fmt.Sprintf("not an ancestor: %s is not among the ancestors of %s that could be read (%s): %v", o.Session, oc.id, strings.Join(names, " ← "), oc.chainErr)
	}
	return ev, fmt.Sprintf("not an ancestor: %s is not %s or one of its ancestors (%s)", o.Session, oc.id, strings.Join(names, " ← "))
}

// clipText is s on one line, cut to n runes with "…".
func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n-1]) + "…"
}

// CitedOrigin is one origin followed to the human words it names.
type CitedOrigin struct {
	Origin session.Origin `json:"origin"`
	// CitedBy says what cites it: "constraint: <text>", "first goal", or
	// for a human instruction asked about directly, the constraints it
	// yields.
	CitedBy []string       `json:"citedBy"`
	Event   *session.Event `json:"event,omitempty"`
	OK      bool           `json:"ok"`
	Problem string         `json:"problem,omitempty"`
}

// OriginRecall is graft recall --origin.
type OriginRecall struct {
	Session string         `json:"session"`
	Seq     int64          `json:"seq"`
	Event   *session.Event `json:"event"` // the event asked about
	// Cites is "itself" (a human instruction is an origin) or "tape" (an
	// event of a graft tape cites what its graft/origin hands down).
	Cites   string        `json:"cites"`
	Origins []CitedOrigin `json:"origins"`
}

// Failed counts the origins that could not be re-read as cited.
func (or *OriginRecall) Failed() int {
	n := 0
	for _, o := range or.Origins {
		if !o.OK {
			n++
		}
	}
	return n
}

// RecallOrigin follows the event at seq of id to the human words it comes
// from. The rule:
//
//   - a human instruction is an origin itself: {generation of id, id, seq};
//   - an event of a graft target's tape (seq 1, the graft/origin, up to its
//     tapeEvents) cites every origin that graft/origin hands down: each
//     inherited constraint's origin and also, the first goal, and the
//     instructions handed on with the person's answers (a question tool's
//     successful result, checked as such). Each is
//     re-read in its session (id itself or an ancestor, found by walking
//     the lineage up), checked as the audit checks it, and returned
//     oldest first;
//   - anything else cites no origin (ErrNoOrigin): tool output, assistant
//     text and injected user/messages (plugin, system, skill) are never
//     origins.
func (r *Reader) RecallOrigin(id string, seq int64) (*OriginRecall, error) {
	ev, _, err := r.Folds.Recall(context.Background(), id, seq)
	if err != nil {
		return nil, err
	}
	out := &OriginRecall{Session: id, Seq: seq, Event: ev, Origins: []CitedOrigin{}}
	if ev.IsHumanInstruction() {
		chain, err := r.Ancestors(id)
		if len(chain) == 0 {
			return nil, err
		}
		o := session.Origin{Generation: chain[0].Generation, Session: id, Seq: seq}
		cited := []string{}
		for _, c := range anchors.Extract(ev.Text) {
			cited = append(cited, "constraint: "+c)
		}
		out.Cites = "itself"
		out.Origins = append(out.Origins, CitedOrigin{Origin: o, CitedBy: cited, Event: ev, OK: true})
		return out, nil
	}
	origin, err := r.originOf(id)
	if err != nil {
		return nil, err
	}
	if origin == nil || seq > int64(max(origin.TapeEvents, 1)) {
		return nil, fmt.Errorf("%w: seq %d of %s is %s; only a human instruction or an event of a graft tape cites an origin", ErrNoOrigin, seq, id, describeKind(ev, origin))
	}
	out.Cites = "tape"
	texts := map[session.Origin][]string{}
	cites := map[session.Origin][]string{}
	answers := map[session.Origin]bool{}
	var order []session.Origin
	add := func(o session.Origin, why, text string) {
		if _, ok := cites[o]; !ok {
			order = append(order, o)
		}
		cites[o] = append(cites[o], why)
		if text != "" {
			texts[o] = append(texts[o], text)
		}
	}
	if in := origin.Inherit; in != nil {
		if in.FirstGoal != nil {
			add(in.FirstGoal.Origin, "first goal", "")
		}
		for _, c := range in.Constraints {
			for _, o := range append([]session.Origin{c.Origin}, c.Also...) {
				add(o, "constraint: "+c.Text, c.Text)
			}
		}
		for _, q := range in.Said {
			if q.Answer {
				add(q.Origin, "answer", "")
				answers[q.Origin] = true
				continue
			}
			add(q.Origin, "instruction", "")
		}
	}
	slices.SortFunc(order, func(a, b session.Origin) int {
		return cmp.Or(cmp.Compare(a.Generation, b.Generation), cmp.Compare(a.Session, b.Session), cmp.Compare(a.Seq, b.Seq))
	})
	oc := r.newOriginChecker(id, order, texts)
	oc.answers = answers
	for _, o := range order {
		oev, problem := oc.check(o, texts[o])
		out.Origins = append(out.Origins, CitedOrigin{Origin: o, CitedBy: cites[o], Event: oev, OK: problem == "", Problem: problem})
	}
	return out, nil
}

// describeKind names what an event that cites no origin is.
func describeKind(ev *session.Event, origin *session.Event) string {
	what := fmt.Sprintf("an event of type %s from source.kind %q", ev.Type, ev.Source.Kind)
	switch {
	case ev.Type == session.TypeUserMessage && strings.Contains(ev.Text, session.GraftMarker) && origin == nil:
		what += " carrying the graft marker in a session that is not a graft target (a pasted tape)"
	case ev.Type == session.TypeUserMessage && strings.Contains(ev.Text, session.GraftMarker):
		what += fmt.Sprintf(" carrying the graft marker after this target's tape (seq 1..%d)", origin.TapeEvents)
	case ev.Type == session.TypeUserMessage:
		what += " (injected text, never a human instruction)"
	}
	return what
}
