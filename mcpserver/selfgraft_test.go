package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/txn"
)

const selfUUID = "7b1d2c3e-4f50-4a6b-8c7d-9e0f1a2b3c4d"

// claudeProject points CLAUDE_CONFIG_DIR at a throw-away directory and
// makes the project folder Claude Code keeps a working directory's
// transcripts in; data is a real transcript to put there.
func claudeProject(t *testing.T) (cwd, folder string, data []byte) {
	t.Helper()
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	cwd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(testfixtures.Path(t, "claude-code", "tool_heavy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	folder = filepath.Join(cfg, "projects", hosts.ClaudeProjectDirName(cwd))
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	return cwd, folder, data
}

// TestSelfGraftFromTheHostSession: an agent in Claude Code grafts its own
// session: graft_prepare {host} finds it (given, by the hooks' record, or
// the newest transcript of the directory), graft_commit returns the new
// host session and its resume command.
func TestSelfGraftFromTheHostSession(t *testing.T) {
	cwd, folder, data := claudeProject(t)
	transcript := filepath.Join(folder, selfUUID+".jsonl")
	if err := os.WriteFile(transcript, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{Cwd: cwd}, graft.Options{})

	// Not both, and a host session id needs host.
	f.fails(ToolPrepare, map[string]any{"source": "s", "host": "claude-code"}, string(CodeInvalidInput))
	f.fails(ToolPrepare, map[string]any{"hostSessionId": selfUUID}, string(CodeInvalidInput))
	f.fails(ToolPrepare, map[string]any{"host": "aider"}, string(CodeInvalidInput))
	f.fails(ToolPrepare, map[string]any{"host": "claude-code", "transcript": filepath.Join(cwd, "missing-"+selfUUID+".jsonl")}, "bad_host_session_id")
	// Issue 24, item 12: an upper-case id is refused, as the hook refuses it.
	f.fails(ToolPrepare, map[string]any{"host": "claude-code", "hostSessionId": strings.ToUpper(selfUUID)}, "bad_host_session_id")

	// No hooks: the newest transcript of the directory, and the review says so.
	rv := f.prepare(map[string]any{"host": "claude-code"})
	if rv.HostSession == nil || rv.HostSession.HostSessionID != selfUUID || !strings.HasPrefix(rv.HostSession.Picked, "newest") || rv.Source != selfUUID {
		t.Fatalf("prepare {host}: source %s, host session %+v; want %s picked as the newest", rv.Source, rv.HostSession, selfUUID)
	}
	mustContain(t, "next", rv.Next, "tell the user which host session this is")

	// With the hooks' record the session followed last here is picked.
	if _, err := f.svc.Follow(hosts.ClaudeCode, transcript, selfUUID, cwd, nil); err != nil {
		t.Fatal(err)
	}
	rv = f.prepare(map[string]any{"host": "claude-code"})
	if !strings.HasPrefix(rv.HostSession.Picked, "hooks") {
		t.Fatalf("prepare {host} after a hook followed it: picked %q, want hooks", rv.HostSession.Picked)
	}
	cr := f.commit(rv)
	if cr.HostSession == nil || cr.ExportError != "" || cr.HostSession.Host != "claude-code" ||
		cr.HostSession.ResumeCommand != "claude --resume "+cr.HostSession.HostSessionID || filepath.Dir(cr.HostSession.Path) != folder {
		t.Fatalf("commit: host session %+v, export error %q; want a Claude Code session in %s", cr.HostSession, cr.ExportError, folder)
	}
	mustContain(t, "next", cr.Next, cr.HostSession.ResumeCommand)
	if _, err := os.Stat(cr.HostSession.Path); err != nil {
		t.Fatalf("the exported transcript: %v", err)
	}
	// The same host session again: handed off, refused.
	f.fails(ToolPrepare, map[string]any{"host": "claude-code", "hostSessionId": selfUUID}, "retired")

	// A graft session that lives in no host commits without an export.
	plain := f.commit(f.prepare(nil))
	if plain.HostSession != nil || plain.ExportError != "" {
		t.Fatalf("commit of a session in no host: %+v %q, want no export", plain.HostSession, plain.ExportError)
	}
}

// A transcript without host is its host's by its first lines, as graft
// import <file> tells it: the review names the host session; a file no
// host's records are in is unknown_transcript, nothing imported.
func TestPrepareTellsTheHostOfATranscript(t *testing.T) {
	cwd, folder, data := claudeProject(t)
	transcript := filepath.Join(folder, selfUUID+".jsonl")
	if err := os.WriteFile(transcript, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{Cwd: cwd}, graft.Options{})
	notes := filepath.Join(cwd, "notes.txt")
	if err := os.WriteFile(notes, []byte("remember the milk\nand the bread\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	msg := f.fails(ToolPrepare, map[string]any{"transcript": notes}, "unknown_transcript")
	mustContain(t, "refusal", msg, "holds no record of a host graft knows")
	rv := f.prepare(map[string]any{"transcript": transcript})
	if rv.HostSession == nil || rv.HostSession.Host != "claude-code" || rv.HostSession.HostSessionID != selfUUID || rv.Source != selfUUID {
		t.Fatalf("prepare {transcript}: source %s, host session %+v; want Claude Code session %s", rv.Source, rv.HostSession, selfUUID)
	}
}

// Issue 24, item 7: two terminals in one directory, each followed by the
// hooks within minutes of the other: graft_prepare {host} does not guess
// which one the agent runs in; it refuses and lists both (ids, last
// activity); naming one prepares it.
func TestTwoRecentHostSessionsInOneDirectoryAreNotGuessed(t *testing.T) {
	cwd, folder, data := claudeProject(t)
	f := newFixture(t, Options{Cwd: cwd}, graft.Options{})
	other := "8c2e3d4f-5061-4b7c-9d8e-0f1a2b3c4d5e"
	for _, id := range []string{selfUUID, other} {
		p := filepath.Join(folder, id+".jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Follow(hosts.ClaudeCode, p, id, cwd, nil); err != nil {
			t.Fatal(err)
		}
	}
	msg := f.fails(ToolPrepare, map[string]any{"host": "claude-code"}, "ambiguous_host_session")
	mustContain(t, "refusal", msg, selfUUID)
	mustContain(t, "refusal", msg, other)
	rv := f.prepare(map[string]any{"host": "claude-code", "hostSessionId": other})
	if rv.Source != other {
		t.Fatalf("prepare naming %s prepared %s", other, rv.Source)
	}
}

// Issue 24, item 1, for MCP: graft_commit of a session that lives in a host
// owes the host its export as the commit's durable intent, as graft handoff
// does. A server stopped between the commit and the export (the crash
// hook panics there) leaves the export owed, and the next graft process
// writes it.
func TestSelfGraftStoppedBeforeItsExportIsFinished(t *testing.T) {
	for _, at := range []txn.Point{txn.CommitJournalRemoved, txn.ExportLocked} {
		t.Run(string(at), func(t *testing.T) { selfGraftStoppedAt(t, at) })
	}
}

func selfGraftStoppedAt(t *testing.T, at txn.Point) {
	cwd, folder, data := claudeProject(t)
	transcript := filepath.Join(folder, selfUUID+".jsonl")
	if err := os.WriteFile(transcript, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{Cwd: cwd}, graft.Options{Hook: func(p txn.Point) {
		if p == at {
			panic("stopped at " + string(p))
		}
	}})
	if _, err := f.svc.Follow(hosts.ClaudeCode, transcript, selfUUID, cwd, nil); err != nil {
		t.Fatal(err)
	}
	rv := f.prepare(map[string]any{"host": "claude-code"})
	f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash}, "internal_error")

	st, err := f.svc.Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.OwedExports) != 1 || st.OwedExports[0].Host != "claude-code" || st.OwedExports[0].HostSession != selfUUID || st.OwedExports[0].Cwd != cwd {
		t.Fatalf("owed exports after a commit stopped before its export: %+v; want the Claude Code session of %s", st.OwedExports, cwd)
	}
	target := st.OwedExports[0].Target

	// The next graft process's recovery scan writes it where the handoff
	// would have.
	next, err := graft.Open(f.home, graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(next.OwedFinished) != 1 || next.OwedFinished[0].Export == nil || filepath.Dir(next.OwedFinished[0].Export.Path) != folder {
		t.Fatalf("the next process finished %+v; want the export of %s in %s", next.OwedFinished, target, folder)
	}
	all, err := next.Bindings().List()
	if err != nil {
		t.Fatal(err)
	}
	exported := false
	for _, b := range hosts.OfSession(all, target) {
		exported = exported || b.Role == hosts.RoleExported
	}
	if !exported {
		t.Fatalf("%s is bound to no exported host session", target)
	}
	if st, err := next.Status(); err != nil || len(st.OwedExports) != 0 {
		t.Fatalf("owed exports after the next process: %+v, %v; want none", st, err)
	}
}

// projectWithRules is a Claude Code project (claudeProject) whose session
// is selfUUID's and whose CLAUDE.md holds a rule, an empty CODEX_HOME, and
// a server working in it.
func projectWithRules(t *testing.T) (cwd string, f *fixture) {
	t.Helper()
	cwd, folder, data := claudeProject(t)
	if err := os.WriteFile(filepath.Join(folder, selfUUID+".jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "CLAUDE.md"), []byte("# Rules\n\nRun make lint before any commit.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_HOME", t.TempDir())
	return cwd, newFixture(t, Options{Cwd: cwd}, graft.Options{})
}

// graft_commit with another host: the host session's notes name the
// project's instruction file the first host read and the new one does not
// (CLAUDE.md, which Codex does not read), and next asks the agent to tell
// the user; committed to the same host, no such note.
func TestCommitToAnotherHostNamesTheInstructionFileItLeaves(t *testing.T) {
	cwd, f := projectWithRules(t)
	rv := f.prepare(map[string]any{"host": "claude-code"})
	cr := ok[CommitOutput](f, ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash, "host": "codex"})
	if cr.HostSession == nil || cr.HostSession.Host != "codex" || len(cr.HostSession.Notes) != 1 {
		t.Fatalf("commit to codex: host session %+v (export error %q): want a Codex session with one note", cr.HostSession, cr.ExportError)
	}
	mustContain(t, "note", cr.HostSession.Notes[0], filepath.Join(cwd, "CLAUDE.md"), "Codex does not read CLAUDE.md")
	mustContain(t, "next", cr.Next, "notes")

	back := f.prepare(map[string]any{"host": "codex", "hostSessionId": cr.HostSession.HostSessionID})
	same := ok[CommitOutput](f, ToolCommit, map[string]any{"preparedId": back.PreparedID, "tapeHash": back.TapeHash})
	if same.HostSession == nil || len(same.HostSession.Notes) != 0 {
		t.Fatalf("commit to the same host: host session %+v, want no note", same.HostSession)
	}
}

// graft_prepare with to (the host the work goes on in) prepares the tape
// graft handoff --to does: its Handoff block tells the agent which
// instruction file of the project the first host read and the new one does
// not, to read it first, and the review's warnings tell the person. Its
// graft_commit to that host says the tape tells the agent; committed to
// another host than the one its tape names, it is refused, since the tape
// would tell the agent a wrong host. to without a host session, or to a
// host graft does not know, is refused too.
func TestPrepareToAnotherHostTellsTheAgentToReadTheRulesLeftBehind(t *testing.T) {
	cwd, f := projectWithRules(t)
	f.fails(ToolPrepare, map[string]any{"host": "claude-code", "to": "emacs"}, string(CodeInvalidInput))
	f.fails(ToolPrepare, map[string]any{"source": "s", "to": "codex"}, "invalid_options")

	rv := f.prepare(map[string]any{"host": "claude-code", "to": "codex"})
	_, handoff, _ := strings.Cut(rv.Tape, "] [Handoff]\n")
	handoff, _, _ = strings.Cut(handoff, "\n\n")
	mustContain(t, "the tape's Handoff block", handoff, "It goes on in Codex", "Codex does not read CLAUDE.md, which Claude Code read into its model's context: read it before you go on")
	mustContain(t, "warnings", strings.Join(rv.Warnings, "\n"), filepath.Join(cwd, "CLAUDE.md"), "the tape tells the agent to read it first")

	f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash}, "invalid_options")
	f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash, "host": "gemini"}, "invalid_options")
	cr := ok[CommitOutput](f, ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash, "host": "codex"})
	if cr.HostSession == nil || cr.HostSession.Host != "codex" || len(cr.HostSession.Notes) != 1 {
		t.Fatalf("commit to codex: host session %+v (export error %q): want a Codex session with one note", cr.HostSession, cr.ExportError)
	}
	mustContain(t, "note", cr.HostSession.Notes[0], "Codex does not read CLAUDE.md", "the tape tells the agent to read it first")
}

