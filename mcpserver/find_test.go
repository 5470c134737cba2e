package mcpserver

import (
	"slices"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
)

func findSeqs(out FindOutput) []int64 {
	var seqs []int64
	for _, m := range out.Matches {
		seqs = append(seqs, m.Seq)
	}
	return seqs
}

// graft_find lists the events holding every word, newest first, with the
// seq graft_recall reads whole; limit and before page through them; a
// query without a word is invalid_query, a missing session not_found.
func TestFind(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	out := ok[FindOutput](f, ToolFind, map[string]any{"session": "s", "words": []string{"CSV", "export"}})
	if got := findSeqs(out); !slices.Equal(got, []int64{7, 6, 5}) || out.Total != 3 || out.Older != 0 || out.Session != "s" {
		t.Fatalf("find csv export: %s", describe(out))
	}
	if m := out.Matches[1]; m.Type != session.TypeUserMessage || m.Source != session.KindUser || m.Snippet != secondOrder {
		t.Fatalf("the person's instruction as a match: %s", describe(m))
	}
	page := ok[FindOutput](f, ToolFind, map[string]any{"session": "s", "words": []string{"csv export"}, "limit": 1})
	if got := findSeqs(page); !slices.Equal(got, []int64{7}) || page.Total != 3 || page.Older != 7 {
		t.Fatalf("first page: %s", describe(page))
	}
	page = ok[FindOutput](f, ToolFind, map[string]any{"session": "s", "words": []string{"csv export"}, "limit": 1, "before": page.Older})
	if got := findSeqs(page); !slices.Equal(got, []int64{6}) || page.Older != 6 {
		t.Fatalf("second page: %s", describe(page))
	}
	big := ok[FindOutput](f, ToolFind, map[string]any{"session": "s", "words": []string{"строка"}})
	if got := findSeqs(big); !slices.Equal(got, []int64{bigSeq}) || big.Matches[0].Tool != "Read" || len([]rune(big.Matches[0].Snippet)) > 2*graft.FindSnippetRunes+len([]rune("строка"))+2 {
		t.Fatalf("a match in a long output: %s", describe(big))
	}
	none := ok[FindOutput](f, ToolFind, map[string]any{"session": "s", "words": []string{"nothing-like-this"}})
	if none.Total != 0 || none.Matches == nil || len(none.Matches) != 0 {
		t.Fatalf("no match: %s", describe(none))
	}
	msg := f.fails(ToolFind, map[string]any{"session": "s", "words": []string{" "}}, "invalid_query")
	mustContain(t, "error", msg, "no word")
	f.fails(ToolFind, map[string]any{"session": "s", "words": []string{"x"}, "limit": 101}, "invalid_query")
	f.fails(ToolFind, map[string]any{"session": "nope", "words": []string{"x"}}, "not_found")
	f.fails(ToolFind, map[string]any{"words": []string{"x"}}, "invalid_input")
}

// In a graft target, graft_find names the session it continues.
func TestFindInATargetNamesItsSource(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	cm := f.commit(f.prepare(nil))
	out := ok[FindOutput](f, ToolFind, map[string]any{"session": cm.TargetID, "words": []string{"csv"}})
	if out.Continues != "s" {
		t.Fatalf("find in the target: %s", describe(out))
	}
}
