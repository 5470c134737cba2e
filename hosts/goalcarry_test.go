package hosts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/hosts/gemini"
	"github.com/graft-project/graft/hosts/qwen"
	"github.com/graft-project/graft/session"
)

const carriedObjective = "Port the pager to Go"

// goalTarget makes a source whose host kept a goal with status (its
// /goal), grafts it and returns the service and the target id.
func goalTarget(t *testing.T, status string) (*graft.Service, string) {
	t.Helper()
	user := session.Source{Kind: session.KindUser}
	asst := session.Source{Kind: session.KindAssistant}
	sys := session.Source{Kind: session.KindSystem, Name: "goal_status"}
	return committedTargetOf(t, []session.Event{
		{Type: session.TypeUserMessage, Source: user, Text: "Port the pager to Go. Never change the public API."},
		{Type: session.TypeSystem, Source: sys, Text: "goal active", Meta: map[string]string{session.MetaGoalStatus: "active", session.MetaGoalObjective: carriedObjective}},
		{Type: session.TypeAssistantMessage, Source: asst, Text: "Reading pager.c first."},
		{Type: session.TypeSystem, Source: sys, Text: "goal " + status, Meta: map[string]string{session.MetaGoalStatus: status, session.MetaGoalObjective: carriedObjective}},
		{Type: session.TypeAssistantMessage, Source: asst, Text: "Writing pager.go."},
	})
}

func jsonlRecords(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, ln := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(ln, &m); err != nil {
			t.Fatalf("%v: %s", err, ln)
		}
		out = append(out, m)
	}
	return out
}

// checkGoalRecord fails unless the last record of an export to host is
// the host's record of an active goal with the objective, after the
// acknowledgement, as the host writes it (hosts/doc.go).
func checkGoalRecord(t *testing.T, host hosts.Host, sid string, recs []map[string]any) {
	t.Helper()
	if len(recs) != 3 {
		t.Fatalf("%d records, want the user, the acknowledgement and the goal", len(recs))
	}
	ack, goal := recs[1], recs[2]
	if goal["parentUuid"] != ack["uuid"] || goal["sessionId"] != sid || goal["uuid"] == "" || goal["uuid"] == ack["uuid"] {
		t.Errorf("goal record's parentUuid %v uuid %v sessionId %v: want after %v in %s", goal["parentUuid"], goal["uuid"], goal["sessionId"], ack["uuid"], sid)
	}
	for _, k := range []string{"cwd", "version", "entrypoint", "graftVersion"} {
		if goal[k] != ack[k] {
			t.Errorf("goal record's %s %v, the acknowledgement's %v", k, goal[k], ack[k])
		}
	}
	if ts, _ := goal["timestamp"].(string); ts <= ack["timestamp"].(string) {
		t.Errorf("goal record's timestamp %v is not after the acknowledgement's %v", goal["timestamp"], ack["timestamp"])
	}
	switch host {
	case hosts.ClaudeCode:
		a, _ := goal["attachment"].(map[string]any)
		if goal["type"] != "attachment" || goal["isSidechain"] != false || goal["userType"] != "external" ||
			a["type"] != "goal_status" || a["met"] != false || a["sentinel"] != true || a["condition"] != carriedObjective || len(a) != 4 {
			t.Errorf("goal record %v", goal)
		}
	case qwen.Name:
		p, _ := goal["systemPayload"].(map[string]any)
		s, _ := p["snapshot"].(map[string]any)
		g, _ := s["goal"].(map[string]any)
		c, _ := g["evidenceCursor"].(map[string]any)
		if goal["type"] != "system" || goal["subtype"] != "goal_state" || goal["provenance"] != "goal_control" ||
			p["v"] != 2.0 || p["cause"] != "create" || len(p) != 3 || s["v"] != 2.0 || s["activity"] != "idle" || len(s) != 3 ||
			g["objective"] != carriedObjective || g["status"] != "active" || g["revision"] != 1.0 || g["goalId"] == "" ||
			g["turnCount"] != 0.0 || g["activeTimeMs"] != 0.0 || g["tokensUsed"] != 0.0 || g["createdAt"] == nil || g["createdAt"] != g["updatedAt"] ||
			c["recordId"] != ack["uuid"] || len(c) != 1 || len(g) != 10 {
			t.Errorf("goal record %v", goal)
		}
	}
}

