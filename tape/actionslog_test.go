package tape

import (
	"strings"
	"testing"
)

// "The CI failed, fix it" is a turn agents are given every day, and they
// read the run's log with gh run view --log-failed: a line per log line,
// "<job>\t<step>\t<timestamp> <message>". Read as it is, no rule knew its
// lines (a lint finding "src/x.go:42:7: …" opened with the job's name),
// its runner's housekeeping was its last line ("Cleaning up orphan
// processes"), and every key line spent 50 characters on where and when.
// Real sessions' tapes showed "1 issues:" of a lint job without the
// issue. A log line is read by its message.
func TestAnActionsLogIsReadByItsMessages(t *testing.T) {
	out := strings.Join([]string{
		"lint\tGolang CI\t2026-07-23T15:20:36.2960000Z ##[group]Run golangci-lint",
		"lint\tGolang CI\t2026-07-23T15:20:36.2961000Z level=info msg=\"[runner] linters took 2.1s\"",
		"lint\tGolang CI\t2026-07-23T15:20:36.2962000Z src/segment.go:42:7: ineffectual assignment to err (ineffassign)",
		"lint\tGolang CI\t2026-07-23T15:20:36.2965800Z 1 issues:",
		"lint\tGolang CI\t2026-07-23T15:20:36.2967880Z ##[error]issues found",
		"lint\tGolang CI\t2026-07-23T15:20:36.3000314Z ##[endgroup]",
		"lint\tPost Run actions/checkout@v4\t2026-07-23T15:20:37.1000000Z Post job cleanup.",
		"lint\tComplete job\t2026-07-23T15:20:37.5000000Z Cleaning up orphan processes",
	}, "\n")
	got := strings.Join(keyLines(out, true), "\n")
	for _, want := range []string{"src/segment.go:42:7: ineffectual assignment to err (ineffassign)", "##[error]issues found"} {
		if !strings.Contains(got, want) {
			t.Errorf("key lines lack %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"2026-07-23T", "\tGolang CI", "Cleaning up orphan processes", "Post job cleanup", "##[endgroup]", "##[group]"} {
		if strings.Contains(got, not) {
			t.Errorf("key lines hold %q:\n%s", not, got)
		}
	}
	// A line of a job's log with the step unknown (older gh) reads the same.
	if got := keyLines("test\tUNKNOWN STEP\t2026-02-28T11:47:49.0157762Z 10 failed, 207 passed, 24 skipped in 6.69s", true); len(got) != 1 || got[0] != "10 failed, 207 passed, 24 skipped in 6.69s" {
		t.Errorf("key lines %q", got)
	}
	// A job's raw log (gh api …/actions/jobs/N/logs) opens each line with
	// the runner's timestamp alone, of seven fraction digits.
	raw := "2026-07-16T04:04:32.6845218Z hk ERROR To fix, run: hk fix -S pkl-format\n2026-07-16T04:04:32.6960656Z ##[error]Process completed with exit code 11.\n2026-07-16T04:04:32.7063177Z Post job cleanup."
	if got := strings.Join(keyLines(raw, true), "\n"); strings.Contains(got, "2026-07-16T") || !strings.Contains(got, "##[error]Process completed with exit code 11.") || strings.Contains(got, "Post job cleanup") {
		t.Errorf("key lines of a raw job log:\n%s", got)
	}
	// Another program's timestamps stay: its log lines are its own.
	if m, ok := actionsLogMessage("2026-07-16T04:04:32.684Z [warning] slow query"); ok {
		t.Errorf("%q read as a runner's log line", m)
	}
	// A line with tabs that is no log line stays as it is.
	if m, ok := actionsLogMessage("a\tb\tc d"); ok {
		t.Errorf("%q read as a log line", m)
	}
}

// A release's URL is a key line, as a pull request's is: what was
// published, by its tag (gh release create prints it among its uploads).
func TestAReleaseURLIsAKeyLine(t *testing.T) {
	out := strings.Join([]string{
		"Uploading dist/app-linux-amd64.tar.gz",
		"Uploading dist/app-darwin-arm64.tar.gz",
		"https://github.com/o/app/releases/tag/v1.4.0",
		"Uploading dist/checksums.txt",
		"Uploading dist/app-windows-amd64.zip",
		"upload complete",
	}, "\n")
	if got := strings.Join(keyLines(out, true), "\n"); !strings.Contains(got, "https://github.com/o/app/releases/tag/v1.4.0") {
		t.Fatalf("key lines lack the release:\n%s", got)
	}
}
