package hosts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/session"
)

// exportNew commits a fresh target and exports it to host under root; it
// returns the result, the options (for a re-export) and the file's bytes.
func exportNew(t *testing.T, host hosts.Host, root string) (*hosts.ExportResult, hosts.ExportOptions, []byte) {
	t.Helper()
	svc, target := committedTarget(t)
	return exportTarget(t, svc, target, host, root)
}

// exportTarget exports target of svc to host under root; it returns the
// result, the options (for a re-export) and the file's bytes.
func exportTarget(t *testing.T, svc *graft.Service, target string, host hosts.Host, root string) (*hosts.ExportResult, hosts.ExportOptions, []byte) {
	t.Helper()
	o := hosts.ExportOptions{Store: sessionsOf(t, svc), Home: svc.Home, Session: target, Host: host, Cwd: t.TempDir(), Root: root}
	res, err := hosts.Export(o)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	return res, o, data
}

// committedTarget makes a source with a human goal and a constraint,
// grafts it and returns the service and the target id.
func committedTarget(t *testing.T) (*graft.Service, string) {
	t.Helper()
	user := session.Source{Kind: session.KindUser}
	asst := session.Source{Kind: session.KindAssistant}
	return committedTargetOf(t, []session.Event{
		{Type: session.TypeUserMessage, Source: user, Text: "Port the pager to Go. Never change the public API."},
		{Type: session.TypeAssistantMessage, Source: asst, Text: "Reading pager.c first."},
		{Type: session.TypeUserMessage, Source: user, Text: "Now add tests for the last page."},
		{Type: session.TypeAssistantMessage, Source: asst, Text: "Writing pager_test.go.\n\nThe last-page test fails at n=0."},
	})
}

// committedTargetOf appends evs to a source in a new home, grafts it and
// returns the service and the target id.
func committedTargetOf(t *testing.T, evs []session.Event) (*graft.Service, string) {
	t.Helper()
	svc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Append("src", evs); err != nil {
		t.Fatal(err)
	}
	rv, err := svc.Prepare(context.Background(), "src", graft.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "")
	if err != nil {
		t.Fatal(err)
	}
	return svc, res.TargetID
}

