package hookrun_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hookrun"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/txn"
)

// Issue 24, items 1 and 2: a handoff killed between its commit and its
// export. These tests stop the handoff at a crash point of its commit
// (the hook panics there, as a SIGKILL would stop the process: nothing
// after it runs), then look at what each way back into the work does.

// killed is the panic the crash hook stops a handoff with.
type killed struct{ at txn.Point }

// killedHandoff runs a handoff of the fixture's host session that stops at
// point, and returns the home, the transcript, Claude Code's config dir, the
// working directory of the new host session and the handoff's options.
func killedHandoff(t *testing.T, point txn.Point) (home, path, cfg, cwd string, o graft.HandoffOptions) {
	t.Helper()
	home, path = t.TempDir(), transcript(t)
	cfg, cwd = configOf(path), t.TempDir()
	svc, err := graft.Open(home, graft.Options{Hook: func(p txn.Point) {
		if p == point {
			panic(killed{p})
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	o = graft.HandoffOptions{Host: hosts.ClaudeCode, Transcript: path, Cwd: cwd}
	func() {
		defer func() {
			p := recover()
			if k, ok := p.(killed); !ok || k.at != point {
				t.Fatalf("the handoff did not stop at %s: recovered %v", point, p)
			}
		}()
		res, err := svc.Handoff(context.Background(), o)
		t.Fatalf("the handoff ran to its end: %+v, %v", res, err)
	}()
	return home, path, cfg, cwd, o
}

// exportedOf is the exported binding of graft session id, nil when none.
func exportedOf(t *testing.T, home, id string) *hosts.Binding {
	t.Helper()
	svc, err := graft.Open(home, graft.Options{SkipRecovery: true})
	if err != nil {
		t.Fatal(err)
	}
	all, err := svc.Bindings().List()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range hosts.OfSession(all, id) {
		if b.Role == hosts.RoleExported {
			return &b
		}
	}
	return nil
}

const killedTarget = uuid + ".g2"

// Item 1: a handoff killed right after its commit (the record removed, no
// export yet) leaves a committed target that no host can resume. Each way
// back must finish the export or name it.
func TestAHandoffKilledBeforeItsExportIsFinished(t *testing.T) {
	t.Run("the recovery scan exports the owed target", func(t *testing.T) {
		home, _, cfg, _, _ := killedHandoff(t, txn.CommitJournalRemoved)
		svc := mustOpen(t, home) // every command runs the recovery scan
		b := exportedOf(t, home, killedTarget)
		if b == nil {
			t.Fatalf("after the recovery scan %s has no host session (startup report %+v)", killedTarget, svc.Startup)
		}
		if !strings.HasPrefix(b.Path, cfg+string(filepath.Separator)) {
			t.Errorf("exported to %s, want under the handoff's Claude Code config dir %s", b.Path, cfg)
		}
		if fi, err := os.Stat(b.Path); err != nil || fi.Size() != b.Bytes {
			t.Errorf("the exported transcript %s: %v (binding says %d bytes)", b.Path, err, b.Bytes)
		}
	})
	t.Run("status names the owed export", func(t *testing.T) {
		home, _, _, cwd, _ := killedHandoff(t, txn.CommitJournalRemoved)
		svc, err := graft.Open(home, graft.Options{SkipRecovery: true})
		if err != nil {
			t.Fatal(err)
		}
		st, err := svc.Status()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			OwedExports []struct{ Target, Host, Cwd string }
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		realCwd, err := filepath.EvalSymlinks(cwd)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.OwedExports) != 1 || got.OwedExports[0].Target != killedTarget || got.OwedExports[0].Host != string(hosts.ClaudeCode) || got.OwedExports[0].Cwd != realCwd {
			t.Fatalf("status before any recovery: owed exports %+v, want %s owed to claude-code in %s", got.OwedExports, killedTarget, realCwd)
		}
	})
	t.Run("SessionStart of the old host session gives the resume command", func(t *testing.T) {
		home, path, _, _, _ := killedHandoff(t, txn.CommitJournalRemoved)
		in, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.SessionStart, path, `,"source":"resume"`), nil)
		if err != nil {
			t.Fatal(err)
		}
		out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{})
		b := exportedOf(t, home, killedTarget)
		if b == nil || !strings.Contains(string(out.Stdout), "claude --resume "+b.HostSessionID) {
			t.Fatalf("SessionStart: stdout %s, stderr %q, exported binding %+v: want the resume command of %s's host session", out.Stdout, out.Stderr, b, killedTarget)
		}
	})
	t.Run("a re-run of the same handoff finishes it", func(t *testing.T) {
		home, _, _, _, o := killedHandoff(t, txn.CommitJournalRemoved)
		res, err := mustOpen(t, home).Handoff(context.Background(), o)
		if err != nil {
			t.Fatalf("re-run of the handoff: %v (code %s)", err, codeOf(err))
		}
		b := exportedOf(t, home, killedTarget)
		if b == nil || res.ResumeCommand != hosts.ResumeCommand(hosts.ClaudeCode, b.HostSessionID) || res.HostSessionID != b.HostSessionID {
			t.Fatalf("re-run: %+v, binding %+v: want the export of %s and its resume command", res, b, killedTarget)
		}
	})
	t.Run("an intercepted PreCompact of the old session blocks with the resume command", func(t *testing.T) {
		home, path, _, _, _ := killedHandoff(t, txn.CommitJournalRemoved)
		in, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.PreCompact, path, `,"trigger":"auto"`), nil)
		if err != nil {
			t.Fatal(err)
		}
		out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{InterceptCompaction: true})
		var d struct{ Decision, Reason string }
		b := exportedOf(t, home, killedTarget)
		if err := json.Unmarshal(out.Stdout, &d); err != nil || d.Decision != "block" || b == nil || !strings.Contains(d.Reason, "claude --resume "+b.HostSessionID) {
			t.Fatalf("PreCompact after a killed handoff: stdout %s (%v), stderr %q, binding %+v: want a block naming the new host session", out.Stdout, err, out.Stderr, b)
		}
	})
}

