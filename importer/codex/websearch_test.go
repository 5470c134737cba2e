package codex

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// Codex writes a web search as one web_search_call item, its status
// "completed" once done, and no output item: the results reach the model
// and not the rollout (a real 0.142 rollout, four of them). The search is
// a call and a result, ok when completed, so no call stays open for ever
// and the tape names what the agent looked up.
func TestACompletedWebSearchIsACallAndItsResult(t *testing.T) {
	lines := []string{
		`{"timestamp":"2026-06-24T20:49:37.000Z","type":"session_meta","payload":{"id":"019efb65-4046-7140-a3a0-671b5017c575","timestamp":"2026-06-24T20:49:37.000Z","cwd":"/work","originator":"codex-tui","cli_version":"0.142.0"}}`,
		`{"timestamp":"2026-06-24T20:50:01.000Z","type":"response_item","payload":{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"Anthropic Claude Opus latest model ID","queries":["Anthropic Claude Opus latest model ID"]}}}`,
		`{"timestamp":"2026-06-24T20:50:02.000Z","type":"response_item","payload":{"type":"web_search_call","id":"ws_2","status":"failed","action":{"type":"open_page","url":"https://docs.example.com/models"}}}`,
		`{"timestamp":"2026-06-24T20:50:03.000Z","type":"response_item","payload":{"type":"web_search_call","id":"ws_3","status":"in_progress","action":{"type":"search","query":"still going"}}}`,
	}
	sum, evs := importRollout(t, "rollout-ws.jsonl", "ws", lines)
	if len(sum.Warnings) != 0 {
		t.Errorf("warnings %q", sum.Warnings)
	}
	var got []string
	for _, ev := range evs {
		if ev.Tool == nil {
			continue
		}
		s := ev.Type + ":" + ev.Tool.Name + ":" + ev.Tool.CallID
		if ev.Type == session.TypeToolResult {
			s += ":" + map[bool]string{true: "ok", false: "failed"}[ev.Tool.OK != nil && *ev.Tool.OK]
		}
		got = append(got, s)
	}
	want := "tool/call:web_search:ws_1,tool/result:web_search:ws_1:ok,tool/call:web_search:ws_2,tool/result:web_search:ws_2:failed,tool/call:web_search:ws_3"
	if strings.Join(got, ",") != want {
		t.Errorf("events\n %s\nwant\n %s", strings.Join(got, ","), want)
	}
}
