package docscheck

import (
	"regexp"
	"strings"

	"github.com/graft-project/graft/crashtest"
	"github.com/graft-project/graft/txn"
)

// recordPoints counts the crash points that leave a journal record: all but
// the two "locked" points (before the record) and the two record removals
// (after it). crashtest's recoveryPowerPoints is this list, and its test
// asserts the same count.
func recordPoints() int {
	n := 0
	for _, p := range txn.Points {
		if !strings.HasSuffix(string(p), "/locked") && !strings.HasSuffix(string(p), "/journal-remove:after") {
			n++
		}
	}
	return n
}

func checkCrashPoints(c *checker, ds *docs, k *code) {
	commit, revert := 0, 0
	for _, p := range txn.Points {
		switch {
		case strings.HasPrefix(string(p), "commit/"):
			commit++
		case strings.HasPrefix(string(p), "revert/"):
			revert++
		}
	}
	for _, x := range []struct {
		d     *mdDoc
		re    string
		want  []int
		about []string
	}{
		{ds.readme, "each of the (\\d+) points in `txn.Points`", []int{len(txn.Points)}, []string{"len(txn.Points)"}},
		{ds.readme, "each of the (\\d+) points that leave a journal record", []int{recordPoints()}, []string{"the points of txn.Points that leave a journal record"}},
		{ds.design, `(\d+) in a commit, (\d+) in a revert`, []int{commit, revert}, []string{"the commit/ points of txn.Points", "the revert/ points of txn.Points"}},
	} {
		line, m := findPara(x.d, regexp.MustCompile(x.re))
		if !c.fact("crash-point count", x.d, 0, m != nil, "no text matches %q", x.re) {
			continue
		}
		for i, w := range x.want {
			c.fact("crash-point count", x.d, line, atoi(m[i+1]) == w, "says %s; %s: %d", m[i+1], x.about[i], w)
		}
	}

	// The crash suite's groups: each is a row of the README's crash suite
	// table and of DESIGN §7's families, and each row is a group.
	for _, x := range []struct {
		d                    *mdDoc
		section, col, header string
	}{
		{ds.readme, "The crash suite", "case", "| case | injection | expected | test |"},
		{ds.design, "7. Crash injection", "family", "| family | what it does |"},
	} {
		sec, ok := x.d.section(x.section)
		if !c.fact("crash suite group", x.d, 0, ok, "no section %q", x.section) {
			continue
		}
		t, ok := x.d.table(sec, splitRow(x.header)...)
		if !c.fact("crash suite group", x.d, sec.from, ok, "no table %q in the section %q", x.header, x.section) {
			continue
		}
		match := func(row, group string) bool {
			g := strings.TrimSuffix(strings.ReplaceAll(group, "-", " "), "s")
			return strings.Contains(strings.ToLower(row), strings.ToLower(g))
		}
		for _, g := range crashtest.Groups {
			found := false
			for _, row := range t.rows {
				found = found || match(t.cell(row, x.col), g)
			}
			c.fact("crash suite group", x.d, t.line, found, "the group %q of crashtest.Groups (graft crashtest --group) has no row", g)
		}
		for _, row := range t.rows {
			found := false
			for _, g := range crashtest.Groups {
				found = found || match(t.cell(row, x.col), g)
			}
			c.fact("crash suite group", x.d, row.line, found, "%q is no group of crashtest.Groups %v", t.cell(row, x.col), crashtest.Groups)
		}
	}
}
