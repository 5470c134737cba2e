package fidelity

import (
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/tape"
)

// The chooser's ceiling: how much of the truth set a tape of the default
// budget could carry if it knew the facts, choosing among what the
// tape's rules already hold at a larger budget. The tape's figure is
// then split into what its rules choose and what no choice within the
// budget reaches (SweepTable).

// fixedBlocks open every tape whole, whatever its budget (tape/doc.go,
// Budget: the handoff's own text and the acknowledgement are never cut).
var fixedBlocks = map[string]bool{"Handoff": true, "Handoff acknowledged": true}

// oracleEntry is a piece of a tape a ranking could keep or cut on its
// own: a line that does not open with white space, with the lines under
// it that do (an action's output lines, a quote's continuation).
type oracleEntry struct {
	block, text, norm string
	cost              int // its characters and its line break
}

// tapeEntries splits a tape's text into its fixed cost (each block's
// marker line, the blocks every tape opens with whole, the blank lines
// between blocks) and its entries, in order.
func tapeEntries(text string) (fixed int, entries []oracleEntry) {
	for k, p := range tape.SplitText(text) {
		if k > 0 {
			fixed += 2
		}
		marker, body, _ := strings.Cut(p.Text, "\n")
		fixed += utf8.RuneCountInString(marker)
		if fixedBlocks[p.Title] {
			if body != "" {
				fixed += 1 + utf8.RuneCountInString(body)
			}
			continue
		}
		if body == "" {
			continue
		}
		first := len(entries) // this block's first entry
		for line := range strings.SplitSeq(body, "\n") {
			if len(entries) > first && (line == "" || line[0] == ' ' || line[0] == '\t') {
				entries[len(entries)-1].text += "\n" + line
				continue
			}
			entries = append(entries, oracleEntry{block: p.Title, text: line})
		}
	}
	for k := range entries {
		e := &entries[k]
		e.text = strings.TrimRight(e.text, "\n")
		e.norm = Normalize(e.text)
		e.cost = utf8.RuneCountInString(e.text) + 1
	}
	return fixed, entries
}

// partialCredit is what one evidence string of a fact not yet complete is
// worth to the chooser, as a share of the whole fact: enough to take the
// first entry of a fact whose evidence is in two, less than a fact whole.
const partialCredit = 0.3

// OracleCarries says, per fact, whether a choice of text's entries
// (tapeEntries) within budget characters, made by a chooser that knows
// the facts, carries it: the fixed part paid first, then entries taken
// greedily by the facts they complete per character (each new evidence
// string of a fact they do not complete counting partialCredit of it),
// the earliest first among equals, until none that fits adds any. The
// facts are then read from the chosen entries in the tape's order, as
// the scorer reads a tape. A greedy choice is no optimum: the ceiling it
// gives is one some choice reaches, not the highest.
func OracleCarries(text string, facts []Fact, budget int) []bool {
	fixed, entries := tapeEntries(text)
	out := make([]bool, len(facts))
	room := budget - fixed
	if room <= 0 || len(entries) == 0 {
		return out
	}
	type hit struct{ fact, ev int }
	evs := make([][]string, len(facts))
	for i, f := range facts {
		for _, e := range f.Evidence {
			evs[i] = append(evs[i], Normalize(e))
		}
	}
	hits := make([][]hit, len(entries))
	for k, e := range entries {
		for i, ev := range evs {
			for j, s := range ev {
				if strings.Contains(e.norm, s) {
					hits[k] = append(hits[k], hit{i, j})
				}
			}
		}
	}
	have := make([][]bool, len(facts))
	missing := make([]int, len(facts))
	for i := range facts {
		have[i] = make([]bool, len(evs[i]))
		missing[i] = len(evs[i])
	}
	chosen := make([]bool, len(entries))
	news := map[int]int{}
	for {
		best, bestValue := -1, 0.0
		for k, e := range entries {
			if chosen[k] || e.cost > room || len(hits[k]) == 0 {
				continue
			}
			clear(news)
			for _, h := range hits[k] {
				if missing[h.fact] > 0 && !have[h.fact][h.ev] {
					news[h.fact]++
				}
			}
			gain := 0.0
			for i, n := range news {
				if n == missing[i] {
					gain++
				} else {
					gain += partialCredit * float64(n) / float64(len(evs[i]))
				}
			}
			if v := gain / float64(e.cost); gain > 0 && v > bestValue {
				best, bestValue = k, v
			}
		}
		if best < 0 {
			break
		}
		chosen[best] = true
		room -= entries[best].cost
		for _, h := range hits[best] {
			if !have[h.fact][h.ev] {
				have[h.fact][h.ev] = true
				missing[h.fact]--
			}
		}
	}
	var picked []string
	for k, e := range entries {
		if chosen[k] {
			picked = append(picked, e.text)
		}
	}
	norm := Normalize(strings.Join(picked, "\n"))
	for i, f := range facts {
		out[i] = len(f.Evidence) > 0 && Carries(norm, f)
	}
	return out
}
