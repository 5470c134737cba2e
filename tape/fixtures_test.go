package tape

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/graft-project/graft/importer/claudecode"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// Real Claude Code transcripts, imported, then folded straight from the
// store as prepare does: only the human's words become constraints (the
// isMeta skill text of subagent.jsonl, full of "ONLY" and "Do NOT", does
// not), file ops cite tool/result seqs, the budget holds.
func TestRealTranscripts(t *testing.T) {
	fx := testfixtures.Path(t, "claude-code")
	for _, name := range []string{"subagent", "short", "tool_heavy", "4d5611e5-241a-462a-8d15-5122611a9569", "8463c716-a2ea-4c14-9efa-87158ebd9f20"} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			st, err := session.OpenStore(vfs.Default, home)
			if err != nil {
				t.Fatal(err)
			}
			id := "fx-" + strings.SplitN(name, "-", 2)[0]
			if _, err := claudecode.Import(claudecode.Options{Store: st, Home: home, Path: filepath.Join(fx, name+".jsonl"), ID: id}); err != nil {
				t.Fatalf("import: %v", err)
			}
			b := NewBuilder(id)
			byseq := map[int64]session.Event{}
			if _, err := st.Scan(id, session.ScanFrom{}, func(ev *session.Event, raw []byte, _ int64) error {
				byseq[ev.Seq] = session.Event{Type: ev.Type, Source: ev.Source, Text: ev.Text}
				return b.Add(ev, raw)
			}); err != nil {
				t.Fatalf("scan: %v", err)
			}
			tp, err := b.Build(Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tp.TapeChars > DefaultBudget {
				t.Fatalf("tapeChars %d", tp.TapeChars)
			}
			// The humans of these transcripts use no constraint marker; the
			// skill text of subagent.jsonl is full of them. So any constraint
			// here came from text that is not the human's.
			if len(tp.Constraints) != 0 {
				t.Errorf("%d constraints from a transcript whose human instructions carry no marker: %+v", len(tp.Constraints), tp.Constraints)
			}
			for _, c := range tp.Constraints {
				ev := byseq[c.Origin.Seq]
				if !ev.IsHumanInstruction() {
					t.Errorf("constraint %q cites seq %d, a %s from %s", c.Text, c.Origin.Seq, ev.Type, ev.Source.Kind)
				}
				if strings.Contains(c.Text, "ONLY creates beads") || strings.Contains(c.Text, "Do NOT") {
					t.Errorf("skill text became a constraint: %q", c.Text)
				}
			}
			if tp.BoundarySeq > 0 && !func() bool { ev := byseq[tp.BoundarySeq]; return ev.IsHumanInstruction() }() {
				t.Errorf("boundary %d is not a human instruction", tp.BoundarySeq)
			}
			files := blockText(t, tp, "Workspace Files")
			cited := regexp.MustCompile(`(read|write|edit) seq=(\d+)`).FindAllStringSubmatch(files, -1)
			if name != "short" && len(cited) == 0 {
				t.Errorf("Workspace Files cites no seq, though %s reads or edits files:\n%s", name, files)
			}
			for _, m := range cited {
				seq, err := strconv.ParseInt(m[2], 10, 64)
				if err != nil {
					t.Fatalf("cited seq %q: %v", m[2], err)
				}
				if byseq[seq].Type != session.TypeToolResult {
					t.Errorf("Workspace Files cites seq %d, a %s", seq, byseq[seq].Type)
				}
			}
			if name == "subagent" {
				skill := false
				for _, ev := range byseq {
					if ev.Source.Kind == session.KindSkill && strings.Contains(ev.Text, "This skill ONLY creates beads") {
						skill = true
					}
				}
				if !skill {
					t.Fatal("the fixture's skill text is not in the imported session: the test checks nothing")
				}
			}
		})
	}
}
