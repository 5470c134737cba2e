package tape

import (
	"encoding/json"
	"strings"
	"testing"
)

// A command asked for its help (--help, "go help build") prints how to
// use it and changes nothing: it only reads, like cat. Its key lines were
// lines of the manual ("-h, --help  Print help", "--ignore-schema-skew
// Proceed despite forward schema drift") quoted as an outcome in Recent
// Actions (real Codex and Claude Code sessions).
func TestAHelpRequestOnlyReads(t *testing.T) {
	for _, tc := range []struct {
		what string
		want bool
	}{
		{"bd close --help | sed -n '1,160p'", true},
		{"workmux close --help", true},
		{"jj git fetch --help 2>&1", true},
		{"claude --help", true},
		{"go help build", true},
		{"cat README.md", true},
		{"bd close av-raf.5", false},
		{"git commit -m 'document --help'", false},
		{`git commit -m "fix the --help text"`, false},
		{"npm run build -- --help && npm run build", false},
		{"df -h", false},
	} {
		if got := readsOnly(tc.what); got != tc.want {
			t.Errorf("readsOnly(%q) = %v, want %v", tc.what, got, tc.want)
		}
	}
	in, _ := json.Marshal(map[string]string{"command": "workmux close --help"})
	tp := build(t, "s", seqd(withMeta(human("Close the window."), "cwd", "/r"),
		call("Bash", "t1", string(in)), result("Bash", "t1", true, "Close a window\n\nUsage: workmux close [NAME]\n\nOptions:\n  -h, --help  Print help\n")), Options{}, nil)
	if acts := blockText(t, tp, "Recent Actions"); strings.Contains(acts, "Print help") {
		t.Errorf("a help request quotes its manual:\n%s", acts)
	}
}
