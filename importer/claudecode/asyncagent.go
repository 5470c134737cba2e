package claudecode

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// Background agents (doc.go, "Background agents"). An Agent call run in
// the background gets a launch notice for its result at once
// (toolUseResult {"isAsync": true, "status": "async_launched"}); its
// report comes later in a user line the host writes, a
// <task-notification> whose <result> is what the agent answered.

// launchedAgent is a background agent's call waiting for its report.
type launchedAgent struct {
	ID      string   `json:"id"`
	AgentID string   `json:"agentId,omitempty"` // the notification's <task-id>
	Call    openCall `json:"call"`
}

// maxLaunched bounds the background agents the mapper remembers: a
// transcript whose notifications never come costs no more than this.
const maxLaunched = 64

// asyncLaunched: the toolUseResult of a call run in the background, whose
// result is the host's launch notice, not the agent's report; and the
// agent's id, which its notification's <task-id> repeats.
func asyncLaunched(raw json.RawMessage) (bool, string) {
	r := bytes.TrimSpace(raw)
	if len(r) == 0 || r[0] != '{' {
		return false, ""
	}
	var tur struct {
		Status  string `json:"status"`
		AgentID string `json:"agentId"`
	}
	if json.Unmarshal(r, &tur) != nil || tur.Status != "async_launched" {
		return false, ""
	}
	return true, tur.AgentID
}

// launch remembers a background agent's call until its notification.
func (m *Mapper) launch(id, agentID string, call openCall) {
	m.launched = append(m.launched, launchedAgent{ID: id, AgentID: agentID, Call: call})
	if len(m.launched) > maxLaunched {
		m.launched = append(m.launched[:0:0], m.launched[len(m.launched)-maxLaunched:]...)
	}
}

var (
	notifiedResult = regexp.MustCompile(`(?s)<result>(.*)</result>`)
	notifiedCallID = regexp.MustCompile(`<tool-use-id>([^<\s]+)</tool-use-id>`)
	notifiedTaskID = regexp.MustCompile(`<task-id>([^<\s]+)</task-id>`)
)

// notifiedReport emits the sub-agent report a task notification holds:
// its <result>, the agent's answer, with the call it answers when the
// mapper saw that call launched: by its <tool-use-id>, or by its
// <task-id>, the agent's id (a published transcript may have the call id
// redacted). A notification without a result (a background command's)
// holds none.
func (m *Mapper) notifiedReport(ln *line, text string, out *importer.Output) {
	mm := notifiedResult.FindStringSubmatch(text)
	if mm == nil || strings.TrimSpace(mm[1]) == "" {
		return
	}
	callID, taskID := "", ""
	if id := notifiedCallID.FindStringSubmatch(text); id != nil {
		callID = id[1]
	}
	if id := notifiedTaskID.FindStringSubmatch(text); id != nil {
		taskID = id[1]
	}
	call := openCall{Name: "Agent"}
	for k, l := range m.launched {
		if callID != "" && l.ID == callID || taskID != "" && l.AgentID == taskID {
			call, callID = l.Call, l.ID
			m.launched = append(m.launched[:k:k], m.launched[k+1:]...)
			break
		}
	}
	ev := m.event(ln, session.TypeSubagentReport, session.Source{Kind: session.KindSubagent, Name: call.Name})
	ev.Agent = call.Agent
	ev.Text = strings.TrimSpace(mm[1])
	if callID != "" {
		ev.Meta["callId"] = callID
	}
	if taskID != "" {
		ev.Meta["agentId"] = taskID
		if sub, ok := m.cfg.SubSessions[taskID]; ok {
			ev.Meta["subSession"] = sub
		}
	}
	out.Emit(ev)
}