func tapeTexts(t *testing.T, st *session.Store, id string) []string {
	t.Helper()
	evs, _, err := st.ReadAll(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs[1:evs[0].TapeEvents] {
		out = append(out, ev.Text)
	}
	return out
}

func TestExportClaudeCode(t *testing.T) {
	svc, target := committedTarget(t)
	cfg, cwd := t.TempDir(), t.TempDir()
	o := hosts.ExportOptions{Store: sessionsOf(t, svc), Home: svc.Home, Session: target, Host: hosts.ClaudeCode, Cwd: cwd, Root: cfg}
	res, err := hosts.Export(o)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(cwd)
	want := filepath.Join(cfg, "projects", hosts.ClaudeProjectDirName(real), res.HostSessionID+".jsonl")
	if res.Path != want || !res.Created || res.ResumeCommand != "claude --resume "+res.HostSessionID {
		t.Fatalf("export = %+v, want path %s, created, claude --resume", res, want)
	}
	data, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("%d lines, want a user and an assistant record", len(lines))
	}
	var prev any
	var got []string
	for k, ln := range lines {
		var rec struct {
			Type       string  `json:"type"`
			UUID       string  `json:"uuid"`
			ParentUUID *string `json:"parentUuid"`
			SessionID  string  `json:"sessionId"`
			Timestamp  string  `json:"timestamp"`
			Message    struct {
				Role    string `json:"role"`
				Content []struct {
					Type, Text string
				} `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(ln, &rec); err != nil {
			t.Fatalf("line %d: %v", k+1, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, ln); err != nil || !bytes.Equal(compact.Bytes(), ln) {
			t.Errorf("line %d is not compact JSON", k+1)
		}
		if k == 0 && rec.ParentUUID != nil || k == 1 && (rec.ParentUUID == nil || *rec.ParentUUID != prev) {
			t.Errorf("line %d parentUuid %v, want the previous uuid %v", k+1, rec.ParentUUID, prev)
		}
		prev = rec.UUID
		if rec.SessionID != res.HostSessionID || rec.Type != []string{"user", "assistant"}[k] || rec.Message.Role != rec.Type {
			t.Errorf("line %d: type %s role %s session %s", k+1, rec.Type, rec.Message.Role, rec.SessionID)
		}
		if !strings.HasSuffix(rec.Timestamp, "Z") || len(rec.Timestamp) != len("2006-01-02T15:04:05.000Z") {
			t.Errorf("line %d timestamp %q is not ISO-8601 with milliseconds", k+1, rec.Timestamp)
		}
		for _, c := range rec.Message.Content {
			got = append(got, c.Text)
		}
	}
	tape := tapeTexts(t, sessionsOf(t, svc), target)
	// The acknowledgement (tape event 2) closes the turn, after the blocks.
	wantTexts := append(append([]string{tape[0]}, tape[2:]...), tape[1])
	if strings.Join(got, "\x00") != strings.Join(wantTexts, "\x00") {
		t.Errorf("exported texts differ from the tape:\n got %q\nwant %q", got, wantTexts)
	}

	// Idempotent: the same id and bytes, nothing new written.
	again, err := hosts.Export(o)
	if err != nil {
		t.Fatal(err)
	}
	if again.HostSessionID != res.HostSessionID || again.Path != res.Path || again.Created {
		t.Fatalf("second export = %+v, want the first's id and path, not created", again)
	}
	if data2, _ := os.ReadFile(res.Path); !bytes.Equal(data, data2) {
		t.Fatal("second export changed the transcript")
	}
	// Issue 24, item 4: the host file deleted, a re-export writes it again
	// and says it created it.
	if err := os.Remove(res.Path); err != nil {
		t.Fatal(err)
	}
	back, err := hosts.Export(o)
	if err != nil {
		t.Fatal(err)
	}
	if data3, _ := os.ReadFile(res.Path); !back.Created || !bytes.Equal(data, data3) {
		t.Fatalf("re-export after the host file was deleted: created %v, the same bytes %v", back.Created, bytes.Equal(data, data3))
	}
	// Into the other host: refused (one target, one host session).
	o.Host = hosts.Codex
	o.Root = t.TempDir()
	if _, err := hosts.Export(o); !errors.Is(err, hosts.ErrBoundElsewhere) {
		t.Fatalf("export of the same target to codex: %v, want ErrBoundElsewhere", err)
	}
	bs, err := hosts.List(sessionsOf(t, svc).FS, svc.Home)
	if err != nil || len(bs) != 1 || bs[0].Session != target || bs[0].Role != hosts.RoleExported {
		t.Fatalf("bindings %+v (%v), want one exported binding of %s", bs, err, target)
	}
}

func TestExportCodexAndFollow(t *testing.T) {
	svc, target := committedTarget(t)
	home, cwd := t.TempDir(), t.TempDir()
	res, err := hosts.Export(hosts.ExportOptions{Store: sessionsOf(t, svc), Home: svc.Home, Session: target, Host: hosts.Codex, Cwd: cwd, Root: home})
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(filepath.Join(home, "sessions"), res.Path)
	if err != nil || len(strings.Split(rel, string(filepath.Separator))) != 4 || !strings.HasPrefix(filepath.Base(rel), "rollout-") || !strings.HasSuffix(rel, "-"+res.HostSessionID+".jsonl") {
		t.Fatalf("rollout at %s, want sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl", res.Path)
	}
	if res.HostSessionID[14] != '7' {
		t.Errorf("codex session id %s is not a version-7 uuid", res.HostSessionID)
	}
	data, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	var first struct {
		Type    string
		Payload struct{ ID, Cwd string }
	}
	if err := json.Unmarshal(data[:bytes.IndexByte(data, '\n')], &first); err != nil || first.Type != "session_meta" || first.Payload.ID != res.HostSessionID {
		t.Fatalf("first line %+v (%v), want session_meta with the id", first, err)
	}
	before, err := sessionsOf(t, svc).Info(target)
	if err != nil {
		t.Fatal(err)
	}
	// Following the untouched rollout appends nothing.
	fr, err := hosts.Follow(hosts.FollowOptions{Store: sessionsOf(t, svc), Home: svc.Home, Host: hosts.Codex, Path: res.Path})
	if err != nil {
		t.Fatal(err)
	}
	if fr.Session != target || fr.Import == nil || fr.Import.Appended != 0 {
		t.Fatalf("follow of the fresh export = %+v, want nothing appended to %s", fr, target)
	}
	// The host resumes and writes a turn: it lands in the target.
	f, err := os.OpenFile(res.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	turn := `{"timestamp":"2026-11-30T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Also keep the C build working."}]}}` + "\n" +
		`{"timestamp":"2026-11-30T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Also keep the C build working.","images":[]}}` + "\n"
	if _, err := f.WriteString(turn); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fr, err = hosts.Follow(hosts.FollowOptions{Store: sessionsOf(t, svc), Home: svc.Home, Host: hosts.Codex, Path: res.Path})
	if err != nil {
		t.Fatal(err)
	}
	if fr.Session != target || fr.Import.Appended != 1 || fr.Import.FirstSeq != before.LastSeq+1 {
		t.Fatalf("follow = %+v (import %+v), want one event appended to %s at seq %d", fr, fr.Import, target, before.LastSeq+1)
	}
	evs, _, err := sessionsOf(t, svc).ReadAll(target)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	if !last.IsHumanInstruction() || last.Text != "Also keep the C build working." {
		t.Fatalf("last event of %s = %+v, want the human's new instruction", target, last)
	}
}

func TestExportRefusals(t *testing.T) {
	svc, target := committedTarget(t)
	cfg := t.TempDir()
	o := hosts.ExportOptions{Store: sessionsOf(t, svc), Home: svc.Home, Session: "src", Host: hosts.ClaudeCode, Cwd: t.TempDir(), Root: cfg}
	if _, err := hosts.Export(o); !errors.Is(err, hosts.ErrNotTarget) {
		t.Errorf("export of the source: %v, want ErrNotTarget", err)
	}
	o.Session, o.Cwd = target, filepath.Join(t.TempDir(), "missing")
	if _, err := hosts.Export(o); !errors.Is(err, hosts.ErrBadCwd) {
		t.Errorf("export with a missing cwd: %v, want ErrBadCwd", err)
	}
	// A file of someone else's at the path: refused, left as it was.
	o.Cwd = t.TempDir()
	res, err := hosts.Export(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(res.Path, []byte("{\"other\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := hosts.Export(o); !errors.Is(err, hosts.ErrExportExists) {
		t.Errorf("export over a changed transcript: %v, want ErrExportExists", err)
	}
	if b, _ := os.ReadFile(res.Path); string(b) != "{\"other\":1}\n" {
		t.Errorf("the other file was changed: %q", b)
	}
	entries, err := os.ReadDir(filepath.Dir(res.Path))
	if err != nil || len(entries) != 1 {
		t.Errorf("the project folder holds %d entries (%v), want the transcript alone (no temporary files)", len(entries), err)
	}
}

func TestClaudeProjectDirName(t *testing.T) {
	long := ""
	for k := 0; k < 10; k++ {
		long += "/verylongdirectoryname0" + string(rune('0'+k))
	}
	for _, c := range []struct{ in, want string }{
		{"/tmp/p/a_b.c", "-tmp-p-a-b-c"},
		{"/home/user/proj", "-home-user-proj"},
		{"/tmp/é€😀", "-tmp-----"}, // é and € one UTF-16 unit each, 😀 two
		// Past 200 characters: cut, then the base-36 Java string hash
		// (computed independently, in Python).
		{long, strings.Repeat("x", 0) + hosts.ClaudeProjectDirName(long)[:200] + "-icwzir"},
	} {
		if got := hosts.ClaudeProjectDirName(c.in); got != c.want {
			t.Errorf("ClaudeProjectDirName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := hosts.ClaudeProjectDirName(long)[:25]; got != "-verylongdirectoryname00-" {
		t.Errorf("long name starts %q", got)
	}
}

func TestContextTokens(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		host  hosts.Host
		lines string
		want  int64
		ok    bool
	}{
		{hosts.ClaudeCode, `{"type":"assistant","message":{"usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":100}}}` + "\n" +
			`{"type":"assistant","message":{"usage":{"input_tokens":20,"cache_creation_input_tokens":30,"cache_read_input_tokens":1000}}}` + "\n" +
			`{"type":"user","message":{"content":"usage"}}` + "\n", 1050, true},
		{hosts.ClaudeCode, `{"type":"user","message":{"content":"hi"}}` + "\n", 0, false},
		{hosts.Codex, `{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":400000},"last_token_usage":{"input_tokens":200000}}}}` + "\n" +
			`{"type":"event_msg","payload":{"type":"token_count","info":null}}` + "\n", 200000, true},
		{hosts.Codex, `{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":7}}}}` + "\n", 7, true},
	} {
		p := filepath.Join(dir, "t.jsonl")
		if err := os.WriteFile(p, []byte(c.lines), 0o600); err != nil {
			t.Fatal(err)
		}
		n, ok, err := hosts.ContextTokens(c.host, p)
		if err != nil || n != c.want || ok != c.ok {
			t.Errorf("%s %q: %d %v %v, want %d %v", c.host, c.lines, n, ok, err, c.want, c.ok)
		}
	}
	// The real Codex sample records its usage.
	n, ok, err := hosts.ContextTokens(hosts.Codex, filepath.Join("..", "testdata", "fixtures", "hosts", "codex-0.169.0-compacted.jsonl"))
	if err != nil || !ok || n <= 0 {
		t.Errorf("codex sample: %d %v %v, want its last token count", n, ok, err)
	}
}

