package fidelity

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
)

// A chain is one handoff on the way: the person handed the session on at
// the middle cut (the tape of its first generation, committed as a target
// whose log opens with its graft/origin and the tape's events), worked on
// in the new session to the end cut, and hands that one on. Its end tape is
// scored against the end cut's facts beside the tape of the same work with
// no handoff, so that what a handoff loses of the work before it shows: a
// tape is built from its own session's events, and what crosses a handoff
// is the previous tape's events and its graft/origin's inherit.

// ChainResult is one chain scored: the end cut's facts, carried by the
// tape of the work with no handoff (One), by the tape after a handoff at
// the middle cut (Two), and by the tape after two, at half the middle
// cut's lines and at the middle cut (Three): what handing on the things
// handed on loses.
type ChainResult struct {
	End, Mid        *Case
	One, Two, Three []bool
}

// ChainPairs are the cases that make a chain: each "<name>-end" with its
// "<name>-60" (a cut at about 60 % of the same transcript), in the order
// of cases.
func ChainPairs(cases []*Case) [][2]*Case {
	by := map[string]*Case{}
	for _, c := range cases {
		by[c.Name] = c
	}
	var out [][2]*Case
	for _, c := range cases {
		base, ok := strings.CutSuffix(c.Name, "-end")
		if !ok {
			continue
		}
		if mid := by[base+"-60"]; mid != nil && mid.Transcript == c.Transcript && mid.Cut.Lines > 0 && c.Cut.Lines > mid.Cut.Lines {
			out = append(out, [2]*Case{c, mid})
		}
	}
	return out
}

// Chain scores the chain of end and mid (ChainPairs): both cuts imported
// as Run imports one, the middle cut's events folded and built into the
// first generation's tape, and the second generation folded as its
// target's log holds it: a graft/origin with the inherit that tape hands
// on, the tape's events, then the events of the end cut past the middle
// one (seqs counted on). The chain of two handoffs cuts first at half the
// middle cut's lines, and hands the second generation's tape on at the
// middle cut in the same way.
func Chain(ctx context.Context, root, tmp string, end, mid *Case) (*ChainResult, error) {
	id, evs, err := importCut(ctx, root, tmp, end)
	if err != nil {
		return nil, err
	}
	m, err := cutEvents(ctx, root, tmp, mid, len(evs))
	if err != nil {
		return nil, fmt.Errorf("fidelity: chain %s: %w", end.Name, err)
	}
	early := *mid
	early.Name, early.Cut = mid.Name+"-half", Cut{Lines: mid.Cut.Lines / 2}
	e, err := cutEvents(ctx, root, tmp, &early, m)
	if err != nil {
		return nil, fmt.Errorf("fidelity: chain %s: %w", end.Name, err)
	}
	one, err := buildTape(id, evs)
	if err != nil {
		return nil, fmt.Errorf("fidelity: chain %s: %w", end.Name, err)
	}
	first, err := buildTape(id, evs[:m])
	if err != nil {
		return nil, fmt.Errorf("fidelity: chain %s: %w", mid.Name, err)
	}
	two, err := buildTape(id+".g2", handOn(id, evs[m-1].Seq, first, evs[m:]))
	if err != nil {
		return nil, fmt.Errorf("fidelity: chain %s after the handoff: %w", end.Name, err)
	}
	firstOfThree, err := buildTape(id, evs[:e])
	if err != nil {
		return nil, fmt.Errorf("fidelity: chain %s: %w", early.Name, err)
	}
	g2 := handOn(id, evs[e-1].Seq, firstOfThree, evs[e:m])
	second, err := buildTape(id+".g2", g2)
	if err != nil {
		return nil, fmt.Errorf("fidelity: chain %s after the first of two handoffs: %w", end.Name, err)
	}
	three, err := buildTape(id+".g3", handOn(id+".g2", g2[len(g2)-1].Seq, second, evs[m:]))
	if err != nil {
		return nil, fmt.Errorf("fidelity: chain %s after two handoffs: %w", end.Name, err)
	}
	r := &ChainResult{End: end, Mid: mid}
	a, b, c := Normalize(one.Text), Normalize(two.Text), Normalize(three.Text)
	for _, f := range end.Facts {
		r.One = append(r.One, Carries(a, f))
		r.Two = append(r.Two, Carries(b, f))
		r.Three = append(r.Three, Carries(c, f))
	}
	return r, nil
}

// cutEvents is how many events the cut c imports: more than none and
// fewer than of, the events of the cut after it.
func cutEvents(ctx context.Context, root, tmp string, c *Case, of int) (int, error) {
	_, pre, err := importCut(ctx, root, tmp, c)
	if err != nil {
		return 0, err
	}
	if len(pre) == 0 || len(pre) >= of {
		return 0, fmt.Errorf("the cut %s imports %d events, the cut after it %d", c.Name, len(pre), of)
	}
	return len(pre), nil
}

// handOn is the log of a target of prev, the tape of session parent cut
// at boundary: its graft/origin with the inherit prev hands on, prev's
// events, then rest, seqs counted on.
func handOn(parent string, boundary int64, prev *tape.Tape, rest []*session.Event) []*session.Event {
	log := []*session.Event{{Seq: 1, Type: session.TypeGraftOrigin, Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
		Txn: "txn-chain", Parent: parent, ParentBoundary: boundary, Generation: prev.Generation + 1, Inherit: &prev.Inherit}}
	for k := range prev.Events {
		e := prev.Events[k]
		e.Seq = int64(len(log) + 1)
		log = append(log, &e)
	}
	for _, ev := range rest {
		e := *ev
		e.Seq = int64(len(log) + 1)
		log = append(log, &e)
	}
	return log
}

