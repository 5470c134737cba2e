package ancestry_test

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/ancestry"
	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/foldcache"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

func human(text string) session.Event {
	return session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: text}
}

func origin(txn, parent string, gen int) session.Event {
	return session.Event{Type: session.TypeGraftOrigin, Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
		Txn: txn, Parent: parent, ParentBoundary: 1, Generation: gen, TapeHash: "sha256:00"}
}

func retired(txn, target string) session.Event {
	return session.Event{Type: session.TypeGraftRetired, Source: session.Source{Kind: session.KindPlugin, Name: "graft"}, Txn: txn, Target: target}
}

// openStore opens a store in a fresh directory, and must fails t on an
// error.
func openStore(t *testing.T) (*session.Store, func(error)) {
	t.Helper()
	st, err := session.OpenStore(vfs.Default, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return st, func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// chain writes s (generation 1) ← s.g2 ← s.g3 as the protocol leaves
// them: each target opens with its graft/origin, each source ends with
// graft/retired naming its target.
func chain(t *testing.T) (*ancestry.Reader, *session.Store) {
	t.Helper()
	st, must := openStore(t)
	must(st.Create("s", []session.Event{human("Build the pager. Never touch vendor/.")}))
	must(st.Create("s.g2", []session.Event{origin("txn-1", "s", 2), human("Go on.")}))
	_, err := st.AppendMark("s", retired("txn-1", "s.g2"))
	must(err)
	must(st.Create("s.g3", []session.Event{origin("txn-2", "s.g2", 3), human("Ship it.")}))
	_, err = st.AppendMark("s.g2", retired("txn-2", "s.g3"))
	must(err)
	return &ancestry.Reader{Store: st}, st
}

// Ancestors and Parent read the chain from the logs alone (no catalog).
func TestAncestorsFromTheLogs(t *testing.T) {
	r, _ := chain(t)
	as, err := r.Ancestors("s.g3")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range as {
		got = append(got, fmt.Sprintf("%s/%d", a.Session, a.Generation))
	}
	if want := "[s.g3/3 s.g2/2 s/1]"; fmt.Sprint(got) != want {
		t.Fatalf("ancestors %v, want %s", got, want)
	}
	if p, err := r.Parent("s.g2"); err != nil || p != "s" {
		t.Fatalf("parent of s.g2: %q, %v", p, err)
	}
	if p, err := r.Parent("s"); err != nil || p != "" {
		t.Fatalf("parent of a generation-1 session: %q, %v", p, err)
	}
	if _, err := r.Ancestors("../x"); err == nil {
		t.Fatal("an invalid id was read")
	}
}

// A chain whose parent log is gone is broken, and says where; the part read
// so far is returned.
func TestBrokenLineage(t *testing.T) {
	r, st := chain(t)
	if err := os.Remove(st.Path("s")); err != nil {
		t.Fatal(err)
	}
	as, err := r.Ancestors("s.g3")
	if !errors.Is(err, ancestry.ErrBrokenLineage) || len(as) != 2 || !strings.Contains(err.Error(), "names parent s") {
		t.Fatalf("ancestors %v, err %v: want the two read and ErrBrokenLineage naming s", as, err)
	}
}

// Head follows the live targets down to the session to continue in; a
// live target whose log is gone leaves the head at the last one with a
// log, and the problem names the missing one.
func TestHead(t *testing.T) {
	r, st := chain(t)
	if h, problem := r.Head("s"); h != "s.g3" || problem != "" {
		t.Fatalf("head of s: %q (%q), want s.g3", h, problem)
	}
	if h, _ := r.Head("s.g3"); h != "s.g3" {
		t.Fatalf("head of s.g3: %q", h)
	}
	if err := os.Remove(st.Path("s.g3")); err != nil {
		t.Fatal(err)
	}
	if h, problem := r.Head("s"); h != "s.g2" || !strings.Contains(problem, "s.g3") || !strings.Contains(problem, "no log") {
		t.Fatalf("head of s with s.g3's log gone: %q (%q)", h, problem)
	}
}

// The constraints of the audit and recall tests: said in generation 1, at
// seq 1 and seq 2 of s.
const (
	vendor  = "Never touch vendor/."
	secrets = "Never log secrets."
)

func at(gen int, sess string, seq int64) session.Origin {
	return session.Origin{Generation: gen, Session: sess, Seq: seq}
}

func said(text string, o session.Origin, also ...session.Origin) session.Constraint {
	return session.Constraint{Text: text, Origin: o, Also: also}
}

func inheriting(ev session.Event, cs []session.Constraint) session.Event {
	ev.Inherit = &session.Inherited{Constraints: cs}
	return ev
}

// handedDown is what the grafts of generations hand down by default: s.g2
// inherits both constraints of s; s.g3 inherits them from s.g2, which said
// secrets again at its seq 2 (an also).
var handedDown = struct{ g2, g3 []session.Constraint }{
	g2: []session.Constraint{said(vendor, at(1, "s", 1)), said(secrets, at(1, "s", 2))},
	g3: []session.Constraint{said(vendor, at(1, "s", 1)), said(secrets, at(1, "s", 2), at(2, "s.g2", 2))},
}

// generations writes s (generation 1) ← s.g2 ← s.g3 as chain does, with
// constraints said at seqs 1 and 2 of s, secrets said again at seq 2 of
// s.g2, and each graft/origin inheriting what g2 and g3 list; the Reader
// can fold (Audit, RecallOrigin). Each of s and s.g2 ends at seq 3 (its
// graft/retired).
func generations(t *testing.T, g2, g3 []session.Constraint) (*ancestry.Reader, *session.Store) {
	t.Helper()
	st, must := openStore(t)
	must(st.Create("s", []session.Event{human("Build the pager. " + vendor), human(secrets)}))
	must(st.Create("s.g2", []session.Event{inheriting(origin("txn-1", "s", 2), g2), human("Go on. " + secrets)}))
	_, err := st.AppendMark("s", retired("txn-1", "s.g2"))
	must(err)
	must(st.Create("s.g3", []session.Event{inheriting(origin("txn-2", "s.g2", 3), g3), human("Ship it.")}))
	_, err = st.AppendMark("s.g2", retired("txn-2", "s.g3"))
	must(err)
	home := t.TempDir()
	cat := func() catalog.Opener { return catalog.Files(home, 5*time.Second) }
	return &ancestry.Reader{Store: st, Catalog: cat, Folds: &foldcache.Cache{Home: home, Store: st, Catalog: cat}}, st
}

// editLog replaces old with new in id's log, as a hand edit would.
func editLog(t *testing.T, st *session.Store, id, old, new string) {
	t.Helper()
	b, err := os.ReadFile(st.Path(id))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), old) != 1 {
		t.Fatalf("%s's log holds %q %d times, want once", id, old, strings.Count(string(b), old))
	}
	if err := os.WriteFile(st.Path(id), []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func audit(t *testing.T, r *ancestry.Reader, id string) *ancestry.AuditReport {
	t.Helper()
	rep, err := r.Audit(id)
	if err != nil {
		t.Fatalf("audit of %s could not run: %v", id, err)
	}
	return rep
}

func ok(o session.Origin) ancestry.AuditCheck { return ancestry.AuditCheck{Origin: o, OK: true} }

func failed(o session.Origin, problem string) ancestry.AuditCheck {
	return ancestry.AuditCheck{Origin: o, Problem: problem}
}

func audited(c session.Constraint, checks ...ancestry.AuditCheck) ancestry.AuditedConstraint {
	also := c.Also
	if also == nil {
		also = []session.Origin{}
	}
	return ancestry.AuditedConstraint{Text: c.Text, Origin: c.Origin, Also: also, Checks: checks}
}

func wantConstraints(t *testing.T, rep *ancestry.AuditReport, want ...ancestry.AuditedConstraint) {
	t.Helper()
	if !reflect.DeepEqual(rep.Constraints, want) {
		t.Fatalf("audit of %s:\n got  %+v\n want %+v", rep.Session, rep.Constraints, want)
	}
}

// wantFailed checks that rep failed, and that Err names each problem (as
// "constraint %q, origin %s: %s") and nothing else.
func wantFailed(t *testing.T, rep *ancestry.AuditReport, problems ...string) {
	t.Helper()
	err := rep.Err()
	if rep.OK || !errors.Is(err, ancestry.ErrAuditFailed) {
		t.Fatalf("audit of %s: ok %t, err %v; want a failed audit", rep.Session, rep.OK, err)
	}
	want := fmt.Sprintf("graft: audit failed: %s: %d origin check(s) failed: %s", rep.Session, len(problems), strings.Join(problems, "; "))
	if err.Error() != want {
		t.Fatalf("audit of %s:\n err  %v\n want %s", rep.Session, err, want)
	}
}

// auditHolds audits id, of generation gen, whose two handed-down
// constraints (vendor from s seq 1; secrets from s seq 2, said again at
// s.g2 seq 2) all hold, and returns the report.
func auditHolds(t *testing.T, r *ancestry.Reader, id string, gen int) *ancestry.AuditReport {
	t.Helper()
	rep := audit(t, r, id)
	if rep.Session != id || rep.Generation != gen {
		t.Fatalf("audit of %s, generation %d; want %s, %d", rep.Session, rep.Generation, id, gen)
	}
	wantConstraints(t, rep,
		audited(said(vendor, at(1, "s", 1)), ok(at(1, "s", 1))),
		audited(said(secrets, at(1, "s", 2), at(2, "s.g2", 2)), ok(at(1, "s", 2)), ok(at(2, "s.g2", 2))),
	)
	if !rep.OK || rep.Err() != nil {
		t.Fatalf("audit of %s: ok %t, err %v; want it to pass", id, rep.OK, rep.Err())
	}
	return rep
}

// A target that inherits constraints with their origins: each origin is
// re-read in generation 1's log (or the target's own, for the also) and
// holds; the report says so, and that no graft recorded what it relies on.
func TestAuditInheritedConstraintsHold(t *testing.T) {
	r, _ := generations(t, handedDown.g2, handedDown.g3)
	// s.g2 said secrets again at its seq 2: the fold adds it as an also,
	// checked in s.g2's own log.
	rep := auditHolds(t, r, "s.g2", 2)
	if rep.TamperCheck != ancestry.TamperNotAvailable || len(rep.Relied) != 0 ||
		rep.TamperNote != "s.g2's graft/origin (txn txn-1) was written by a graft that recorded nothing it relies on (no relies): only the constraint texts are checked" {
		t.Fatalf("tamper check %q (%q), relied %v", rep.TamperCheck, rep.TamperNote, rep.Relied)
	}
}

// An origin whose event no longer holds the constraint fails the audit,
// naming the origin (generation, session, seq) and what the event reads:
// whether the source log's line was edited or the inherited text changed.
func TestAuditChangedOrigin(t *testing.T) {
	t.Run("the source log's line edited", func(t *testing.T) {
		r, st := generations(t, handedDown.g2, handedDown.g3)
		editLog(t, st, "s", vendor, "Touch vendor/ freely.")
		rep := audit(t, r, "s.g2")
		problem := `text mismatch: seq 1 of s no longer contains the constraint; it reads "Build the pager. Touch vendor/ freely."`
		wantConstraints(t, rep,
			audited(said(vendor, at(1, "s", 1)), failed(at(1, "s", 1), problem)),
			audited(said(secrets, at(1, "s", 2), at(2, "s.g2", 2)), ok(at(1, "s", 2)), ok(at(2, "s.g2", 2))),
		)
		wantFailed(t, rep, `constraint "Never touch vendor/.", origin gen 1 s seq=1: `+problem)
	})
	t.Run("the inherited text changed", func(t *testing.T) {
		g2 := []session.Constraint{said("Never touch third_party/.", at(1, "s", 1)), said(secrets, at(1, "s", 2))}
		r, _ := generations(t, g2, handedDown.g3)
		rep := audit(t, r, "s.g2")
		problem := `text mismatch: seq 1 of s no longer contains the constraint; it reads "Build the pager. Never touch vendor/."`
		wantConstraints(t, rep,
			audited(g2[0], failed(at(1, "s", 1), problem)),
			audited(said(secrets, at(1, "s", 2), at(2, "s.g2", 2)), ok(at(1, "s", 2)), ok(at(2, "s.g2", 2))),
		)
		wantFailed(t, rep, `constraint "Never touch third_party/.", origin gen 1 s seq=1: `+problem)
	})
}

// An origin that cannot be re-read (a seq the source session does not
// have, a seq below 1, a source session whose log is gone) is a failed
// check with its reason, never skipped: an also included.
func TestAuditMissingOrigin(t *testing.T) {
	t.Run("no such seq", func(t *testing.T) {
		g2 := []session.Constraint{said(vendor, at(1, "s", 1), at(1, "s", 9)), said(secrets, at(1, "s", 0))}
		r, _ := generations(t, g2, handedDown.g3)
		rep := audit(t, r, "s.g2")
		noSeq9 := "missing event: s has seqs 1..3, no seq 9"
		noSeq0 := "missing event: seq 0 of s (seqs start at 1)"
		wantConstraints(t, rep,
			audited(g2[0], ok(at(1, "s", 1)), failed(at(1, "s", 9), noSeq9)),
			audited(said(secrets, at(1, "s", 0), at(2, "s.g2", 2)), failed(at(1, "s", 0), noSeq0), ok(at(2, "s.g2", 2))),
		)
		wantFailed(t, rep,
			`constraint "Never touch vendor/.", origin gen 1 s seq=9: `+noSeq9,
			`constraint "Never log secrets.", origin gen 1 s seq=0: `+noSeq0)
	})
	t.Run("the source session's log is gone", func(t *testing.T) {
		r, st := generations(t, handedDown.g2, handedDown.g3)
		if err := os.Remove(st.Path("s")); err != nil {
			t.Fatal(err)
		}
		rep := audit(t, r, "s.g3")
		gone := "missing ancestor: session s has no log"
		wantConstraints(t, rep,
			audited(said(vendor, at(1, "s", 1)), failed(at(1, "s", 1), gone)),
			audited(said(secrets, at(1, "s", 2), at(2, "s.g2", 2)), failed(at(1, "s", 2), gone), ok(at(2, "s.g2", 2))),
		)
		wantFailed(t, rep,
			`constraint "Never touch vendor/.", origin gen 1 s seq=1: `+gone,
			`constraint "Never log secrets.", origin gen 1 s seq=2: `+gone)
	})
}

// A constraint first said in generation 1 and inherited through generation
// 2 into 3 is checked in generation 1's log: an edit there fails s.g3's
// audit at s's seq, while s.g2's own saying of it (the also) still holds.
// The origin must also name the session an ancestor of s.g3, at its
// generation.
func TestAuditThroughThreeGenerations(t *testing.T) {
	r, st := generations(t, handedDown.g2, handedDown.g3)
	auditHolds(t, r, "s.g3", 3)

	editLog(t, st, "s", `"text":"`+secrets+`"`, `"text":"Log what helps."`)
	rep := audit(t, r, "s.g3")
	problem := `text mismatch: seq 2 of s no longer contains the constraint; it reads "Log what helps."`
	wantConstraints(t, rep,
		audited(said(vendor, at(1, "s", 1)), ok(at(1, "s", 1))),
		audited(said(secrets, at(1, "s", 2), at(2, "s.g2", 2)), failed(at(1, "s", 2), problem), ok(at(2, "s.g2", 2))),
	)
	wantFailed(t, rep, `constraint "Never log secrets.", origin gen 1 s seq=2: `+problem)

	t.Run("an origin at the wrong generation or outside the lineage", func(t *testing.T) {
		g3 := []session.Constraint{said(vendor, at(2, "s", 1)), said(secrets, at(1, "other", 1))}
		r, st := generations(t, handedDown.g2, g3)
		if err := st.Create("other", []session.Event{human(secrets)}); err != nil {
			t.Fatal(err)
		}
		rep := audit(t, r, "s.g3")
		wrongGen := "generation mismatch: s is generation 1 in the lineage of s.g3, the origin says 2"
		notAncestor := "not an ancestor: other is not s.g3 or one of its ancestors (s.g3 ← s.g2 ← s)"
		wantConstraints(t, rep,
			audited(g3[0], failed(at(2, "s", 1), wrongGen)),
			audited(g3[1], failed(at(1, "other", 1), notAncestor)),
		)
		wantFailed(t, rep,
			`constraint "Never touch vendor/.", origin gen 2 s seq=1: `+wrongGen,
			`constraint "Never log secrets.", origin gen 1 other seq=1: `+notAncestor)
	})
}

// cited is a CitedOrigin without its event, and the event's text.
type cited struct {
	Origin  session.Origin
	CitedBy []string
	Text    string
	OK      bool
	Problem string
}

func citedOrigins(rec *ancestry.OriginRecall) []cited {
	var out []cited
	for _, o := range rec.Origins {
		c := cited{Origin: o.Origin, CitedBy: o.CitedBy, OK: o.OK, Problem: o.Problem}
		if o.Event != nil {
			c.Text = o.Event.Text
		}
		out = append(out, c)
	}
	return out
}

// RecallOrigin: a human instruction is its own origin; the graft/origin of
// a target cites every origin it hands down, each re-read (oldest first),
// and one that is missing counts in Failed; a seq the session lacks is an
// error, and so is an event that cites nothing.
func TestRecallOrigin(t *testing.T) {
	r, _ := generations(t, handedDown.g2, handedDown.g3)

	rec, err := r.RecallOrigin("s", 2)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Session != "s" || rec.Seq != 2 || rec.Event == nil || rec.Event.Seq != 2 || rec.Event.Text != secrets || rec.Cites != "itself" || rec.Failed() != 0 {
		t.Fatalf("recall of s seq 2: %+v (failed %d)", rec, rec.Failed())
	}
	if got, want := citedOrigins(rec), []cited{{Origin: at(1, "s", 2), CitedBy: []string{"constraint: " + secrets}, Text: secrets, OK: true}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("recall of s seq 2:\n got  %+v\n want %+v", got, want)
	}

	rec, err = r.RecallOrigin("s.g3", 1)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Event == nil || rec.Event.Type != session.TypeGraftOrigin || rec.Cites != "tape" || rec.Failed() != 0 {
		t.Fatalf("recall of s.g3 seq 1: %+v (failed %d)", rec, rec.Failed())
	}
	want := []cited{
		{Origin: at(1, "s", 1), CitedBy: []string{"constraint: " + vendor}, Text: "Build the pager. " + vendor, OK: true},
		{Origin: at(1, "s", 2), CitedBy: []string{"constraint: " + secrets}, Text: secrets, OK: true},
		{Origin: at(2, "s.g2", 2), CitedBy: []string{"constraint: " + secrets}, Text: "Go on. " + secrets, OK: true},
	}
	if got := citedOrigins(rec); !reflect.DeepEqual(got, want) {
		t.Fatalf("recall of s.g3 seq 1:\n got  %+v\n want %+v", got, want)
	}

	t.Run("a cited seq that is missing or no longer holds", func(t *testing.T) {
		g3 := []session.Constraint{said(vendor, at(1, "s", 9), at(1, "s", 1)), said("Never skip the tests.", at(1, "s", 2))}
		r, _ := generations(t, handedDown.g2, g3)
		rec, err := r.RecallOrigin("s.g3", 1)
		if err != nil {
			t.Fatal(err)
		}
		// Oldest first, whatever the order the graft/origin lists them in.
		want := []cited{
			{Origin: at(1, "s", 1), CitedBy: []string{"constraint: " + vendor}, Text: "Build the pager. " + vendor, OK: true},
			{Origin: at(1, "s", 2), CitedBy: []string{"constraint: Never skip the tests."}, Text: secrets,
				Problem: `text mismatch: seq 2 of s no longer contains the constraint; it reads "Never log secrets."`},
			{Origin: at(1, "s", 9), CitedBy: []string{"constraint: " + vendor}, Problem: "missing event: s has seqs 1..3, no seq 9"},
		}
		if got := citedOrigins(rec); !reflect.DeepEqual(got, want) || rec.Failed() != 2 {
			t.Fatalf("recall of s.g3 seq 1 (failed %d):\n got  %+v\n want %+v", rec.Failed(), got, want)
		}
	})

	if rec, err := r.RecallOrigin("s", 9); !errors.Is(err, foldcache.ErrNoSuchSeq) || rec != nil ||
		err.Error() != "graft: no such seq: s has seqs 1..3, not 9" {
		t.Fatalf("recall of s seq 9: %+v, %v; want ErrNoSuchSeq", rec, err)
	}
	if rec, err := r.RecallOrigin("s", 3); !errors.Is(err, ancestry.ErrNoOrigin) || rec != nil ||
		!strings.Contains(err.Error(), "seq 3 of s is an event of type graft/retired") {
		t.Fatalf("recall of s seq 3 (its graft/retired): %+v, %v; want ErrNoOrigin", rec, err)
	}
	// A target's events past its tape (seq 1 here) cite nothing either.
	if rec, err := r.RecallOrigin("s.g2", 3); !errors.Is(err, ancestry.ErrNoOrigin) || rec != nil ||
		!strings.Contains(err.Error(), "seq 3 of s.g2 is an event of type graft/retired") {
		t.Fatalf("recall of s.g2 seq 3 (its graft/retired): %+v, %v; want ErrNoOrigin", rec, err)
	}
}
