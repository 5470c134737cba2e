package claudecode

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// Claude Code writes the git branch it runs on into every record
// ("gitBranch"); a human instruction carries it in meta gitBranch, as it
// carries the folder (meta cwd), so the tape names the branch the work is
// on. Other records do not repeat it.
func TestAHumanInstructionCarriesTheGitBranch(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u1","cwd":"/r","gitBranch":"main","timestamp":"2026-02-12T20:00:00.000Z","message":{"role":"user","content":"Start."}}`,
		`{"type":"assistant","uuid":"a1","cwd":"/r","gitBranch":"main","timestamp":"2026-02-12T20:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}`,
		`{"type":"user","uuid":"u2","cwd":"/r","gitBranch":"soph/allow-dogfood","timestamp":"2026-02-12T20:00:03.000Z","message":{"role":"user","content":"Go on."}}`,
		`{"type":"user","uuid":"u3","cwd":"/r","timestamp":"2026-02-12T20:00:04.000Z","message":{"role":"user","content":"No branch here."}}`,
	}
	var got []string
	for _, ev := range importLines(t, "git", lines) {
		if ev.Type == session.TypeAssistantMessage && ev.Meta["gitBranch"] != "" {
			t.Errorf("an assistant message carries gitBranch %q", ev.Meta["gitBranch"])
		}
		if ev.IsHumanInstruction() {
			got = append(got, ev.Meta["gitBranch"])
		}
	}
	if strings.Join(got, ",") != "main,soph/allow-dogfood," {
		t.Fatalf("gitBranch of the instructions: %q", got)
	}
}

// importLines imports lines as the transcript name.jsonl into a fresh
// store and returns the session's events.
func importLines(t *testing.T, name string, lines []string) []session.Event {
	t.Helper()
	evs, _ := importLinesSum(t, name, lines)
	return evs
}
