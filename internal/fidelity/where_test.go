package fidelity

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// Each fact is placed in the first kind of imported event that holds all
// its evidence: the person's words, the assistant's messages, its
// thinking, text the host injects, sub-agent reports, tool inputs, tool
// outputs; several kinds together; or nowhere in graft's log (the import
// dropped it).
func TestWhere(t *testing.T) {
	yes := true
	evs := []*session.Event{
		{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "Use pnpm, not npm."},
		{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindSystem, Name: "agents-md"}, Text: "# AGENTS.md\nNever commit secrets."},
		{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "I chose a lazy _ensure_container()."},
		{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant, Name: "thinking"}, Text: "maybe the cache is stale"},
		{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Write", Input: json.RawMessage(`{"file_path":"Cargo.toml","content":"ksni = \"0.2\"\n"}`)}},
		{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Bash", OK: &yes, Output: "40 passed, 0 failed"}},
		{Type: session.TypeSubagentReport, Source: session.Source{Kind: session.KindSubagent}, Text: "No Dockerfiles exist."},
	}
	facts := []Fact{
		{ID: "a", Evidence: []string{"pnpm, not npm"}},
		{ID: "b", Evidence: []string{"_ENSURE_container"}},
		{ID: "c", Evidence: []string{"cache is stale"}},
		{ID: "d", Evidence: []string{"never commit secrets"}},
		{ID: "e", Evidence: []string{"no dockerfiles"}},
		{ID: "f", Evidence: []string{`ksni = "0.2"`}},
		{ID: "g", Evidence: []string{"40 passed"}},
		{ID: "h", Evidence: []string{"pnpm", "40 passed"}},
		{ID: "i", Evidence: []string{"only in the raw transcript"}},
	}
	want := []string{PlaceHuman, PlaceAssistant, PlaceThinking, PlaceInjected, PlaceReports, PlaceToolInputs, PlaceToolOutputs, PlaceSeveral, PlaceNotImported}
	got := Where(facts, evs)
	for k := range facts {
		if got[k] != want[k] {
			t.Errorf("fact %s: placed in %q, want %q", facts[k].ID, got[k], want[k])
		}
	}
}

// The sweep says where the facts no budget carries are, by place, over
// all cases, the tuning and the held-out ones (counts only).
func TestSweepTableSaysWhereTheMissedAre(t *testing.T) {
	cats := []string{"task", "file", "file", "state"}
	a := sweepResult("a", false, cats, 0, 1)
	a.Where = []string{PlaceHuman, PlaceAssistant, PlaceToolInputs, PlaceToolOutputs}
	b := sweepResult("b", true, cats, 0)
	b.Where = []string{PlaceHuman, PlaceToolInputs, PlaceToolInputs, PlaceInjected}
	got := SweepTable([]SweepRun{{Budget: 16000, Results: []*Result{a, b}}, {Budget: 64000, Results: []*Result{a, b}}}, 16000)
	wantRows(t, "sweep table", got,
		"| where the evidence is | all | tuning | held out |",
		"| "+PlaceToolInputs+" | 3 | 1 | 2 |",
		"| "+PlaceToolOutputs+" | 1 | 1 | 0 |",
		"| "+PlaceInjected+" | 1 | 0 | 1 |",
	)
	if strings.Contains(got, "| "+PlaceHuman+" |") {
		t.Errorf("a place no missed fact is in has a row:\n%s", got)
	}
}
