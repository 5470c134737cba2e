package tape

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graft-project/graft/anchors"
)

// toolOp is the map lookup of the lowered name, for every name: ASCII in
// any case, longer than its buffer, and non-ASCII runes that lower to
// ASCII (the Kelvin sign is a K).
func TestToolOpIsTheLoweredLookup(t *testing.T) {
	names := []string{"", "Bash", "READ", "read", "Write", "apply_patch", "Apply_Patch", "NotebookEdit",
		"NOTEBOO\u212AEDIT", "Écrire", "todo_write", strings.Repeat("Edit", 10), "edit\x00", "Grep"}
	for name := range toolOps {
		names = append(names, name, strings.ToUpper(name))
	}
	for _, name := range names {
		want, wantOK := toolOps[strings.ToLower(name)]
		if got, ok := toolOp(name); got != want || ok != wantOK {
			t.Errorf("toolOp(%q) = %q %v, want %q %v", name, got, ok, want, wantOK)
		}
	}
}

// patchText reads a patch given as a JSON string or in an object's
// "patch" or "input" field, with or without space before it.
func TestPatchText(t *testing.T) {
	for in, want := range map[string]string{
		`"*** Add File: a"`:               "*** Add File: a",
		" \n\t\"p\"":                      "p",
		`{"patch":"p1","input":"i"}`:      "p1",
		` {"input":"i1"}`:                 "i1",
		`null`:                            "",
		`[1]`:                             "",
		`"bad`:                            "",
		`{"patch":"\u002a** Move to: b"}`: "*** Move to: b",
	} {
		if got := patchText(json.RawMessage(in)); got != want {
			t.Errorf("patchText(%s) = %q, want %q", in, got, want)
		}
	}
}

// clipAtSeq is clipRunes with the recall "<prefix>seq=N", cut or not.
func TestClipAtSeq(t *testing.T) {
	long := strings.Repeat("é", 30)
	for _, tc := range []struct {
		s, prefix string
		n         int
	}{{long, "", 10}, {long, "s1 ", 10}, {long, "", 30}, {"short", "", 10}, {"", "x ", 0}} {
		want := clipRunes(tc.s, tc.n, tc.prefix+"seq=42")
		if got := clipAtSeq(tc.s, tc.n, tc.prefix, 42); got != want {
			t.Errorf("clipAtSeq(%q, %d, %q) = %q, want %q", tc.s, tc.n, tc.prefix, got, want)
		}
	}
	if got := clipAtSeq(long, 10, "s1 ", 42); !strings.HasSuffix(got, " … [cut: recall s1 seq=42]") {
		t.Errorf("clipAtSeq = %q", got)
	}
}

// hasReportKeywordRef is hasReportKeyword through anchors.Normalize: the
// tests' oracle.
func hasReportKeywordRef(head string) bool {
	if strings.Contains(head, "结论") || strings.Contains(head, "总结") {
		return true
	}
	for _, w := range strings.Fields(anchors.Normalize(head)) {
		if reportKeywords[w] || strings.HasPrefix(w, "итог") {
			return true
		}
	}
	return false
}

// hasReportKeyword finds the words anchors.Normalize would make, without
// making them: the same answer on every keyword in any case, glued to
// punctuation, digits and other scripts, and on random mixes.
func TestHasReportKeywordIsNormalizedWords(t *testing.T) {
	var words []string
	for w := range reportKeywords {
		words = append(words, w, strings.ToUpper(w), w+"s", "x"+w)
	}
	words = append(words, "итоги", "ИТОГ", "结论", "总结", "İ", "K", "ǅ", "42", "a1", "\xff", "…", "—", "_", "é", "É")
	seps := []string{" ", ",", ".", "", "\n", "\t", "1", "-", "—", "\xc3"}
	r := rand.New(rand.NewPCG(7, 8))
	inputs := append([]string{""}, words...)
	for range 5000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		inputs = append(inputs, b.String())
	}
	hits := 0
	for _, in := range inputs {
		got, want := hasReportKeyword(in), hasReportKeywordRef(in)
		if got != want {
			t.Fatalf("hasReportKeyword(%q) = %v, through Normalize %v", in, got, want)
		}
		if got {
			hits++
		}
	}
	if hits == 0 || hits == len(inputs) {
		t.Fatalf("%d of %d inputs hold a keyword: the inputs test nothing", hits, len(inputs))
	}
}

