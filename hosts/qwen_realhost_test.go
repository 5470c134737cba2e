package hosts_test

// Qwen Code, end to end through graft's binary: the real Qwen Code
// (internal/hosttest: pinned by the package-lock, offline against a fake
// chat-completions server on 127.0.0.1, a throw-away HOME) writes the
// session; graft imports it, exports a committed target that
// `qwen --resume <id>` resumes with every tape block in its request, hands
// off in one step, and runs as Qwen Code's hooks. Skipped with -short.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/graft-project/graft/internal/hosttest"
)

// qwenTimeout bounds each qwen run.
const qwenTimeout = 60 * time.Second

func newQwenGraft(t *testing.T) (*hosttest.QwenEnv, *hosttest.QwenServer, graftRun) {
	t.Helper()
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewQwenServer(t)
	q := h.NewQwen(t, srv)
	q.Timeout = qwenTimeout
	return q, srv, graftRun{t: t, bin: bin, home: filepath.Join(q.Root, "graft"), env: q.Environ(), dir: q.Dir}
}

// qwenSession is the id and file of the one session q holds.
func qwenSession(t *testing.T, q *hosttest.QwenEnv) (id, path string) {
	t.Helper()
	ss := q.Sessions(t)
	if len(ss) != 1 {
		t.Fatalf("want one Qwen Code session file, have %v", ss)
	}
	return strings.TrimSuffix(filepath.Base(ss[0]), ".jsonl"), ss[0]
}

// lastQwenTurn is the last turn request (not a compression, not the memory
// extraction) the server got.
func lastQwenTurn(t *testing.T, srv *hosttest.QwenServer) hosttest.QwenRequest {
	t.Helper()
	turns := srv.Turns(t)
	if len(turns) == 0 {
		t.Fatalf("Qwen Code sent no turn request:\n%s", srv.Describe())
	}
	return turns[len(turns)-1]
}

// checkQwenCarriesTape fails unless the request holds every tape block
// and the human goal.
func checkQwenCarriesTape(t *testing.T, req hosttest.QwenRequest, blocks []string, goal string) {
	t.Helper()
	for _, b := range blocks {
		if !req.Contains(b) {
			first, _, _ := strings.Cut(b, "\n")
			t.Errorf("the resumed Qwen Code request lacks the tape block %q (%d chars)", first, len(b))
		}
	}
	if !req.Contains(goal) {
		t.Errorf("the resumed Qwen Code request lacks the human goal %q", goal)
	}
}

func checkNoForeign(t *testing.T, srv *hosttest.QwenServer) {
	t.Helper()
	if f := srv.Foreign(); len(f) > 0 {
		t.Errorf("qwen tried to reach %d other hosts:\n%s", len(f), srv.Describe())
	}
}

