package tape

import (
	"fmt"
	"slices"
	"strings"
)

// A pull request's checks, as gh pr checks prints them when piped (the way
// an agent runs it): one per line, its name, its state, how long it ran
// and its link, tab-separated. Twenty checks with their links are
// kilobytes, and their last rows no verdict: the rows are counted into one
// line instead (foldChecks; TestAChecksTableIsCounted).

// checkStates are gh pr checks' states (its "bucket"), in the order the
// count names them.
var checkStates = []string{"pass", "fail", "pending", "skipping", "cancel"}

// Bounds of the line that counts a checks table.
const (
	maxCheckNames  = 4  // named per state that is not done well
	checkNameRunes = 40 // each name
)

// checkRow is a row of a checks table: a name, a state of checkStates,
// and at least one more tab-separated field (how long it ran).
func checkRow(l string) (name, state string, ok bool) {
	f := strings.Split(l, "\t")
	if len(f) < 3 {
		return "", "", false
	}
	name, state = strings.TrimSpace(f[0]), strings.TrimSpace(f[1])
	if name == "" || !slices.Contains(checkStates, state) {
		return "", "", false
	}
	return name, state, true
}

// foldChecks puts one line in place of the rows of a checks table (two
// or more rows), where the first one was: how many checks are in each
// state, then the names of those that failed, were cancelled or are
// pending. at is that line's index, -1 when lines hold no table.
func foldChecks(lines []string) (out []string, at int) {
	n := 0
	for _, l := range lines {
		if _, _, ok := checkRow(l); ok {
			n++
		}
	}
	if n < 2 {
		return lines, -1
	}
	counts := map[string]int{}
	names := map[string][]string{}
	at = -1
	for _, l := range lines {
		name, state, ok := checkRow(l)
		if !ok {
			out = append(out, l)
			continue
		}
		counts[state]++
		names[state] = append(names[state], name)
		if at < 0 {
			at = len(out)
			out = append(out, "")
		}
	}
	var parts []string
	for _, s := range checkStates {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	line := "checks: " + strings.Join(parts, ", ")
	for _, s := range []string{"fail", "cancel", "pending"} {
		ns := names[s]
		if len(ns) == 0 {
			continue
		}
		var shown []string
		for _, nm := range ns[:min(len(ns), maxCheckNames)] {
			shown = append(shown, firstLine(nm, checkNameRunes))
		}
		if more := len(ns) - len(shown); more > 0 {
			shown = append(shown, fmt.Sprintf("%d more", more))
		}
		line += "; " + s + ": " + strings.Join(shown, ", ")
	}
	out[at] = line
	return out, at
}