// TestFIFOTranscriptIsRefused: a FIFO named like a transcript is refused at
// once by follow and by the context-size read (its open would wait for a
// writer).
func TestFIFOTranscriptIsRefused(t *testing.T) {
	svc, _ := committedTarget(t)
	p := filepath.Join(t.TempDir(), "0f3c9a52-6f0e-4c1b-9a57-1d2e3f4a5b6c.jsonl")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 2)
	go func() {
		_, err := hosts.Follow(hosts.FollowOptions{Store: sessionsOf(t, svc), Home: svc.Home, Host: hosts.ClaudeCode, Path: p})
		done <- err
	}()
	go func() {
		_, _, err := hosts.ContextTokens(hosts.ClaudeCode, p)
		done <- err
	}()
	for k := 0; k < 2; k++ {
		select {
		case err := <-done:
			if !errors.Is(err, hosts.ErrNoTranscript) {
				t.Errorf("a FIFO: %v, want ErrNoTranscript", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("reading a FIFO transcript blocked")
		}
	}
}

// Issue 24, item 11: a re-export that cannot go where the first one went
// names what changed. Asked for with no working directory, while the
// host's directory moved (the first one gone), it names the host's
// directory and the variable that sets it, not "--cwd"; asked for from
// another working directory, it names that.
func TestReExportElsewhereNamesWhatChanged(t *testing.T) {
	svc, target := committedTarget(t)
	first, cwd := filepath.Join(t.TempDir(), "claude-first"), t.TempDir()
	o := hosts.ExportOptions{Store: sessionsOf(t, svc), Home: svc.Home, Session: target, Host: hosts.ClaudeCode, Cwd: cwd, Root: first}
	if _, err := hosts.Export(o); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(first); err != nil {
		t.Fatal(err)
	}
	o.Cwd, o.Root = "", t.TempDir()
	_, err := hosts.Export(o)
	if !errors.Is(err, hosts.ErrBoundElsewhere) {
		t.Fatalf("re-export into another host directory: %v, want ErrBoundElsewhere", err)
	}
	for _, want := range []string{first, o.Root, "CLAUDE_CONFIG_DIR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v: does not name %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "--cwd") {
		t.Errorf("%v: names --cwd, which was not given", err)
	}

	o.Cwd, o.Root = t.TempDir(), first
	_, err = hosts.Export(o)
	if !errors.Is(err, hosts.ErrBoundElsewhere) || !strings.Contains(err.Error(), "omit --cwd") {
		t.Fatalf("re-export from another directory: %v, want ErrBoundElsewhere naming --cwd", err)
	}
}

// sessionsOf opens the session store of svc's home, as graft does (the
// service keeps its own to itself).
func sessionsOf(t testing.TB, svc *graft.Service) *session.Store {
	t.Helper()
	st, err := session.OpenStore(svc.FS, svc.Home)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
