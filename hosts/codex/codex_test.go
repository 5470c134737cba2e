package codex

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/hosts/adapter"
)

const id = "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2b"

// A rollout's name ends in -<uuid>.jsonl.
func TestSessionIDFromTheName(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/h/sessions/2026/01/02/rollout-2026-01-02T03-04-05-" + id + ".jsonl", id},
		{"/h/sessions/rollout-x-" + strings.ToUpper(id) + ".jsonl", id},
		{"/h/sessions/rollout-short.jsonl", ""},
		{"/h/sessions/rollout-x-" + id + ".json", ""},
	} {
		if got := (Adapter{}).SessionID(c.path); got != c.want {
			t.Errorf("SessionID(%s) = %q, want %q", c.path, got, c.want)
		}
	}
}

// The notify program's argument is a Stop of its thread; anything but an
// agent-turn-complete is refused.
func TestNotify(t *testing.T) {
	notify := (Adapter{}).Hooks().Notify
	sid, cwd, err := notify(`{"type":"agent-turn-complete","thread-id":"` + id + `","cwd":"/w"}`)
	if err != nil || sid != id || cwd != "/w" {
		t.Errorf("notify = %q, %q, %v", sid, cwd, err)
	}
	for _, bad := range []string{`{"type":"other","thread-id":"x"}`, `{"type":"agent-turn-complete"}`, `not json`} {
		if _, _, err := notify(bad); err == nil {
			t.Errorf("notify(%s): no error", bad)
		}
	}
}

// No hook answer vetoes Codex's compaction: the answer ends the turn
// before its model request, and says why to the person.
func TestBlockAnswer(t *testing.T) {
	got := (Adapter{}).Hooks().Block("why")
	if got["continue"] != false || got["stopReason"] != "why" || got["systemMessage"] != "why" {
		t.Errorf("Block = %v, want continue false with the reason", got)
	}
	if _, err := (Adapter{}).Hooks().Settings(adapter.ScopeProject, "/p"); err == nil {
		t.Errorf("a project hooks file for Codex: no error")
	}
}
