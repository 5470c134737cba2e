package fidelity

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// SweepRun is the truth set scored with one tape budget.
type SweepRun struct {
	Budget  int
	Results []*Result
}

// SweepTable renders, as Markdown, graft's recall at each budget of runs
// (sorted by budget; def is the default budget, marked): overall, on the
// tuning and the held-out cases, and per category. Then the split of what
// is missed at def: the facts a larger budget brings in (room) and those
// not carried even at the largest (content the tape does not hold), by
// category. The runs must score the same cases in the same order.
func SweepTable(runs []SweepRun, def int) string {
	runs = append([]SweepRun(nil), runs...)
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Budget < runs[j].Budget })
	if len(runs) == 0 {
		return "No run.\n"
	}
	for _, r := range runs[1:] {
		if !sameCases(r.Results, runs[0].Results) {
			return fmt.Sprintf("Budgets %d and %d scored not the same cases: no sweep.\n", runs[0].Budget, r.Budget)
		}
	}
	var b strings.Builder
	b.WriteString("| budget | all | tuning | held out |")
	for _, c := range Categories {
		fmt.Fprintf(&b, " %s |", c)
	}
	b.WriteString("\n|---|---|---|---|" + strings.Repeat("---|", len(Categories)) + "\n")
	withCount := func(t *Tally) string {
		if t.Scored[Graft] == 0 {
			return "–"
		}
		return fmt.Sprintf("%s (%d)", pct(t, Graft), t.Carried[Graft])
	}
	for _, r := range runs {
		label := thousands(r.Budget)
		if r.Budget == def {
			label = "**" + label + "** (default)"
		}
		all, byCat := TotalsOf(r.Results, everyCut)
		tuned, _ := TotalsOf(r.Results, tuning)
		held, _ := TotalsOf(r.Results, heldOut)
		fmt.Fprintf(&b, "| %s | %s | %s | %s |", label, withCount(all), withCount(tuned), withCount(held))
		for _, c := range Categories {
			fmt.Fprintf(&b, " %s |", pct(byCat[c], Graft))
		}
		b.WriteString("\n")
	}
	largest := runs[len(runs)-1]
	notAtLargest, facts := map[string]int{}, 0
	var base *SweepRun
	for k := range runs {
		if runs[k].Budget == def {
			base = &runs[k]
		}
	}
	room := map[string]int{}
	for i, r := range largest.Results {
		for k, f := range r.Case.Facts {
			facts++
			if !r.Carried[Graft][k] {
				notAtLargest[f.Category]++
			} else if base != nil && !base.Results[i].Carried[Graft][k] {
				room[f.Category]++
			}
		}
	}
	fmt.Fprintf(&b, "\nNot carried at %s characters: %d of %d facts%s.\n", thousands(largest.Budget), sum(notAtLargest), facts, byCategory(notAtLargest))
	if base != nil && base != &runs[len(runs)-1] {
		fmt.Fprintf(&b, "Carried at %s but not at %s: %d facts%s.\n", thousands(largest.Budget), thousands(def), sum(room), byCategory(room))
	}
	if base != nil && base != &runs[len(runs)-1] {
		b.WriteString(ceilingLine(largest, *base))
		if c := cutTable(largest, *base); c != "" {
			fmt.Fprintf(&b, "\nWhat the %s-character tapes cut that the %s-character ones hold, per kind of block (tuning cases), and the facts only those entries bring; the %s-character tapes carry %s facts per 1,000 of their characters:\n\n%s",
				thousands(def), thousands(largest.Budget), thousands(def), keptDensity(*base), c)
		}
	}
	if w := whereTable(largest.Results); w != "" {
		fmt.Fprintf(&b, "\nWhere the evidence of the facts not carried at %s characters is in the imported session (the first place that holds all of a fact's evidence; the held-out cases as counts only):\n\n%s", thousands(largest.Budget), w)
	}
	return b.String()
}

