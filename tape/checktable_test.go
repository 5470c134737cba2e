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

	// Run in a terminal (Codex's exec with a tty), gh marks each row's
	// state (✓ pass, X fail, * pending, - skipping) and pads its columns;
	// with --watch it prints the table again at each refresh: the last
	// table is the state, its header and banner no key lines; gh's own
	// count of the checks stays.
	tty := func(mark, name string) string {
		return mark + "  " + name + strings.Repeat(" ", 28-len(name)) + "              9s       https://github.com...\n"
	}
	refresh := "Refreshing checks status every 10 seconds. Press Ctrl+C to quit.\n\nSome checks are still pending\n0 cancelled, 0 failing, 1 successful, 1 skipped, and 2 pending checks\n\n   NAME                       DESCRIPTION         ELAPSED  URL\n"
	bot := "*  CodeRabbit                 Review in progress\n" // no link
	watch := refresh + tty("-", "release/build-tarball-...") + tty("*", "test/build-windows (pu...") + tty("*", "Cursor Bugbot") + tty("✓", "Socket Security: Pull ...") +
		refresh + bot + tty("-", "release/build-tarball-...") + tty("X", "test/build-windows (pu...") + tty("✓", "Cursor Bugbot") + tty("✓", "Socket Security: Pull ...")
	got = strings.Join(keyLines(watch, true), "\n")
	if !strings.Contains(got, "checks: 2 pass, 1 fail, 1 pending, 1 skipping; fail: test/build-windows (pu...; pending: CodeRabbit") || !strings.Contains(got, "and 2 pending checks") {
		t.Errorf("the last refresh is not counted: %q", got)
	}
	for _, n := range []string{"https://", "NAME", "Refreshing checks status", "Review in progress"} {
		if strings.Contains(got, n) {
			t.Errorf("key lines %q hold %q", got, n)
		}
	}

	evs = seqd(human("Watch the checks."), call("exec_command", "c1", `{"cmd":"gh pr checks 10950 --watch --interval 10"}`),
		result("exec_command", "c1", false, watch+"^C\n"))
	ps = blockText(t, build(t, "s", evs, Options{}, nil), "Pending State")
	if !strings.Contains(ps, "checks: 2 pass, 1 fail, 1 pending, 1 skipping") {
		t.Errorf("Pending State does not count the watched table:\n%s", ps)
	}
	for _, n := range []string{"https://", "NAME", "Refreshing checks status"} {
		if strings.Contains(ps, n) {
			t.Errorf("Pending State holds %q:\n%s", n, ps)
		}
	}

	// One row, or a table of other things, is no checks table.
	for _, out := range []string{row("only", "pass"), "name\tpass\n", "a\tb\tc\td\ne\tf\tg\th\n", "- item one  see https://a.example\n- item two\n* three  https://b.example/x\n"} {
		if got := strings.Join(keyLines(out, true), "\n"); strings.Contains(got, "checks:") {
			t.Errorf("%q counted as a checks table: %q", out, got)
		}
	}
}