// graft import qwen, prepare, commit, export qwen: qwen --resume takes the
// export with every tape block; the export again is the same file; then
// graft handoff qwen of the resumed export is generation 3, resumed too.
func TestQwenImportExportResumeAndHandoff(t *testing.T) {
	q, srv, g := newQwenGraft(t)
	goal := "Port the pager to Go. " + constraint
	q.Print(t, goal).Ok(t)
	_, src := qwenSession(t, q)

	if out := g.ok("import", "qwen", src, "--id", "src"); !strings.Contains(out, "imported qwen") {
		t.Fatalf("graft import qwen: %s", out)
	}
	var rv struct{ PreparedID, TapeHash string }
	if err := json.Unmarshal([]byte(g.ok("prepare", "src", "--json")), &rv); err != nil {
		t.Fatal(err)
	}
	var cm struct {
		TargetID string `json:"targetId"`
	}
	if err := json.Unmarshal([]byte(g.ok("commit", rv.PreparedID, "--hash", rv.TapeHash, "--json")), &cm); err != nil || cm.TargetID == "" {
		t.Fatalf("commit: %+v %v", cm, err)
	}
	var ex struct {
		HostSessionID string `json:"hostSessionId"`
		Path          string `json:"path"`
		ResumeCommand string `json:"resumeCommand"`
	}
	exOut := g.ok("export", "qwen", cm.TargetID, "--cwd", q.Dir, "--json")
	if err := json.Unmarshal([]byte(exOut), &ex); err != nil {
		t.Fatal(err)
	}
	if ex.ResumeCommand != "qwen --resume "+ex.HostSessionID || filepath.Dir(ex.Path) != filepath.Dir(src) {
		t.Fatalf("export %+v: want qwen --resume and the folder of %s", ex, src)
	}
	first, err := os.ReadFile(ex.Path)
	if err != nil {
		t.Fatal(err)
	}
	var ex2 struct {
		HostSessionID string `json:"hostSessionId"`
		Path          string `json:"path"`
		Created       bool   `json:"created"`
	}
	if err := json.Unmarshal([]byte(g.ok("export", "qwen", cm.TargetID, "--cwd", q.Dir, "--json")), &ex2); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(ex.Path); ex2.HostSessionID != ex.HostSessionID || ex2.Path != ex.Path || ex2.Created || err != nil || !bytes.Equal(b, first) {
		t.Fatalf("a second export of %s: %+v (%v), want the same session, not written again", cm.TargetID, ex2, err)
	}

	srv.Reset()
	q.Resume(t, ex.HostSessionID, "continue").Ok(t)
	checkQwenCarriesTape(t, lastQwenTurn(t, srv), g.tapeBlocks(cm.TargetID), goal)
	if !strings.Contains(lastQwenTurn(t, srv).LastUser(), "continue") {
		t.Error("the resumed request does not end with the new prompt")
	}
	if b, err := os.ReadFile(ex.Path); err != nil || !bytes.HasPrefix(b, first) || len(b) == len(first) {
		t.Fatalf("qwen did not append to the export (%v)", err)
	}

	// One step: follow the resumed export into the target, prepare, commit,
	// export; generation 3, the constraint still cited in generation 1.
	srv.Reset()
	res3 := g.handoff("qwen", ex.Path, q.Dir)
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the handoff sent %d request(s) to the model server, want none", n)
	}
	checkGeneration3(t, g, res3, "src")
	if res3.Review.Source != cm.TargetID || res3.ResumeCommand != "qwen --resume "+res3.HostSessionID {
		t.Fatalf("second handoff prepared %s (want %s), resume %q", res3.Review.Source, cm.TargetID, res3.ResumeCommand)
	}
	q.Resume(t, res3.HostSessionID, "go on").Ok(t)
	checkQwenCarriesTape(t, lastQwenTurn(t, srv), g.tapeBlocks(res3.Commit.TargetID), goal)
	checkNoForeign(t, srv)
}

// graft hook install qwen into the user's settings.json: the Stop hook
// follows the session and, past autoGraft by the input_tokens Qwen Code
// gives it, prepares a handoff the next prompt's request names; graft
// handoff qwen --session-id hands it off; uninstall gives settings.json
// back byte for byte.
func TestQwenHooksFollowSuggestAndUninstall(t *testing.T) {
	q, srv, g := newQwenGraft(t)
	// Qwen Code 0.24.4 adds "$version": 4 to a settings file without it
	// (its settings migration) at its first run: the person's file has it.
	q.Settings["$version"] = 4
	q.WriteSettings(t)
	before, err := os.ReadFile(q.SettingsPath())
	if err != nil {
		t.Fatal(err)
	}
	installHooks(t, g, "qwen", "autoGraft = 100000\n", "--qwen-home", q.QwenDir)
	installed, err := os.ReadFile(q.SettingsPath())
	if err != nil || bytes.Equal(installed, before) || !bytes.Contains(installed, []byte(`hook qwen`)) {
		t.Fatalf("graft hook install qwen left %s without graft's hooks (%v):\n%s", q.SettingsPath(), err, installed)
	}

	goal := "Port the pager to Go. " + constraint
	srv.SetReplyFunc(func(r hosttest.QwenRequest) hosttest.QwenReply {
		return hosttest.QwenReply{Text: "On it.", PromptTokens: 150000}
	})
	r := q.Print(t, goal).Ok(t)
	id, _ := qwenSession(t, q)
	bs := g.hostSessions()
	if len(bs) != 1 || bs[0].HostSessionID != id || bs[0].Role != "imported" {
		t.Fatalf("after a Qwen Code turn with graft's hooks: host sessions %+v, want %s followed", bs, id)
	}
	if ev := g.ok("show", bs[0].Session); !strings.Contains(ev, constraint) {
		t.Fatalf("the followed session %s lacks the human's words:\n%s", bs[0].Session, ev)
	}
	t.Logf("qwen -p with graft's hooks past autoGraft:\n%s", r)

	// The next prompt: past autoGraft, the model is told how to hand off.
	srv.Reset()
	q.Resume(t, id, "next step").Ok(t)
	if req := lastQwenTurn(t, srv); !req.Contains("handoff qwen --session-id "+id) || !req.Contains("context is at 150000 tokens (autoGraft 100000)") {
		t.Fatalf("past autoGraft the request carries no handoff suggestion:\n%s", srv.Describe())
	}

	// One step, by the session id, from the project directory.
	srv.Reset()
	out := g.ok("handoff", "qwen", "--session-id", id, "--yes", "--json")
	var res handoffResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.HostSessionID == "" {
		t.Fatalf("handoff --session-id: %v\n%s", err, out)
	}
	srv.SetReplyFunc(func(r hosttest.QwenRequest) hosttest.QwenReply {
		return hosttest.QwenReply{Text: "Resumed.", PromptTokens: 10}
	})
	q.Resume(t, res.HostSessionID, "continue").Ok(t)
	checkQwenCarriesTape(t, lastQwenTurn(t, srv), g.tapeBlocks(res.Commit.TargetID), goal)
	// Typing into the old session: the model is told where the work went.
	srv.Reset()
	q.Resume(t, id, "hello?").Ok(t)
	if req := lastQwenTurn(t, srv); !req.Contains("qwen --resume " + res.HostSessionID) {
		t.Fatalf("the old session's next request does not name the handoff:\n%s", srv.Describe())
	}
	checkNoForeign(t, srv)

	g.ok("hook", "uninstall", "qwen", "--qwen-home", q.QwenDir)
	after, err := os.ReadFile(q.SettingsPath())
	if err != nil || !bytes.Equal(after, before) {
		t.Fatalf("graft hook uninstall qwen did not give settings.json back byte for byte (%v):\nbefore:\n%s\nafter:\n%s", err, before, after)
	}
}

