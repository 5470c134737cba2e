package fidelity

import (
	"fmt"
	"slices"
	"strings"
)

// Tally counts facts and, per candidate, the ones carried.
type Tally struct {
	Facts   int
	Carried map[string]int
	// Scored is how many facts each candidate was scored on (the host
	// summary only on compactBoundary cuts).
	Scored map[string]int
}

func newTally() *Tally { return &Tally{Carried: map[string]int{}, Scored: map[string]int{}} }

// Recall of a candidate: carried ÷ scored, and whether it was scored.
func (t *Tally) Recall(cand string) (float64, bool) {
	n := t.Scored[cand]
	if n == 0 {
		return 0, false
	}
	return float64(t.Carried[cand]) / float64(n), true
}

func (t *Tally) add(r *Result, k int) {
	t.Facts++
	for cand, got := range r.Carried {
		t.Scored[cand]++
		if got[k] {
			t.Carried[cand]++
		}
	}
}

// Totals tallies results overall and per category; only compactBoundary
// cuts when compactOnly.
func Totals(results []*Result, compactOnly bool) (all *Tally, byCat map[string]*Tally) {
	return TotalsOf(results, func(r *Result) bool { return !compactOnly || r.Case.Cut.CompactBoundary > 0 })
}

// TotalsOf tallies the results keep keeps, overall and per category.
func TotalsOf(results []*Result, keep func(*Result) bool) (all *Tally, byCat map[string]*Tally) {
	all, byCat = newTally(), map[string]*Tally{}
	for _, c := range Categories {
		byCat[c] = newTally()
	}
	for _, r := range results {
		if !keep(r) {
			continue
		}
		for k, f := range r.Case.Facts {
			all.add(r, k)
			byCat[f.Category].add(r, k)
		}
	}
	return all, byCat
}

func pct(t *Tally, cand string) string {
	r, ok := t.Recall(cand)
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", 100*r)
}

func everyCut(*Result) bool       { return true }
func atCompaction(r *Result) bool { return r.Case.Cut.CompactBoundary > 0 }
func heldOut(r *Result) bool      { return r.Case.HeldOut }
func tuning(r *Result) bool       { return !r.Case.HeldOut }

// caseRows are the rows of the tables that split the cases: all of them,
// the tuning ones and the held-out ones.
var caseRows = []struct {
	name string
	keep func(*Result) bool
}{{"all", everyCut}, {"tuning", tuning}, {"held out", heldOut}}

