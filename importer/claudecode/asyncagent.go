package claudecode

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

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
	ID string `json:"id"`
	// TaskID is the id the notification's <task-id> repeats: an agent's
	// id, a command's background task id (the key keeps its first name
	// in the mapper's saved state).
	TaskID string   `json:"agentId,omitempty"`
	Call   openCall `json:"call"`
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

// maxLaunched bounds the background calls the mapper remembers: a
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

// launch remembers a call run in the background until its notification.
func (m *Mapper) launch(id, taskID string, call openCall) {
	m.launched = append(m.launched, launchedAgent{ID: id, TaskID: taskID, Call: call})
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

// launchedBy takes from the launched calls the one a notification names:
// by its call id, or by its task id (a published transcript may have the
// call id redacted); ok false when none.
func (m *Mapper) launchedBy(callID, taskID string) (launchedAgent, bool) {
	for k, l := range m.launched {
		if callID != "" && l.ID == callID || taskID != "" && l.TaskID == taskID {
			m.launched = append(m.launched[:k:k], m.launched[k+1:]...)
			return l, true
		}
	}
	return launchedAgent{}, false
}

// notified reads a task notification once, the host's injected message
// msg (not yet emitted) and its text (doc.go, "Background agents"): one
// that holds a <result> gives the sub-agent report returned, to emit
// after msg, with the call it answers when the mapper saw that call
// launched (by its <tool-use-id>, or by its <task-id>, the agent's id: a
// published transcript may have the call id redacted); one with a
// <status> and no result, on a command run in the background, marks msg
// with the call it names (meta callId) and how it ended
// (session.MetaTaskStatus: "completed", "failed", "killed"). Any other
// (a monitor's event) gives nothing.
func (m *Mapper) notified(ln *line, text string, msg *session.Event) *session.Event {
	var callID, taskID string
	if id := notifiedCallID.FindStringSubmatch(text); id != nil {
		callID = id[1]
	}
	if id := notifiedTaskID.FindStringSubmatch(text); id != nil {
		taskID = id[1]
	}
	res := notifiedResult.FindStringSubmatch(text)
	if res == nil {
		if st := notifiedStatus.FindStringSubmatch(text); st != nil {
			if l, ok := m.launchedBy(callID, taskID); ok {
				msg.Meta["callId"] = l.ID
				msg.Meta[session.MetaTaskStatus] = st[1]
			}
		}
		return nil
	}
	if strings.TrimSpace(res[1]) == "" {
		return nil
	}
	call := openCall{Name: "Agent"}
	if l, ok := m.launchedBy(callID, taskID); ok {
		call, callID = l.Call, l.ID
	}
	ev := m.event(ln, session.TypeSubagentReport, session.Source{Kind: session.KindSubagent, Name: call.Name})
	ev.Agent = call.Agent
	ev.Text = strings.TrimSpace(res[1])
	if callID != "" {
		ev.Meta["callId"] = callID
	}
	if taskID != "" {
		ev.Meta["agentId"] = taskID
		if sub, ok := m.cfg.SubSessions[taskID]; ok {
			ev.Meta["subSession"] = sub
		}
	}
	return &ev
}