// qwenCutBlock matches the constraints block graft's PreCompact hook
// gives Qwen Code when the whole block is past the 4,000 characters Qwen
// Code keeps: the block within them, its cut line last and whole.
var qwenCutBlock = regexp.MustCompile(`^\[graft:tape [0-9a-f]{8}\] \[Anchor \+ Hard Constraints\]\n(?s:.*?)\n\[cut: [0-9]+ constraints; recall seq=[0-9]+(\.\.[0-9]+)?\](\n|$)`)

// qwenHookBlock is what follows "Additional Instructions:" in r, the
// compression request: the PreCompact hook's context as Qwen Code sent it.
func qwenHookBlock(r hosttest.QwenRequest) string {
	for _, v := range r.Strings() {
		if _, after, ok := strings.Cut(v, "Additional Instructions:\n"); ok {
			return after
		}
	}
	return ""
}

// No hook answer stops Qwen Code's compression: graft's PreCompact hook
// puts the constraints block, with its origin, into the summary request,
// and its SessionStart hook (source compact) into the turns after it.
// Past its threshold, in qwen -p: the summary request carries it (the turn
// that compressed was already sent when Qwen Code fires SessionStart
// without waiting). /compress in the interactive Qwen Code (tmux): the
// summary request and the next prompt's request carry it. The prompt
// holds enough constraints that the block passes the 4,000 characters
// Qwen Code keeps of PreCompact's context: the summary request carries
// the block graft cut to fit, its cut line whole; the SessionStart
// context, which Qwen Code does not cut, the whole block.
func TestQwenCompressionKeepsTheConstraints(t *testing.T) {
	q, srv, g := newQwenGraft(t)
	q.Settings["context"] = map[string]any{"autoCompactThreshold": 0.1}
	q.WriteSettings(t)
	installHooks(t, g, "qwen", "", "--qwen-home", q.QwenDir)

	// 80 rules in two prompts, each shorter than the 3,000 bytes past
	// which graft takes an instruction as pasted: a block of about 6,000.
	rules := func(from, to int) string {
		var b strings.Builder
		for k := from; k < to; k++ {
			fmt.Fprintf(&b, " Never rename the exported symbol Widget%03d in package api.", k)
		}
		return b.String()
	}
	goal := "Port the pager to Go. " + constraint + rules(0, 40)
	second := "second step." + rules(40, 80)
	newest := "Never rename the exported symbol Widget079 in package api."
	cutToFit := func(what string, r hosttest.QwenRequest) {
		t.Helper()
		// Qwen Code adds its own directive after it, past a blank line.
		b := strings.TrimSuffix(qwenCutBlock.FindString(qwenHookBlock(r)), "\n")
		if n := len(utf16.Encode([]rune(b))); b == "" || n > 4000 || strings.Contains(b, newest) {
			t.Errorf("%s: the summary request's PreCompact context (%d UTF-16 units) is not the constraints block cut to fit with its cut line last:\n%s", what, n, qwenHookBlock(r))
		}
	}
	// The usage the server reports: set here, read by the server's
	// handlers (Qwen Code may ask in the background, after a run ends).
	var tokens atomic.Int64
	tokens.Store(10)
	srv.SetReplyFunc(func(r hosttest.QwenRequest) hosttest.QwenReply {
		if r.IsCompress() {
			// A lossy summary: no constraint.
			return hosttest.QwenReply{Text: "<state_snapshot>\n<overall_goal>Port the pager.</overall_goal>\n</state_snapshot>", PromptTokens: 100}
		}
		return hosttest.QwenReply{Text: "On it.", PromptTokens: int(tokens.Load())}
	})
	q.Print(t, goal).Ok(t)
	id, _ := qwenSession(t, q)
	anchor := "[ANCHOR] Core constraints originate from generation 1 session "
	carries := func(r hosttest.QwenRequest) bool {
		return r.Contains("[Anchor + Hard Constraints]") && r.Contains(constraint) && r.Contains(anchor)
	}

	// Past the threshold: compressed before the next turn's request.
	tokens.Store(200000)
	q.Resume(t, id, second).Ok(t)
	// Below the threshold, but enough that /compress below is worth it.
	tokens.Store(20000)
	srv.Reset()
	r := q.Resume(t, id, "next step").Ok(t)
	tokens.Store(10)
	comp := srv.Compressions(t)
	if len(comp) != 1 || !carries(comp[0]) {
		t.Fatalf("past its threshold Qwen Code made %d compression requests, want 1 carrying the constraints block with its origin: %s\n%s", len(comp), r, srv.Describe())
	}
	cutToFit("past the threshold", comp[0])

	// /compress, then a prompt, in the interactive Qwen Code.
	tm, err := hosttest.NewTerminal(t, q.Environ(), q.Dir, 200, 50, q.Bin, "--resume", id)
	if errors.Is(err, hosttest.ErrNoTmux) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if screen, ok := tm.WaitFor(30*time.Second, "next step"); !ok {
		t.Fatalf("the interactive Qwen Code did not show the resumed session:\n%s", screen)
	}
	srv.Reset()
	tm.Type("/compress")
	deadline := time.Now().Add(30 * time.Second)
	for len(srv.Compressions(t)) == 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if comp := srv.Compressions(t); len(comp) != 1 || !carries(comp[0]) {
		t.Fatalf("/compress made %d compression requests, want 1 carrying the constraints block:\n%s\n%s", len(comp), tm.Screen(), srv.Describe())
	} else {
		cutToFit("/compress", comp[0])
	}
	if screen, ok := tm.WaitFor(30*time.Second, "ompress"); !ok {
		t.Fatalf("no word of the compression on the screen:\n%s", screen)
	}
	time.Sleep(3 * time.Second) // the SessionStart hook of source compact, which /compress waits for
	srv.Reset()
	tm.Type("third step")
	var turn *hosttest.QwenRequest
	for deadline = time.Now().Add(30 * time.Second); turn == nil && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		// (Not srv.Turns: after a compression a turn's system prompt may
		// read as the memory extraction's.)
		for _, r := range srv.Completions(t) {
			if !r.IsCompress() && strings.Contains(r.LastUser(), "third step") {
				turn = &r
				break
			}
		}
	}
	if turn == nil || !carries(*turn) || !turn.Contains(newest) {
		t.Fatalf("the first turn after /compress lacks the whole constraints block with its origin:\n%s\n%s", tm.Screen(), srv.Describe())
	}
	checkNoForeign(t, srv)
}

// A graft killed mid-commit is rolled back by the SessionStart hook before
// Qwen Code's first request, which is told of it.
func TestQwenSessionStartRecovers(t *testing.T) {
	q, srv, g := newQwenGraft(t)
	_, crash := binaries(t)
	killedCommit(t, crash, g.home, "commit/journal-flushed:after")
	installHooks(t, g, "qwen", "", "--qwen-home", q.QwenDir)
	q.Print(t, "hello").Ok(t)
	if left, _ := filepath.Glob(filepath.Join(g.home, ".txn", "*.json")); len(left) != 0 {
		t.Fatalf("the SessionStart hook left the journal record %v", left)
	}
	turns := srv.Turns(t)
	if len(turns) == 0 || !turns[0].Contains("graft's start-up recovery scan found 1 interrupted graft(s): 1 rolled back") {
		t.Fatalf("the first request does not tell of the recovery:\n%s", srv.Describe())
	}
	checkNoForeign(t, srv)
}
