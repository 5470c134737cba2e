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

// launchedAgent is a background agent's call waiting for its report, or
// a background command's waiting for how it ended.
type launchedAgent struct {
	ID      string   `json:"id"`
	AgentID string   `json:"agentId,omitempty"` // the notification's <task-id>
	Call    openCall `json:"call"`
}

// backgroundTask is the task id of a command the host runs in the
// background (Bash, PowerShell with run_in_background: toolUseResult
// {"backgroundTaskId": …}, the result the host's launch notice), "" for
// any other result.
func backgroundTask(raw json.RawMessage) string {
	r := bytes.TrimSpace(raw)
	if len(r) == 0 || r[0] != '{' || !bytes.Contains(r, []byte(`"backgroundTaskId"`)) {
		return ""
	}
	var tur struct {
		ID string `json:"backgroundTaskId"`
	}
	if json.Unmarshal(r, &tur) != nil {
		return ""
	}
	return tur.ID
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
	notifiedStatus = regexp.MustCompile(`<status>([a-z_]+)</status>`)
)

// notifiedIDs are a notification's <tool-use-id> and <task-id>.
func notifiedIDs(text string) (callID, taskID string) {
	if id := notifiedCallID.FindStringSubmatch(text); id != nil {
		callID = id[1]
	}
	if id := notifiedTaskID.FindStringSubmatch(text); id != nil {
		taskID = id[1]
	}
	return callID, taskID
}

// launchedBy takes from the launched calls the one a notification names:
// by its call id, or by its task id (a published transcript may have the
// call id redacted); ok false when none.
func (m *Mapper) launchedBy(callID, taskID string) (launchedAgent, bool) {
	for k, l := range m.launched {
		if callID != "" && l.ID == callID || taskID != "" && l.AgentID == taskID {
			m.launched = append(m.launched[:k:k], m.launched[k+1:]...)
			return l, true
		}
	}
	return launchedAgent{}, false
}

// notifiedCommand marks the injected message of a notification on a
// background command ev: no <result>, a <status>; the call it names meta
// callId, how it ended meta taskStatus ("completed", "failed", "killed").
// A notification on anything else (an agent's report, a monitor's event)
// is left as it is.
func (m *Mapper) notifiedCommand(text string, ev *session.Event) {
	st := notifiedStatus.FindStringSubmatch(text)
	if st == nil || notifiedResult.MatchString(text) {
		return
	}
	l, ok := m.launchedBy(notifiedIDs(text))
	if !ok {
		return
	}
	ev.Meta["callId"] = l.ID
	ev.Meta[session.MetaTaskStatus] = st[1]
}

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
	callID, taskID := notifiedIDs(text)
	call := openCall{Name: "Agent"}
	if l, ok := m.launchedBy(callID, taskID); ok {
		call, callID = l.Call, l.ID
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