func sameCases(a, b []*Result) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k].Case.Name != b[k].Case.Name || len(a[k].Case.Facts) != len(b[k].Case.Facts) {
			return false
		}
	}
	return true
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// byCategory is " (file 2, state 1)" in the categories' order; "" for none.
func byCategory(m map[string]int) string {
	var parts []string
	for _, c := range Categories {
		if m[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, m[c]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// thousands is n with a comma between thousands: 16000 → "16,000".
func thousands(n int) string {
	s := fmt.Sprint(n)
	for k := len(s) - 3; k > 0; k -= 3 {
		s = s[:k] + "," + s[k:]
	}
	return s
}

// ceilingLine says what a chooser that knew the facts carries with the
// largest budget's tapes cut to the default budget (OracleCarries), on
// all, the tuning and the held-out cases (counts only), beside what the
// tape's own rules carry at the default; "" when the results hold no
// tape text.
func ceilingLine(largest, def SweepRun) string {
	var all, tuning, held, rules, facts, quarter int
	for i, r := range largest.Results {
		text, ok := r.Texts[Graft]
		if !ok {
			return ""
		}
		for _, got := range OracleCarries(text, r.Case.Facts, def.Budget/4) {
			if got {
				quarter++
			}
		}
		for k, got := range OracleCarries(text, r.Case.Facts, def.Budget) {
			facts++
			if got {
				all++
				if r.Case.HeldOut {
					held++
				} else {
					tuning++
				}
			}
			if def.Results[i].Carried[Graft][k] {
				rules++
			}
		}
	}
	return fmt.Sprintf("\nA chooser that knew the facts, taking the entries of the %s-character tapes (a line and the indented lines under it; the marker lines and the Handoff blocks paid first) most facts per character first, within %s characters carries %d of %d facts (tuning %d, held out %d); within %s, %d; the tape's rules carry %d at %s. The difference is what a better choice of lines, not more room, could gain (a greedy choice: a ceiling some choice reaches, not the highest; internal/fidelity/oracle.go).\n",
		thousands(largest.Budget), thousands(def.Budget), all, facts, tuning, held, thousands(def.Budget/4), quarter, rules, thousands(def.Budget))
}

// cutTable renders, as Markdown, what the default budget cuts on the
// tuning cases (the held-out ones are not read): per kind of block, in
// how many tapes it lost entries, the characters of the entries (tapeEntries:
// a line and the indented lines under it, with its line break) the
// largest budget's tape holds and the default's does not, the facts the
// largest carries and the default does not whose evidence the default
// lacks is held by that block's cut entries alone, and those facts per
// 1,000 of its cut characters; a row for the facts whose missing
// evidence is in cut entries of several blocks, one for those whose
// missing evidence no one cut entry holds (it spans two), and the total. Beside the
// kept room's facts per 1,000 characters (BlockTable), it says what more
// room would buy. "" when the results hold no tape text.
func cutTable(largest, def SweepRun) string {
	type row struct {
		kind         string
		tapes, runes int
		facts        int
	}
	rows := map[string]*row{}
	all := &row{kind: "**all**"}
	several, across := 0, 0
	for i, r := range largest.Results {
		if heldOut(r) {
			continue
		}
		text, ok := r.Texts[Graft]
		small, ok2 := def.Results[i].Texts[Graft]
		if !ok || !ok2 {
			return ""
		}
		_, kept := tapeEntries(small)
		keptText := map[string]bool{}
		for _, e := range kept {
			keptText[e.text] = true
		}
		_, entries := tapeEntries(text)
		var cut []oracleEntry
		lost := map[string]bool{}
		for _, e := range entries {
			if keptText[e.text] {
				continue
			}
			cut = append(cut, e)
			rw := rows[e.block]
			if rw == nil {
				rw = &row{kind: e.block}
				rows[e.block] = rw
			}
			if !lost[e.block] {
				lost[e.block] = true
				rw.tapes++
			}
			rw.runes += e.cost
			all.runes += e.cost
		}
		if len(lost) > 0 {
			all.tapes++
		}
		smallNorm := Normalize(small)
		for k, f := range r.Case.Facts {
			if !r.Carried[Graft][k] || def.Results[i].Carried[Graft][k] {
				continue
			}
			blocks := map[string]bool{}
			for _, ev := range f.Evidence {
				n := Normalize(ev)
				if strings.Contains(smallNorm, n) {
					continue
				}
				for _, e := range cut {
					if strings.Contains(e.norm, n) {
						blocks[e.block] = true
					}
				}
			}
			all.facts++
			if len(blocks) == 0 {
				across++
				continue
			}
			if len(blocks) > 1 {
				several++
				continue
			}
			for b := range blocks {
				rows[b].facts++
			}
		}
	}
	if all.runes == 0 {
		return ""
	}
	order := byRunes(rows, func(r *row) (int, string) { return r.runes, r.kind })
	var b strings.Builder
	b.WriteString("| block | tapes | characters cut | facts only they bring | per 1,000 characters |\n|---|---|---|---|---|\n")
	for _, rw := range append(order, all) {
		if rw == all && several > 0 {
			fmt.Fprintf(&b, "| several blocks together | – | – | %d | – |\n", several)
		}
		if rw == all && across > 0 {
			fmt.Fprintf(&b, "| no one entry (the evidence spans entries) | – | – | %d | – |\n", across)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %.2f |\n", rw.kind, rw.tapes, thousands(rw.runes), rw.facts, 1000*float64(rw.facts)/float64(rw.runes))
	}
	return b.String()
}

// keptDensity is the facts the run's tapes carry per 1,000 of their
// characters on the tuning cases, "%.2f".
func keptDensity(run SweepRun) string {
	var facts, runes int
	for _, r := range run.Results {
		if heldOut(r) {
			continue
		}
		runes += utf8.RuneCountInString(r.Texts[Graft])
		for _, got := range r.Carried[Graft] {
			if got {
				facts++
			}
		}
	}
	if runes == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", 1000*float64(facts)/float64(runes))
}