// A command longer than whatRunes keeps its verbs and flags: a run of
// three or more paths in one of its commands folds to the first and a
// count, before the line is clipped.
func TestCommandWhatFoldsPathLists(t *testing.T) {
	long := "git add .beads/issues.jsonl assets/js/app.js lib/spotter/services/transcript_renderer.ex lib/spotter_web/live/session_live.ex lib/spotter_web/live/subagent_live.ex test/spotter_web/live/subagent_live_test.exs && git add -f priv/static/assets/spotter.css && bd sync --from-main 2>&1"
	got := callWhat("Bash", json.RawMessage(`{"command":`+strconv.Quote(long)+`}`), "")
	for _, want := range []string{"git add .beads/issues.jsonl … (6 paths)", "git add -f priv/static/assets/spotter.css", "bd sync --from-main"} {
		if !strings.Contains(got, want) {
			t.Errorf("callWhat = %q, want it to hold %q", got, want)
		}
	}
	if n := utf8.RuneCountInString(got); n > whatRunes {
		t.Errorf("callWhat is %d runes, more than %d", n, whatRunes)
	}
	// Codex's argument list, and a short command unchanged.
	got = callWhat("shell", json.RawMessage(`{"command":["bash","-lc",`+strconv.Quote(long)+`]}`), "")
	if !strings.Contains(got, "git add -f priv/static/assets/spotter.css") {
		t.Errorf("Codex callWhat = %q", got)
	}
	short := "git add a.go b.go c.go"
	if got := callWhat("Bash", json.RawMessage(`{"command":`+strconv.Quote(short)+`}`), ""); got != short {
		t.Errorf("a short command changed: %q", got)
	}
}

// A Markdown document's names are its headings: an edit or a write of one
// adds the headings its old text lacked, a patch those of the lines it
// adds; a "# comment" in code is no heading.
func TestMarkdownEditAddsItsHeadings(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string
	}{
		{"Edit", `{"file_path":"/r/README.md","old_string":"## Usage\n\nRun it.","new_string":"## Usage\n\nRun it.\n\n## Install\n\n### From source ##\n#hashtag is no heading"}`,
			[]string{"Install", "From source"}},
		{"Write", `{"file_path":"/r/specs/plan.md","content":"# Plan\n\n## Phase 1: Setup\n\ntext\n"}`, []string{"Plan", "Phase 1: Setup"}},
		{"apply_patch", `"*** Begin Patch\n*** Update File: specs/003/spec.md\n-### User Story 2 - Sharded Worker Routing (Priority: P2)\n+### User Story 2 - Dedicated Codex Queue (Priority: P2)\n ## Requirements\n*** End Patch"`,
			[]string{"User Story 2 - Dedicated Codex Queue (Priority: P2)"}},
		{"Edit", `{"file_path":"/r/tool.py","old_string":"x = 1","new_string":"# Compute the answer\nanswer_value = 42"}`, []string{"answer_value"}},
	}
	for _, tt := range tests {
		if got := editAdds(tt.name, json.RawMessage(tt.input)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %s:\n got %q\nwant %q", tt.name, tt.input, got, tt.want)
		}
	}
}

// A chain splits at the &&, ||, | and ; that end a command: not at one
// inside quotes (a regex's alternation, a message), escaped (find's \;)
// nor at a redirection's & (2>&1): "1" or "CLOSED" is no command.
func TestCommandListSplitsWhereACommandEnds(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"bd show spotter-dov 2>&1 | grep -E \"(spotter-dov\\.[0-9]|CLOSED|OPEN)\"", []string{"bd show", "grep"}},
		{"go test ./... >&2 && git push", []string{"go test", "git push"}},
		{"git commit -m 'fix: a; b | c' && git push", []string{"git commit", "git push"}},
		{`echo "say \"a|b\"" ; ls`, []string{"echo", "ls"}},
		{"make || echo failed", []string{"make", "echo failed"}},
		{"cat 'unterminated | rest", []string{"cat"}},
		{`find . -name '*.tmp' -exec rm {} \; -print && echo done`, []string{"find .", "echo done"}},
	}
	for _, tc := range tests {
		if got := commandList(tc.cmd); !slices.Equal(got, tc.want) {
			t.Errorf("commandList(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// A change's short form is its first two lines; when both are comments
// and code follows, the first comment and the first line of code (what it
// does, and why), so a pinned image under two lines of explanation is
// named. A Markdown document's "#" lines are headings: kept as they come.
func TestAShortChangeNamesItsCode(t *testing.T) {
	for _, c := range []struct {
		change   string
		markdown bool
		want     string
	}{
		{"# Keep this pinned so the release binary does not inherit a newer glibc ⏎ # floor when cross-rs updates its floating main image. ⏎ image = \"ghcr.io/cross-rs/aarch64-unknown-linux-gnu:0.2.5\"", false,
			"# Keep this pinned so the release binary does not inherit a newer glibc ⏎ image = \"ghcr.io/cross-rs/aarch64-unknown-linux-gnu:0.2.5\""},
		{"// why ⏎ // more ⏎ /* and */ ⏎ const pinned = 3;", false, "// why ⏎ const pinned = 3;"},
		{"# only ⏎ # comments ⏎ # here", false, "# only ⏎ # comments"},
		{"x := 1 ⏎ # a comment ⏎ y := 2", false, "x := 1 ⏎ # a comment"},
		{"# Title ⏎ ## Section ⏎ Some text.", true, "# Title ⏎ ## Section"},
		{"one line", false, "one line"},
	} {
		if got := shortChange(c.change, c.markdown); got != c.want {
			t.Errorf("shortChange(%q, %v) = %q, want %q", c.change, c.markdown, got, c.want)
		}
	}
}