// buildTape folds evs into the tape of session id at the default budget.
func buildTape(id string, evs []*session.Event) (*tape.Tape, error) {
	b := tape.NewBuilder(id)
	for _, ev := range evs {
		raw, err := json.Marshal(ev)
		if err != nil {
			return nil, err
		}
		if err := b.Add(ev, raw); err != nil {
			return nil, err
		}
	}
	return b.Build(tape.Options{}, nil)
}

// importCut imports c's transcript cut into a fresh graft home under tmp
// and returns the session's id and events.
func importCut(ctx context.Context, root, tmp string, c *Case) (string, []*session.Event, error) {
	dir, err := os.MkdirTemp(tmp, "fidelity-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(dir)
	p, err := c.CutTranscript(root)
	if err != nil {
		return "", nil, err
	}
	svc, id, err := importInto(ctx, dir, c, p)
	if err != nil {
		return "", nil, err
	}
	defer svc.Close()
	evs, err := sessionEvents(svc, id)
	if err != nil {
		return "", nil, fmt.Errorf("fidelity: %s: reading the imported session: %w", c.Name, err)
	}
	return id, evs, nil
}

// importInto writes c's transcript cut p under dir and imports it into a
// graft home there, named as a person's import names it: after the
// transcript's file (a host's session id), whose length the tape's
// citations pay for. The caller closes the service.
func importInto(ctx context.Context, dir string, c *Case, p *Prefix) (*graft.Service, string, error) {
	path := filepath.Join(dir, "transcript", filepath.Base(c.Transcript))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, "", err
	}
	var buf []byte
	for _, l := range p.Lines {
		buf = append(buf, l...)
	}
	if err := os.WriteFile(path, buf, 0o600); err != nil {
		return nil, "", err
	}
	host, err := hosts.ParseHost(c.Host)
	if err != nil {
		return nil, "", fmt.Errorf("fidelity: %s: %w", c.Name, err)
	}
	id, err := importer.DefaultID(path)
	if err != nil {
		return nil, "", fmt.Errorf("fidelity: %s: %w", c.Name, err)
	}
	svc, err := graft.Open(filepath.Join(dir, "home"), graft.Options{})
	if err != nil {
		return nil, "", err
	}
	if _, err := svc.Import(ctx, host, path, graft.ImportOptions{ID: id}); err != nil {
		svc.Close()
		return nil, "", fmt.Errorf("fidelity: %s: import: %w", c.Name, err)
	}
	return svc, id, nil
}

// sessionEvents are the events of session id, in seq order.
func sessionEvents(svc *graft.Service, id string) ([]*session.Event, error) {
	var evs []*session.Event
	_, err := svc.Events(id, 0, 0, func(ev *session.Event, _ []byte) error {
		e := *ev
		evs = append(evs, &e)
		return nil
	})
	return evs, err
}

// ChainTable prints the chains: per tuning chain its facts and how many
// each tape carries, the held-out ones by their totals alone (README.md
// of the truth set), then the totals and per category.
func ChainTable(rs []*ChainResult) string {
	var b strings.Builder
	b.WriteString("| chain (end cut; handoffs at the 60 % cut, and at half its lines and at it) | facts | no handoff | after one handoff | after two |\n|---|---|---|---|---|\n")
	type tot struct{ n, one, two, three int }
	all, tuning, held := tot{}, tot{}, tot{}
	cats := map[string]*tot{}
	for _, r := range rs {
		t := tot{n: len(r.One)}
		for k, f := range r.End.Facts {
			c := cats[f.Category]
			if c == nil {
				c = &tot{}
				cats[f.Category] = c
			}
			c.n++
			if r.One[k] {
				t.one++
				c.one++
			}
			if r.Two[k] {
				t.two++
				c.two++
			}
			if r.Three[k] {
				t.three++
				c.three++
			}
		}
		for _, s := range []*tot{&all, map[bool]*tot{true: &held, false: &tuning}[r.End.HeldOut]} {
			s.n, s.one, s.two, s.three = s.n+t.n, s.one+t.one, s.two+t.two, s.three+t.three
		}
		if !r.End.HeldOut {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", r.End.Name, t.n, t.one, t.two, t.three)
		}
	}
	pct := func(n, d int) string {
		if d == 0 {
			return "–"
		}
		return fmt.Sprintf("%.0f %% (%d)", 100*float64(n)/float64(d), n)
	}
	row := func(name string, t tot) {
		fmt.Fprintf(&b, "| **%s** | %d | %s | %s | %s |\n", name, t.n, pct(t.one, t.n), pct(t.two, t.n), pct(t.three, t.n))
	}
	row("tuning", tuning)
	row("held out", held)
	row("all", all)
	b.WriteString("\n| category | facts | no handoff | after one handoff | after two |\n|---|---|---|---|---|\n")
	names := make([]string, 0, len(cats))
	for c := range cats {
		names = append(names, c)
	}
	sort.Slice(names, func(i, j int) bool { return categoryRank(names[i]) < categoryRank(names[j]) })
	for _, c := range names {
		t := cats[c]
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", c, t.n, pct(t.one, t.n), pct(t.two, t.n), pct(t.three, t.n))
	}
	return b.String()
}

// categoryRank orders categories as the other tables do.
func categoryRank(c string) int {
	for k, name := range Categories {
		if name == c {
			return k
		}
	}
	return len(Categories)
}
