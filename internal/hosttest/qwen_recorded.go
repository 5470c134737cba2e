package hosttest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// Texts of the Qwen Code session hosts/qwen's real-program test records.
const (
	QwenFirstPrompt   = "Read notes.txt and never change the public API of pager.go."
	QwenSecondPrompt  = "Now summarise what the file says."
	QwenAfterCompress = "Carry on after the compression."
)

// CheckQwenRecorded checks the events that importer/qwen maps from the
// session hosts/qwen's real-program test records (and
// importer/qwen/testdata/session.jsonl holds): the three prompts, one
// read_file call and its result, one compression and its summary.
func CheckQwenRecorded(t testing.TB, evs []session.Event, cwd string) {
	t.Helper()
	var human []string
	var calls, results, summaries, compressions int
	for _, ev := range evs {
		switch {
		case ev.IsHumanInstruction():
			human = append(human, ev.Text)
			if ev.Meta["cwd"] != cwd {
				t.Errorf("human instruction %q has cwd %q, want %s", ev.Text, ev.Meta["cwd"], cwd)
			}
		case ev.Type == session.TypeToolCall:
			calls++
			if ev.Tool.Name != "read_file" || !strings.Contains(string(ev.Tool.Input), `"file_path":"`+filepath.Join(cwd, "notes.txt")) {
				t.Errorf("tool call %s %s", ev.Tool.Name, ev.Tool.Input)
			}
		case ev.Type == session.TypeToolResult:
			results++
			if ev.Tool.Name != "read_file" || ev.Tool.OK == nil || !*ev.Tool.OK || !strings.Contains(ev.Tool.Output, "line two") {
				t.Errorf("tool result %+v", ev.Tool)
			}
		case ev.Type == session.TypeUserMessage && ev.Source.Name == "compact-summary":
			summaries++
			if ev.Source.Kind != session.KindSystem || !strings.HasPrefix(ev.Text, "<state_snapshot>") || !strings.Contains(ev.Text, "Read notes.txt.") {
				t.Errorf("host summary %+v", ev)
			}
		case ev.Type == session.TypeSystem && ev.Source.Name == "chat_compression":
			compressions++
			if ev.Meta["trigger"] != "manual" {
				t.Errorf("compression meta %v", ev.Meta)
			}
		}
	}
	if want := []string{QwenFirstPrompt, QwenSecondPrompt, QwenAfterCompress}; !slices.Equal(human, want) {
		t.Errorf("human instructions %q, want %q", human, want)
	}
	if calls != 1 || results != 1 || summaries != 1 || compressions != 1 {
		t.Errorf("%d tool calls, %d results, %d host summaries, %d compressions; want one each", calls, results, summaries, compressions)
	}
}
