package codex

import (
	"strings"
	"testing"
)

// Rollouts of mid-2025 Codex (a real one of 2025-08-23) have no envelope:
// the first line is the session's meta itself ({"id", "timestamp",
// "instructions", "git"}), the items are bare response items, and a
// {"record_type": "state"} line marks where the session's state was
// saved. The meta is the session_meta event; its instructions (the
// project's AGENTS.md, which Codex gave its model whole) are injected
// instructions, never the human's; the state lines are skipped, counted.
// None of it is malformed.
func TestARolloutWithoutTheEnvelopeIsRead(t *testing.T) {
	lines := []string{
		`{"id":"a3e9dc1b-d96a-4423-afc1-79625a539643","timestamp":"2025-08-23T05:46:47.469Z","instructions":"# Rust/codex-rs\n\n- Never add or modify any code related to ` + "`CODEX_SANDBOX_NETWORK_DISABLED_ENV_VAR`" + `.","git":{"commit_hash":"4c6f1a7e9b2d","branch":"main","repository_url":"https://github.com/o/r.git"}}`,
		`{"record_type":"state"}`,
		`{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"set ollama as default"}]}`,
		`{"record_type":"state"}`,
		`{"type":"message","id":null,"role":"assistant","content":[{"type":"output_text","text":"Done."}]}`,
	}
	sum, evs := importRollout(t, "rollout-2025-08-23T05-46-47-a3e9dc1b-d96a-4423-afc1-79625a539643.jsonl", "old", lines)
	if sum.MalformedCount != 0 || len(sum.Warnings) != 0 {
		t.Fatalf("malformed %d %+v, warnings %q", sum.MalformedCount, sum.Malformed, sum.Warnings)
	}
	if sum.Skipped["record_type state"] != 2 {
		t.Errorf("skipped %v, want 2 state records", sum.Skipped)
	}
	var got []string
	for _, ev := range evs {
		got = append(got, ev.Type+":"+ev.Source.Kind+"/"+ev.Source.Name)
	}
	want := "system/event:system/session_meta,user/message:system/user-instructions,user/message:user/,assistant/message:assistant/"
	if strings.Join(got, ",") != want {
		t.Fatalf("events\n %s\nwant\n %s", strings.Join(got, ","), want)
	}
	if m := evs[0].Meta; m["sessionId"] != "a3e9dc1b-d96a-4423-afc1-79625a539643" || m["gitBranch"] != "main" || m["gitCommit"] != "4c6f1a7e9b2d" {
		t.Errorf("session_meta meta %v", m)
	}
	if !evs[1].IsInstructionFile() || !strings.Contains(evs[1].Text, "CODEX_SANDBOX_NETWORK_DISABLED_ENV_VAR") || evs[1].IsHumanInstruction() {
		t.Errorf("instructions event %+v", evs[1])
	}
	if evs[0].TS != "2025-08-23T05:46:47.469Z" {
		t.Errorf("ts %q", evs[0].TS)
	}
}
