package tape

import (
	"strings"
	"testing"
)

// gh pr checks, piped (as an agent runs it), prints a table of the pull
// request's checks, one per line: its name, its state (pass, fail,
// pending, skipping, cancel), how long it ran and its link, tab-separated.
// Twenty checks with their links are kilobytes; their few last rows are
// no verdict. A table of checks is quoted as one line instead: how many
// are in each state, and the ones that failed, then those pending, by
// name. gh exits 8 while checks are pending: such a call is listed as a
// failure, and its table is counted there too.
func TestAChecksTableIsCounted(t *testing.T) {
	row := func(name, state string) string {
		return name + "\t" + state + "\t1m3s\thttps://github.com/o/r/actions/runs/24574088014/job/7185472" + "1320\n"
	}
	table := row("rust / test (macos-latest)", "pass") + row("rust / test (ubuntu-latest)", "fail") + row("web / lint + build", "pending") +
		row("release", "skipping") + row("Socket Security: Project Report", "pass") + row("e2e-3", "pending")
	got := strings.Join(keyLines(table, true), "\n")
	for _, want := range []string{"checks: 2 pass, 1 fail, 2 pending, 1 skipping", "fail: rust / test (ubuntu-latest)", "pending: web / lint + build, e2e-3"} {
		if !strings.Contains(got, want) {
			t.Errorf("key lines %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "https://") {
		t.Errorf("key lines %q quote the checks' links", got)
	}

	// Exit 8, checks pending: Pending State counts the table too.
	evs := seqd(human("Open the PR and watch its checks."), call("Bash", "c1", `{"command":"gh pr checks 10888 --watch=false"}`),
		result("Bash", "c1", false, "Exit code 8\n"+table))
	ps := blockText(t, build(t, "s", evs, Options{}, nil), "Pending State")
	if !strings.Contains(ps, "checks: 2 pass, 1 fail, 2 pending, 1 skipping") || strings.Contains(ps, "https://") {
		t.Errorf("Pending State does not count the table:\n%s", ps)
	}

	// One row, or a table of other things, is no checks table.
	for _, out := range []string{row("only", "pass"), "name\tpass\n", "a\tb\tc\td\ne\tf\tg\th\n"} {
		if got := strings.Join(keyLines(out, true), "\n"); strings.Contains(got, "checks:") {
			t.Errorf("%q counted as a checks table: %q", out, got)
		}
	}
}