// graft_prepare names the goal the host still pursues (its /goal: Claude
// Code 2.1.332's goal_status attachment, not met), and graft_commit
// exports it into the new Claude Code session, whose transcript ends with
// the goal's goal_status: the host session notes say the goal goes on
// there.
func TestCommitSaysTheGoalGoesOnInTheNewSession(t *testing.T) {
	cwd, folder, data := claudeProject(t)
	goal := `{"parentUuid":"29e6224a-ea4f-445c-964f-d2bb7a2c31aa","isSidechain":false,"attachment":{"type":"goal_status","met":false,"condition":"All tests in ./parser pass","reason":"two fail"},"type":"attachment","uuid":"fef533eb-f8d5-4463-8e19-872774b2f762","timestamp":"2026-02-12T20:31:00.000Z","sessionId":"d6e0bada-1959-4eec-a9d2-0bfade768d8f","cwd":"/home/marco/projects/spotter","version":"2.1.332"}` + "\n"
	if err := os.WriteFile(filepath.Join(folder, selfUUID+".jsonl"), append(data, goal...), 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{Cwd: cwd}, graft.Options{})
	rv := f.prepare(map[string]any{"host": "claude-code"})
	if rv.HostGoal == nil || rv.HostGoal.Status != "active" || rv.HostGoal.Objective != "All tests in ./parser pass" {
		t.Fatalf("the review's host goal is %+v, want the active goal", rv.HostGoal)
	}
	cr := ok[CommitOutput](f, ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash})
	if cr.HostSession == nil || len(cr.HostSession.Notes) != 1 {
		t.Fatalf("commit: host session %+v (export error %q): want one note", cr.HostSession, cr.ExportError)
	}
	mustContain(t, "note", cr.HostSession.Notes[0], "it goes on in the new session: Claude Code restores it on resume", "(All tests in ./parser pass)")
	mustContain(t, "next", cr.Next, "notes")
	export, err := os.ReadFile(cr.HostSession.Path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(export), "\n"), "\n")
	mustContain(t, "the export's last line", lines[len(lines)-1], `"type":"attachment","attachment":{"type":"goal_status","met":false,"sentinel":true,"condition":"All tests in ./parser pass"}`)
}