// Tables renders the per-category tables (all cuts; compaction cuts;
// held-out cases) and the per-session table, as Markdown.
func Tables(results []*Result) string {
	var b strings.Builder
	cases, facts := len(results), 0
	for _, r := range results {
		facts += len(r.Case.Facts)
	}
	fmt.Fprintf(&b, "Truth set: %d handoffs, %d facts.\n\n", cases, facts)
	catTable := func(title string, keep func(*Result) bool, cands []string) {
		all, byCat := TotalsOf(results, keep)
		if all.Facts == 0 {
			return
		}
		fmt.Fprintf(&b, "%s\n\n| category | facts |", title)
		for _, c := range cands {
			fmt.Fprintf(&b, " %s |", c)
		}
		b.WriteString("\n|---|---|" + strings.Repeat("---|", len(cands)) + "\n")
		for _, cat := range Categories {
			t := byCat[cat]
			if t.Facts == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d |", cat, t.Facts)
			for _, c := range cands {
				fmt.Fprintf(&b, " %s |", pct(t, c))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "| **all** | %d |", all.Facts)
		for _, c := range cands {
			fmt.Fprintf(&b, " **%s** |", pct(all, c))
		}
		b.WriteString("\n\n")
	}
	catTable("All cuts (graft's tape, the hook excerpt, the conversation tail, the messages tail):", everyCut, []string{Graft, Excerpt, Tail, Talk})
	catTable("Cuts at a host compaction (the same facts, and the host's own summary):", atCompaction, []string{Graft, Excerpt, Tail, Talk, Summary})
	held := 0
	for _, r := range results {
		if r.Case.HeldOut {
			held++
		}
	}
	catTable(fmt.Sprintf("Held-out cases (%d handoffs written blind and kept out of the tape's work; the project's own check on unseen sessions asks 90 %%):", held), heldOut, []string{Graft, Excerpt, Tail, Talk})
	b.WriteString("Per host:\n\n| host | handoffs | facts | graft | excerpt | tail | talk |\n|---|---|---|---|---|---|---|\n")
	for _, h := range caseHosts {
		n := 0
		for _, r := range results {
			if r.Case.Host == h {
				n++
			}
		}
		if n == 0 {
			continue
		}
		all, _ := TotalsOf(results, func(r *Result) bool { return r.Case.Host == h })
		fmt.Fprintf(&b, "| %s | %d | %d | **%s** | %s | %s | %s |\n", h, n, all.Facts, pct(all, Graft), pct(all, Excerpt), pct(all, Tail), pct(all, Talk))
	}
	b.WriteString(rereadTable(results))
	b.WriteString(baselineOnlyTable(results))
	b.WriteString(partialTable(results))
	b.WriteString("\nPer handoff:\n\n| handoff | host | cut | facts | tape chars | graft | excerpt | tail | talk | summary |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		t := newTally()
		for k := range r.Case.Facts {
			t.add(r, k)
		}
		cut := fmt.Sprintf("line %d", r.Case.Cut.Lines)
		if r.Case.Cut.CompactBoundary > 0 {
			cut = fmt.Sprintf("compaction %d", r.Case.Cut.CompactBoundary)
		}
		name := r.Case.Name
		if r.Case.HeldOut {
			name += " (held out)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s | %s | %s | %s | %s |\n", name, r.Case.Host, cut, t.Facts, r.TapeChars,
			pct(t, Graft), pct(t, Excerpt), pct(t, Tail), pct(t, Talk), pct(t, Summary))
	}
	return b.String()
}

// rereadTable is the table of the recall of each candidate when the facts
// the host gives the next window itself (Result.Reread) count as carried,
// for all cases, the tuning and the held-out ones; "" when there are none.
func rereadTable(results []*Result) string {
	cands := []string{Graft, Excerpt, Tail, Talk}
	with := make([]*Result, len(results))
	reread := map[*Result]int{}
	for i, r := range results {
		w := *r
		w.Carried = map[string][]bool{}
		for _, c := range cands {
			got := slices.Clone(r.Carried[c])
			for k, again := range r.Reread {
				got[k] = got[k] || again
			}
			w.Carried[c] = got
		}
		for _, again := range r.Reread {
			if again {
				reread[&w]++
			}
		}
		with[i] = &w
	}
	if len(reread) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nWith what the host reads again (the instruction files a host writes into its log, Codex's AGENTS.md, which it reads again when the export resumes; counted as carried for every candidate):\n\n")
	b.WriteString("| cases | facts | the host reads again | graft | excerpt | tail | talk |\n|---|---|---|---|---|---|---|\n")
	for _, row := range caseRows {
		all, _ := TotalsOf(with, row.keep)
		if all.Facts == 0 {
			continue
		}
		n := 0
		for _, w := range with {
			if row.keep(w) {
				n += reread[w]
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | **%s** |", row.name, all.Facts, n, pct(all, Graft))
		for _, c := range cands[1:] {
			fmt.Fprintf(&b, " %s |", pct(all, c))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// baselineOnlyTable counts the facts graft's tape misses and a baseline
// carries, per baseline and for any of them, over all cuts, the tuning and
// the held-out ones: what a handoff simpler than the tape keeps at the
// same budget and the tape does not. A baseline counts only where it was
// scored (the host summary at a compaction; "–" where it never was).
func baselineOnlyTable(results []*Result) string {
	cands := []string{Excerpt, Tail, Talk, Summary}
	var b strings.Builder
	b.WriteString("\nWhat a baseline carries and graft's tape misses (facts; the tape leads per category, not per fact):\n\n")
	b.WriteString("| cases | graft misses | the excerpt has | the tail has | the talk has | the summary has | one of them has |\n|---|---|---|---|---|---|---|\n")
	for _, row := range caseRows {
		misses, anyHas := 0, 0
		only, scored := map[string]int{}, map[string]bool{}
		for _, r := range results {
			if !row.keep(r) {
				continue
			}
			for _, c := range cands {
				if _, ok := r.Carried[c]; ok {
					scored[c] = true
				}
			}
		}
		eachMiss(results, row.keep, func(r *Result, k int) {
			misses++
			has := false
			for _, c := range cands {
				if got := r.Carried[c]; got != nil && got[k] {
					only[c]++
					has = true
				}
			}
			if has {
				anyHas++
			}
		})
		if len(scored) == 0 {
			continue // no case in the row
		}
		fmt.Fprintf(&b, "| %s | %d |", row.name, misses)
		for _, c := range cands {
			if !scored[c] {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(&b, " %d |", only[c])
		}
		fmt.Fprintf(&b, " %d |\n", anyHas)
	}
	return b.String()
}

// partialTable counts the facts graft's tape misses by how much of their
// evidence it holds, over all cuts, the tuning and the held-out ones:
// part of it (Result.Partial: the tape names the topic and lacks a
// detail, an error's words, a number, a second name) or none of it.
func partialTable(results []*Result) string {
	var b strings.Builder
	b.WriteString("\nHow much of a missed fact's evidence the tape holds (a fact is carried when the tape holds every string of its evidence):\n\n")
	b.WriteString("| cases | graft misses | the tape holds part of the evidence | the tape holds none of it |\n|---|---|---|---|\n")
	for _, row := range caseRows {
		misses, part := 0, 0
		seen := eachMiss(results, row.keep, func(r *Result, k int) {
			misses++
			if k < len(r.Partial) && r.Partial[k] {
				part++
			}
		})
		if seen {
			fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", row.name, misses, part, misses-part)
		}
	}
	return b.String()
}

// eachMiss calls fn with each fact graft's tape misses (its result and
// index) in the results keep keeps, and reports whether keep kept any.
func eachMiss(results []*Result, keep func(*Result) bool, fn func(r *Result, k int)) (seen bool) {
	for _, r := range results {
		if !keep(r) {
			continue
		}
		seen = true
		for k := range r.Case.Facts {
			if !r.Carried[Graft][k] {
				fn(r, k)
			}
		}
	}
	return seen
}

// Missed lists, per case, the facts graft's tape did not carry, each
// with where its evidence is in the imported session (Where).
func Missed(results []*Result) string {
	var b strings.Builder
	eachMiss(results, everyCut, func(r *Result, k int) {
		f := r.Case.Facts[k]
		fmt.Fprintf(&b, "%s %s [%s] %s — %q", r.Case.Name, f.ID, f.Category, f.Fact, f.Evidence)
		if k < len(r.Where) {
			fmt.Fprintf(&b, " (in %s)", r.Where[k])
		}
		b.WriteByte('\n')
	})
	return b.String()
}

// Lead checks the goal of issue 23 on results: graft's overall recall is
// at least min, its recall on the held-out cases at least minHeld, and in
// every category graft is ahead of every baseline it was scored beside
// (a tie counts as ahead only at 100 %), over all cuts, the compaction
// cuts and the held-out cases. It returns what fails, one line each.
func Lead(results []*Result, min, minHeld float64) []string {
	var out []string
	all, _ := Totals(results, false)
	if r, _ := all.Recall(Graft); r < min {
		out = append(out, fmt.Sprintf("graft carries %.1f %% of all facts: want at least %.0f %%", 100*r, 100*min))
	}
	if held, _ := TotalsOf(results, heldOut); held.Facts > 0 {
		if r, _ := held.Recall(Graft); r < minHeld {
			out = append(out, fmt.Sprintf("graft carries %.1f %% of the held-out facts: want at least %.0f %%", 100*r, 100*minHeld))
		}
	}
	for _, set := range []struct {
		where   string
		keep    func(*Result) bool
		summary bool // the host's summary is scored on these
	}{{"all cuts", everyCut, false}, {"compaction cuts", atCompaction, true}, {"held-out cases", heldOut, false}} {
		_, byCat := TotalsOf(results, set.keep)
		for _, cat := range Categories {
			t := byCat[cat]
			if t.Facts == 0 {
				continue
			}
			g, _ := t.Recall(Graft)
			for _, cand := range Candidates[1:] {
				if cand == Summary && !set.summary {
					continue // the summary is scored on compaction cuts only
				}
				v, ok := t.Recall(cand)
				if !ok {
					continue
				}
				if g < v || (g == v && g < 1) {
					out = append(out, fmt.Sprintf("%s, %s: graft %.0f %% is not ahead of %s %.0f %%", set.where, cat, 100*g, cand, 100*v))
				}
			}
		}
	}
	return out
}
