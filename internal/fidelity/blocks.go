package fidelity

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/tape"
)

// BlockTable renders, as Markdown, where graft's tape spends its room on
// the tuning cases (the held-out ones are kept out of the tape's work: not
// read here), per kind of block (a block's title up to its colon: the
// replayed turns are one kind): in how many tapes it is, its characters
// and their share of all the tapes' characters, the facts it alone
// carries (the tape without it does not carry them) and those per 1,000
// of its characters, and the carried facts it holds any evidence string
// of. The last row is the tapes whole (every carried fact holds its own
// evidence). make fidelity-blocks prints it.
func BlockTable(results []*Result) string {
	type row struct {
		kind                 string
		tapes, runes         int
		only, holds, carried int
	}
	rows := map[string]*row{}
	all := &row{kind: "all blocks"}
	for _, r := range results {
		if heldOut(r) {
			continue
		}
		text := r.Texts[Graft]
		parts := tape.SplitText(text)
		all.tapes++
		all.runes += utf8.RuneCountInString(text)
		var carried []Fact
		for k, f := range r.Case.Facts {
			if r.Carried[Graft][k] {
				carried = append(carried, f)
			}
		}
		all.carried += len(carried)
		seen := map[string]bool{}
		for k, p := range parts {
			kind, _, _ := strings.Cut(p.Title, ":")
			rw := rows[kind]
			if rw == nil {
				rw = &row{kind: kind}
				rows[kind] = rw
			}
			if !seen[kind] {
				seen[kind] = true
				rw.tapes++
			}
			rw.runes += utf8.RuneCountInString(p.Text)
			var rest []string
			for j, q := range parts {
				if j != k {
					rest = append(rest, q.Text)
				}
			}
			without, own := Normalize(strings.Join(rest, "\n\n")), Normalize(p.Text)
			for _, f := range carried {
				if !Carries(without, f) {
					rw.only++
				}
				if holdsAny(own, f.Evidence) {
					rw.holds++
				}
			}
		}
	}
	order := byRunes(rows, func(r *row) (int, string) { return r.runes, r.kind })
	var b strings.Builder
	b.WriteString("| block | tapes | characters | share | carried only there | per 1,000 characters | holds evidence of |\n|---|---|---|---|---|---|---|\n")
	share := func(n int) string {
		if all.runes == 0 {
			return "–"
		}
		return fmt.Sprintf("%.0f %%", 100*float64(n)/float64(all.runes))
	}
	per := func(n, runes int) string {
		if runes == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", 1000*float64(n)/float64(runes))
	}
	for _, rw := range order {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %d | %s | %d |\n", rw.kind, rw.tapes, thousands(rw.runes), share(rw.runes), rw.only, per(rw.only, rw.runes), rw.holds)
	}
	fmt.Fprintf(&b, "| %s | %d | %s | %s | %d carried | %s | %d |\n", all.kind, all.tapes, thousands(all.runes), share(all.runes), all.carried, per(all.carried, all.runes), all.carried)
	return b.String()
}

// holdsAny: norm holds at least one of the evidence strings.
func holdsAny(norm string, evidence []string) bool {
	for _, e := range evidence {
		if strings.Contains(norm, Normalize(e)) {
			return true
		}
	}
	return false
}

// byRunes is the rows of m, the most runes first, then by kind.
func byRunes[T any](m map[string]*T, key func(*T) (int, string)) []*T {
	order := make([]*T, 0, len(m))
	for _, r := range m {
		order = append(order, r)
	}
	sort.Slice(order, func(i, j int) bool {
		ri, ki := key(order[i])
		rj, kj := key(order[j])
		if ri != rj {
			return ri > rj
		}
		return ki < kj
	})
	return order
}
