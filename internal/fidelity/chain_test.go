package fidelity

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A chain scores the end of a session handed on at its middle cut: the
// second generation's tape is folded from its target's log (the
// graft/origin and its inherit, the first tape's events, the work after
// the cut), and what it carries of the end cut's facts stands beside the
// tape of the same work with no handoff. The person's instruction before
// the cut crosses the handoff (inherit.said); the first tape's text alone
// would not carry it, since no fold reads a tape's text.
func TestAChainScoresTheEndAfterAHandoff(t *testing.T) {
	root := t.TempDir()
	var lines []string
	turn := func(k int, user, reply string) {
		lines = append(lines,
			fmt.Sprintf(`{"type":"user","uuid":"u%d","parentUuid":null,"sessionId":"chain","timestamp":"2026-12-07T10:%02d:00.000Z","cwd":"/repo","message":{"role":"user","content":%q}}`, k, k, user),
			fmt.Sprintf(`{"type":"assistant","uuid":"a%d","parentUuid":"u%d","sessionId":"chain","timestamp":"2026-12-07T10:%02d:30.000Z","cwd":"/repo","message":{"role":"assistant","content":[{"type":"text","text":%q}]}}`, k, k, k, reply))
	}
	turn(1, "Write the exporter for the sessions table.", "Written.")
	turn(2, "Add a --json flag to the exporter, with the field names in snake_case.", "Added.")
	turn(3, "Now write the exporter's tests.", "Tests written.")
	turn(4, "Run them.", "All pass.")
	path := filepath.Join("transcripts", "chain.jsonl")
	if err := os.MkdirAll(filepath.Join(root, "transcripts"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, path), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fact := Fact{ID: "t1", Category: "task", Fact: "the --json flag's names", Evidence: []string{"field names in snake_case"}}
	end := &Case{Name: "x-end", Host: HostClaudeCode, Transcript: path, Cut: Cut{Lines: 8}, Written: "w", Facts: []Fact{fact, {ID: "t2", Category: "task", Fact: "run the tests", Evidence: []string{"Run them."}}}}
	mid := &Case{Name: "x-60", Host: HostClaudeCode, Transcript: path, Cut: Cut{Lines: 5}, Written: "w", Facts: []Fact{fact}}
	pairs := ChainPairs([]*Case{mid, end, {Name: "y-end", Transcript: path, Cut: Cut{Lines: 8}}})
	if len(pairs) != 1 || pairs[0][0] != end || pairs[0][1] != mid {
		t.Fatalf("ChainPairs = %v, want the one pair of x", pairs)
	}
	r, err := Chain(context.Background(), root, t.TempDir(), end, mid)
	if err != nil {
		t.Fatal(err)
	}
	if !r.One[0] || !r.One[1] {
		t.Fatalf("the tape with no handoff carries %v of the end's facts, want both", r.One)
	}
	if !r.Two[0] {
		t.Error("after the handoff the tape lost the instruction said before it")
	}
	if !r.Two[1] {
		t.Error("after the handoff the tape lost the instruction said after it")
	}
	// Two handoffs: at line 2 (half the middle cut's 5) and at line 5;
	// the flag was said between them, in the second generation.
	if !r.Three[0] || !r.Three[1] {
		t.Errorf("after two handoffs the tape carries %v of the end's facts, want both", r.Three)
	}
	tab := ChainTable([]*ChainResult{r})
	for _, want := range []string{"| x-end | 2 | 2 | 2 | 2 |", "| **tuning** | 2 | 100 % (2) | 100 % (2) | 100 % (2) |", "| task | 2 | 100 % (2) | 100 % (2) | 100 % (2) |"} {
		if !strings.Contains(tab, want) {
			t.Errorf("the chain table lacks %q:\n%s", want, tab)
		}
	}
}
