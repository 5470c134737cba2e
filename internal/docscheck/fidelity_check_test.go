package docscheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/graft-project/graft/internal/fidelity"
	"github.com/graft-project/graft/tape"
)

// The fidelity tables the documents print under a `make fidelity` Run:
// line are the tables make fidelity prints today: each row, cell for cell.
// A table under another command (a run at an earlier commit, kept as
// history) is not recomputed.

var fidelityOnce struct {
	sync.Once
	rows    map[string]bool
	results []*fidelity.Result
	err     error
}

// fidelityRows runs the truth set once and returns every table row
// fidelity.Tables renders, cells trimmed and joined by "|".
func fidelityRows(root string) (map[string]bool, error) {
	fidelityOnce.Do(func() {
		cases, err := fidelity.Load(filepath.Join(root, "testdata", "fidelity"))
		if err != nil {
			fidelityOnce.err = err
			return
		}
		tmp, err := os.MkdirTemp("", "docscheck-fidelity-")
		if err != nil {
			fidelityOnce.err = err
			return
		}
		defer os.RemoveAll(tmp)
		var results []*fidelity.Result
		for _, c := range cases {
			r, err := fidelity.Run(context.Background(), root, tmp, c)
			if err != nil {
				fidelityOnce.err = err
				return
			}
			results = append(results, r)
		}
		rows := map[string]bool{}
		for _, l := range strings.Split(fidelity.Tables(results), "\n") {
			if strings.HasPrefix(l, "|") {
				rows[strings.Join(splitRow(l), "|")] = true
			}
		}
		fidelityOnce.rows, fidelityOnce.results = rows, results
	})
	return fidelityOnce.rows, fidelityOnce.err
}

// checkFidelityTable checks a fidelity table under a Run: line of cmd.
func checkFidelityTable(c *checker, d *mdDoc, t mdTable, cmd, root string) {
	if cmd != "make fidelity" {
		return // history: a run at another commit
	}
	rows, err := fidelityRows(root)
	if !c.fact("fidelity table", d, t.line, err == nil, "the truth set does not run: %v", err) {
		return
	}
	c.fact("fidelity table", d, t.line, rows[strings.Join(t.header, "|")], "make fidelity prints no table headed %q", strings.Join(t.header, " | "))
	for _, r := range t.rows {
		c.fact("fidelity table", d, r.line, rows[strings.Join(r.cells, "|")], "make fidelity prints no such row today: %q", strings.Join(r.cells, " | "))
	}
}

// checkSweepTable checks a budget sweep table under a Run: line of cmd
// (make fidelity-sweep): its row of the default budget is the one
// fidelity.SweepTable renders from make fidelity's run today, cell for
// cell; the other budgets' rows are not recomputed (each is a run of the
// whole truth set).
func checkSweepTable(c *checker, d *mdDoc, t mdTable, cmd, root string) {
	if cmd != "make fidelity-sweep" {
		return
	}
	_, err := fidelityRows(root)
	if !c.fact("fidelity sweep", d, t.line, err == nil, "the truth set does not run: %v", err) {
		return
	}
	var want []string
	for _, l := range strings.Split(fidelity.SweepTable([]fidelity.SweepRun{{Budget: tape.DefaultBudget, Results: fidelityOnce.results}}, tape.DefaultBudget), "\n") {
		if strings.Contains(l, "(default)") {
			want = splitRow(l)
		}
	}
	found := false
	for _, r := range t.rows {
		if len(r.cells) > 0 && strings.Contains(r.cells[0], "(default)") {
			found = true
			c.fact("fidelity sweep", d, r.line, strings.Join(r.cells, "|") == strings.Join(want, "|"), "the default budget's row is %q; make fidelity gives %q today", strings.Join(r.cells, " | "), strings.Join(want, " | "))
		}
	}
	c.fact("fidelity sweep", d, t.line, found, "the sweep table has no row of the default budget")
}

// checkBlockTable checks the table of where the tape spends its room
// under a Run: line of make fidelity-blocks: each row is the one
// fidelity.BlockTable renders from make fidelity's run today, cell for
// cell, and no row it renders is missing.
func checkBlockTable(c *checker, d *mdDoc, t mdTable, cmd, root string) {
	if cmd != "make fidelity-blocks" {
		return // history: a run at another commit
	}
	_, err := fidelityRows(root)
	if !c.fact("fidelity blocks", d, t.line, err == nil, "the truth set does not run: %v", err) {
		return
	}
	var want []string
	for _, l := range strings.Split(fidelity.BlockTable(fidelityOnce.results), "\n") {
		if strings.HasPrefix(l, "|") && !strings.HasPrefix(l, "|---") {
			want = append(want, strings.Join(splitRow(l), "|"))
		}
	}
	got := []string{strings.Join(t.header, "|")}
	for _, r := range t.rows {
		got = append(got, strings.Join(r.cells, "|"))
	}
	c.fact("fidelity blocks", d, t.line, strings.Join(got, "\n") == strings.Join(want, "\n"), "the table is not what make fidelity-blocks prints today:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
}
