package claudecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// Claude Code 2.1.162 can write a tool's result a line before the
// assistant line that holds its call (the result's parentUuid names the
// line that follows: a real session, lines 137 and 138). The result waits
// for its call: the session gets the call, then the result with the
// tool's name, the result naming its own line; no warning.
func TestAResultWrittenBeforeItsCallFollowsIt(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u1","cwd":"/r","timestamp":"2026-06-04T16:39:00.000Z","message":{"role":"user","content":"Fix it."}}`,
		`{"type":"assistant","uuid":"a0","parentUuid":"u1","timestamp":"2026-06-04T16:39:01.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":""}]}}`,
		`{"type":"user","uuid":"r1","parentUuid":"a1","timestamp":"2026-06-04T16:39:03.000Z","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"1\tpackage auth","is_error":false}]}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"a0","timestamp":"2026-06-04T16:39:02.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/r/auth.go"}}]}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"r1","timestamp":"2026-06-04T16:39:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Read it."}]}}`,
	}
	evs, sum := importLinesSum(t, "early", lines)
	if len(sum.Warnings) != 0 {
		t.Errorf("warnings %q, want none", sum.Warnings)
	}
	var got []string
	for _, ev := range evs {
		switch ev.Type {
		case session.TypeToolCall, session.TypeToolResult:
			got = append(got, ev.Type+":"+ev.Tool.Name+"@"+ev.Meta["line"])
		case session.TypeAssistantMessage:
			got = append(got, "msg@"+ev.Meta["line"])
		}
	}
	if want := "tool/call:Read@4,tool/result:Read@3,msg@5"; strings.Join(got, ",") != want {
		t.Fatalf("events %q, want %q", strings.Join(got, ","), want)
	}
}

// A result whose call is not on the next line is imported as before, with
// the tool named "unknown" and a warning that names its line, before the
// next line's events: it waits for one line, no longer.
func TestAResultWithoutACallIsImportedAtTheNextLine(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"r1","timestamp":"2026-06-04T16:39:03.000Z","message":{"role":"user","content":[{"tool_use_id":"toolu_gone","type":"tool_result","content":"done","is_error":false}]}}`,
		`{"type":"assistant","uuid":"a1","timestamp":"2026-06-04T16:39:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"step"}]}}`,
		// Names the id of a waiting result but holds no such call.
		`{"type":"user","uuid":"r2","timestamp":"2026-06-04T16:39:05.000Z","message":{"role":"user","content":[{"tool_use_id":"toolu_x","type":"tool_result","content":"x","is_error":false}]}}`,
		`{"type":"assistant","uuid":"a2","timestamp":"2026-06-04T16:39:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"about toolu_x"}]}}`,
	}
	evs, sum := importLinesSum(t, "gone", lines)
	var got []string
	for _, ev := range evs {
		if ev.Tool != nil {
			got = append(got, ev.Tool.Name+"@"+ev.Meta["line"])
		} else {
			got = append(got, ev.Text+"@"+ev.Meta["line"])
		}
	}
	if want := "unknown@1,step@2,about toolu_x@4,unknown@3"; strings.Join(got, ",") != want {
		t.Errorf("events %q, want %q", strings.Join(got, ","), want)
	}
	if len(sum.Warnings) != 2 || !strings.Contains(sum.Warnings[0], `"toolu_gone" of line 1 has no tool_use`) || !strings.Contains(sum.Warnings[1], `"toolu_x" of line 3`) {
		t.Errorf("warnings %q", sum.Warnings)
	}
}

// A run that ends while a result waits for its call says so, keeps it in
// the cursor, and the next run, which reads the call, imports both.
func TestAResultWaitingAtTheEndOfARunIsImportedByTheNext(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "split.jsonl")
	first := `{"type":"user","uuid":"r1","timestamp":"2026-06-04T16:39:03.000Z","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"ok","is_error":false}]}}` + "\n"
	if err := os.WriteFile(path, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "waits for its call") {
		t.Errorf("first run warnings %q", sum.Warnings)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"assistant","uuid":"a1","timestamp":"2026-06-04T16:39:02.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make"}}]}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	sum, err = Import(Options{Store: st, Home: home, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Warnings) != 0 {
		t.Errorf("second run warnings %q", sum.Warnings)
	}
	var got []string
	for _, ev := range testfixtures.ReadSession(t, st, "split") {
		if ev.Tool != nil {
			got = append(got, ev.Type+":"+ev.Tool.Name+"@"+ev.Meta["line"])
		}
	}
	if want := "tool/call:Bash@2,tool/result:Bash@1"; strings.Join(got, ",") != want {
		t.Fatalf("events %q, want %q", strings.Join(got, ","), want)
	}
}

// importLinesSum is importLines with the run's summary.
func importLinesSum(t *testing.T, name string, lines []string) ([]session.Event, *importer.Summary) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return testfixtures.ReadSession(t, st, name), sum
}
