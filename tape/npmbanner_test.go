package tape

import (
	"strings"
	"testing"
)

// npm, pnpm and yarn open a script's run with a banner: "> name@version
// script", then "> the command". It says what ran (the action's line says
// it already), not how it went: no key line. A build whose compiler
// printed nothing (tsc) shows no output, as a quiet success does.
func TestAPackageManagersBannerIsNoKeyLine(t *testing.T) {
	if got := keyLines("\n> chat-to-html@1.0.0 build\n> tsc\n\n", true); len(got) != 0 {
		t.Errorf("key lines of a quiet build = %q, want none", got)
	}
	out := "\n> @acme/app@0.1.0 test\n> vitest run\n\n ✓ src/a.test.ts (3 tests) 4ms\n\n Test Files  1 passed (1)\n      Tests  3 passed (3)\n"
	got := keyLines(out, true)
	joined := strings.Join(got, "\n")
	if strings.Contains(joined, "> ") {
		t.Errorf("key lines %q hold the banner", got)
	}
	if !strings.Contains(joined, "Tests  3 passed (3)") {
		t.Errorf("key lines %q lack the verdict", got)
	}
	// pytest marks the failing source line with ">": no banner.
	got = keyLines("    def test_x():\n>       assert total == 3\nE       assert 2 == 3\n== 1 failed in 0.02s ==", false)
	if !strings.Contains(strings.Join(got, "\n"), "E       assert 2 == 3") {
		t.Errorf("key lines %q lack pytest's error line", got)
	}
	for _, l := range []string{"> chat-to-html@1.0.0 build", "> @acme/app@0.1.0 test", "> app@1.2.3-beta.1 lint:fix"} {
		if !npmBanner(l) {
			t.Errorf("%q not read as a package manager's banner", l)
		}
	}
	for _, l := range []string{">       assert total == 3", "> tsc", "> user@example.com wrote", "> a@b"} {
		if npmBanner(l) {
			t.Errorf("%q read as a package manager's banner", l)
		}
	}
}

// The open turn's last call, shown by its output's lines rather than its
// key lines, shows no package manager's banner either: a real session's
// display of a build opened with "> desktop@0.1.0 tauri:build" and "> tauri
// build", what the action's line says already.
func TestTheLastOutputShowsNoPackageManagersBanner(t *testing.T) {
	out := "\n> desktop@0.1.0 tauri:build\n> tauri build\n\n    Finished `release` profile [optimized] target(s) in 1m 02s\n    Built application at: target/release/desktop\n"
	got := strings.Join(outputLines(out, lastActionRunes, 7, nil), "\n")
	if strings.Contains(got, "> ") {
		t.Errorf("the last output's lines %q hold the banner", got)
	}
	if !strings.Contains(got, "Built application at: target/release/desktop") {
		t.Errorf("the last output's lines %q lack what the build printed", got)
	}
}
