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

// checkRow is a row of a checks table: piped, a name, a state of
// checkStates and at least one more tab-separated field (how long it
// ran); in a terminal, a state's mark (ttyCheckMarks), the name and the
// other columns padded with spaces, the last a link.
func checkRow(l string) (name, state string, ok bool) {
	if f := strings.Split(l, "\t"); len(f) >= 3 {
		name, state = strings.TrimSpace(f[0]), strings.TrimSpace(f[1])
		if name == "" || !slices.Contains(checkStates, state) {
			return "", "", false
		}
		return name, state, true
	}
	state, cols := ttyCheckColumns(l)
	if len(cols) < 2 || !strings.HasPrefix(cols[len(cols)-1], "http") {
		return "", "", false
	}
	return cols[0], state, true
}

// ttyCheckRowWithoutLink is a terminal row whose link gh left out (a
// review bot's check: "*  CodeRabbit   Review in progress"): a row only
// among others.
func ttyCheckRowWithoutLink(l string) (name, state string, ok bool) {
	state, cols := ttyCheckColumns(l)
	if len(cols) < 2 {
		return "", "", false
	}
	return cols[0], state, true
}

// ttyCheckColumns are a terminal row's state, by its mark, and its
// columns; none when l opens with no mark.
func ttyCheckColumns(l string) (state string, cols []string) {
	mark, rest, found := strings.Cut(l, "  ")
	if state = ttyCheckMarks[mark]; !found || state == "" {
		return "", nil
	}
	return state, columns(rest)
}

// ttyCheckMarks are the marks gh pr checks puts before a row in a
// terminal.
var ttyCheckMarks = map[string]string{"✓": "pass", "X": "fail", "*": "pending", "-": "skipping"}

// columns splits a row padded with spaces at each run of two or more.
func columns(s string) []string {
	var cols []string
	for _, c := range strings.Split(s, "  ") {
		if c = strings.TrimSpace(c); c != "" {
			cols = append(cols, c)
		}
	}
	return cols
}

// checkChrome: the lines gh pr checks prints around its table in a
// terminal that say nothing of the checks: --watch's banner and the
// columns' header. Its headline and count ("0 cancelled, 1 failing, …")
// stay: gh's own verdict.
func checkChrome(l string) bool {
	l = strings.TrimSpace(l)
	if strings.HasPrefix(l, "Refreshing checks status every ") {
		return true
	}
	return strings.HasPrefix(l, "NAME ") && strings.Contains(l, " ELAPSED ") && strings.HasSuffix(l, " URL")
}

// foldChecks puts one line in place of the rows of a checks table (two
// or more rows), where its first one was: how many checks are in each
// state, then the names of those that failed, were cancelled or are
// pending. A table printed again (gh pr checks --watch: a name seen
// again, or gh's lines around a table between) counts as its last
// printing; gh's own lines around it go. at is the line's index, -1 when
// lines hold no table.
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
	var counts map[string]int
	var names map[string][]string
	seen := map[string]bool{}
	at, fresh := -1, true
	header := false // the line before was the columns' header
	for _, l := range lines {
		name, state, ok := checkRow(l)
		if !ok && (!fresh || header) {
			name, state, ok = ttyCheckRowWithoutLink(l)
		}
		header = false
		if !ok {
			if checkChrome(l) {
				header = strings.HasPrefix(strings.TrimSpace(l), "NAME ")
			} else {
				out = append(out, l)
			}
			fresh = true
			continue
		}
		if fresh || seen[name] {
			// A table (again): the last one printed is the state.
			counts, names, seen = map[string]int{}, map[string][]string{}, map[string]bool{}
			if at >= 0 {
				out = append(out[:at], out[at+1:]...)
			}
			at = len(out)
			out = append(out, "")
			fresh = false
		}
		seen[name] = true
		counts[state]++
		names[state] = append(names[state], name)
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