func codeOf(err error) graft.Code {
	c, _ := graft.CodeOf(err)
	return c
}

// Item 2: the export's host file was written but not bound (killed between
// the two). The person resumes that host session; following it must go on
// in the graft target it was exported from, not start a new generation-1
// session (a duplicate lineage).
func TestAnOrphanExportIsFollowedIntoItsTarget(t *testing.T) {
	home, _, cfg, cwd, _ := killedHandoff(t, txn.CommitJournalRemoved)
	// The state of a kill after the host file was published, before the
	// binding and the cursor: the export's own file, nothing else.
	svc, err := graft.Open(home, graft.Options{SkipRecovery: true})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := hosts.Export(hosts.ExportOptions{Store: sessionsOf(t, svc), Home: home, Session: killedTarget, Host: hosts.ClaudeCode, Cwd: cwd, Root: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(hosts.Dir(home), string(hosts.ClaudeCode), ex.HostSessionID+".json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(home, "imports", killedTarget+".json")); err != nil {
		t.Fatal(err)
	}
	if _, err := importer.LoadCursor(sessionsOf(t, svc).FS, home, killedTarget); !errors.Is(err, importer.ErrNoCursor) {
		t.Fatalf("the cursor of %s is still there: %v", killedTarget, err)
	}
	// The person resumes the orphan and says something.
	f, err := os.OpenFile(ex.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"user","uuid":"u-resumed","parentUuid":null,"sessionId":"` + ex.HostSessionID + `","timestamp":"2026-12-01T09:00:00.000Z","message":{"role":"user","content":"carry on with the refactor"}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := sessionsOf(t, svc).Info(killedTarget)
	if err != nil {
		t.Fatal(err)
	}
	// Follow without a recovery scan first: the follow itself must know
	// the file (a scan could have been busy).
	fr, err := svc.Follow(hosts.ClaudeCode, ex.Path, "", cwd, nil)
	if err != nil {
		t.Fatalf("following the orphan: %v", err)
	}
	if fr.Session != killedTarget {
		t.Fatalf("the orphan export was followed into %s (role %s), want its target %s", fr.Session, fr.Role, killedTarget)
	}
	if ok, err := sessionsOf(t, svc).Exists(ex.HostSessionID); err != nil || ok {
		t.Fatalf("a session %s exists (%v): a duplicate lineage", ex.HostSessionID, err)
	}
	after, err := sessionsOf(t, svc).Info(killedTarget)
	if err != nil {
		t.Fatal(err)
	}
	if after.LastSeq != before.LastSeq+1 {
		t.Fatalf("%s went from seq %d to %d, want the one resumed line", killedTarget, before.LastSeq, after.LastSeq)
	}
	// And through the hook, as the host runs it.
	in, err := hookrun.Parse(hosts.ClaudeCode, []byte(`{"session_id":"`+ex.HostSessionID+`","transcript_path":"`+ex.Path+`","cwd":"`+cwd+`","hook_event_name":"Stop"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{}); out.Session != killedTarget {
		t.Fatalf("the Stop hook of the resumed export followed it into %q (stderr %q), want %s", out.Session, out.Stderr, killedTarget)
	}
}