// An export of a target whose inherit carries an active goal writes, for
// a host that restores a goal from its session file (Claude Code, Qwen
// Code: adapter.GoalCarrier), the host's record of it after the
// acknowledgement; a re-export gives the same bytes. A host that does not
// (Codex, whose goal lives in its own database; Gemini CLI, which has no
// /goal) gets none, and neither does a paused goal.
func TestExportCarriesTheActiveGoal(t *testing.T) {
	for _, host := range []hosts.Host{hosts.ClaudeCode, qwen.Name, hosts.Codex, gemini.Name} {
		t.Run(string(host), func(t *testing.T) {
			a, err := hosts.Of(host)
			if err != nil {
				t.Fatal(err)
			}
			_, carrier := a.(adapter.GoalCarrier)
			if carrier != (host == hosts.ClaudeCode || host == qwen.Name) {
				t.Fatalf("%s is a GoalCarrier: %v", host, carrier)
			}
			for _, status := range []string{"active", "paused"} {
				svc, target := goalTarget(t, status)
				res, o, data := exportTarget(t, svc, target, host, t.TempDir())
				recorded := bytes.Contains(data, []byte("goal_status")) || bytes.Contains(data, []byte("goal_state")) || bytes.Contains(data, []byte("thread_goal"))
				if status == "active" && carrier {
					checkGoalRecord(t, host, res.HostSessionID, jsonlRecords(t, data))
				} else if recorded {
					t.Errorf("goal %s: the export to %s holds a goal record:\n%s", status, host, data)
				}
				again, err := hosts.Export(o)
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(res.Path); again.Created || !bytes.Equal(got, data) {
					t.Fatalf("re-export: created %v, the same bytes %v", again.Created, bytes.Equal(got, data))
				}
			}
		})
	}
}

// An export graft wrote before it carried the goal (no goal record) is
// the same export: a re-export leaves it as it is, resumed and written on
// by the host or not.
func TestReExportOfAnExportWithoutTheGoalRecord(t *testing.T) {
	for _, host := range []hosts.Host{hosts.ClaudeCode, qwen.Name} {
		for _, wroteOn := range []bool{false, true} {
			svc, target := goalTarget(t, "active")
			res, o, data := exportTarget(t, svc, target, host, t.TempDir())
			lines := bytes.SplitAfter(data, []byte("\n"))
			old := bytes.Join(lines[:2], nil)
			if bytes.Equal(old, data) || !bytes.HasSuffix(old, []byte("\n")) {
				t.Fatalf("%s: no goal record to take out", host)
			}
			if wroteOn {
				old = append(old, `{"type":"user","uuid":"x"}`+"\n"...)
			}
			if err := os.WriteFile(res.Path, old, 0o600); err != nil {
				t.Fatal(err)
			}
			again, err := hosts.Export(o)
			if err != nil {
				t.Fatalf("%s (written on %v): re-export of the export without the goal record: %v", host, wroteOn, err)
			}
			if got, _ := os.ReadFile(res.Path); again.Created || !bytes.Equal(got, old) {
				t.Fatalf("%s (written on %v): re-export created %v, changed the file %v", host, wroteOn, again.Created, !bytes.Equal(got, old))
			}
		}
	}
}

// The goal record graft writes is read back: the export imported as a
// host session gives, on the next handoff, the host's goal, active.
func TestTheExportsGoalRecordImportsBack(t *testing.T) {
	for _, host := range []hosts.Host{hosts.ClaudeCode, qwen.Name} {
		t.Run(string(host), func(t *testing.T) {
			svc, target := goalTarget(t, "active")
			st := sessionsOf(t, svc)
			o := hosts.ExportOptions{Store: st, Home: svc.Home, Session: target, Host: host, Cwd: t.TempDir(), Root: t.TempDir()}
			res, err := hosts.Export(o)
			if err != nil {
				t.Fatal(err)
			}
			a, err := hosts.Of(host)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Import(adapter.ImportOptions{Store: st, Home: svc.Home, Path: res.Path, ID: "again"}); err != nil {
				t.Fatal(err)
			}
			rv, err := svc.Prepare(context.Background(), "again", graft.PrepareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if g := rv.HostGoal; g == nil || g.Status != "active" || g.Objective != carriedObjective {
				t.Fatalf("imported export's host goal %+v, want %q active", g, carriedObjective)
			}
			// The target itself (the follow's cursor is past graft's
			// lines) starts with the goal its graft/origin carries.
			rv, err = svc.Prepare(context.Background(), target, graft.PrepareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if g := rv.HostGoal; g == nil || g.Status != "active" || g.Objective != carriedObjective || !strings.Contains(rv.Tape, carriedObjective) {
				t.Fatalf("the target's host goal %+v, want %q active", g, carriedObjective)
			}
		})
	}
}
