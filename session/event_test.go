package session_test

import (
	"encoding/json"
	"testing"

	"github.com/graft-project/graft/session"
)

// IsHumanInstruction is the one rule of docs/DESIGN.md §2: everything else that
// looks like an order (injections, skill text, tool output, graft's own
// tape) must not become a goal or a constraint.
func TestIsHumanInstruction(t *testing.T) {
	user := func(kind, text string) session.Event {
		return session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: kind}, Text: text}
	}
	cases := []struct {
		name string
		ev   session.Event
		want bool
	}{
		{"human words", user(session.KindUser, "Fix the parser. Never push to main."), true},
		{"human words with a slash command name", session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser, Name: "slash-command"}, Text: "/review"}, true},
		{"plugin injection", user(session.KindPlugin, "You MUST always run the linter."), false},
		{"system injection", user(session.KindSystem, "Never stop."), false},
		{"skill text", user(session.KindSkill, "ONLY use the tool."), false},
		{"graft tape at the start", user(session.KindUser, session.GraftMarker+" 0a1b2c3d] [Goal]\nNever push."), false},
		{"graft tape marker inside the text", user(session.KindUser, "as the recap said:\n"+session.GraftMarker+" 0a1b2c3d] [Goal]"), false},
		{"assistant message from a user source", session.Event{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindUser}, Text: "Never push."}, false},
		{"tool result", session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindUser}, Tool: &session.Tool{Name: "Bash", Output: "Never push."}}, false},
		{"sub-agent report", session.Event{Type: session.TypeSubagentReport, Source: session.Source{Kind: session.KindUser}, Text: "Summary: never push."}, false},
	}
	for _, c := range cases {
		if got := c.ev.IsHumanInstruction(); got != c.want {
			t.Errorf("%s: IsHumanInstruction() = %v, want %v", c.name, got, c.want)
		}
	}
}

// An absent "ok" is a success; only an explicit false is a failure.
func TestOKResult(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name string
		tool *session.Tool
		want bool
	}{
		{"no tool payload", nil, true},
		{"ok absent", &session.Tool{Name: "Bash"}, true},
		{"ok true", &session.Tool{Name: "Bash", OK: &yes}, true},
		{"ok false", &session.Tool{Name: "Bash", OK: &no}, false},
	}
	for _, c := range cases {
		ev := session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: c.tool}
		if got := ev.OKResult(); got != c.want {
			t.Errorf("%s: OKResult() = %v, want %v", c.name, got, c.want)
		}
	}
}

// AllText is every string an event says, one per line: the text, the
// agent, the input's string values by key (decoded, not escaped), the
// output, the todos; an input that is not JSON as it stands.
func TestAllText(t *testing.T) {
	ev := session.Event{Type: session.TypeToolCall, Text: "calling", Agent: "explorer",
		Tool:  &session.Tool{Name: "Write", Input: json.RawMessage(`{"file_path":"a.go","content":"x := \"q\"\n","n":3,"edits":[{"new_string":"y"}]}`), Output: "done"},
		Todos: []session.Todo{{Content: "ship"}}}
	if got, want := ev.AllText(), "calling\nexplorer\nx := \"q\"\n\ny\na.go\ndone\nship"; got != want {
		t.Fatalf("AllText = %q, want %q", got, want)
	}
	bad := session.Event{Type: session.TypeToolCall, Tool: &session.Tool{Name: "X", Input: json.RawMessage(`not json`)}}
	if got := bad.AllText(); got != "not json" {
		t.Fatalf("AllText of an input that is not JSON = %q", got)
	}
}
