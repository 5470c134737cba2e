package hosts_test

// The handoff into the real hosts: graft's binary and the real Claude Code
// and Codex (internal/hosttest: pinned by a package-lock, offline, against a
// fake model server on 127.0.0.1 that records every request, in throw-away
// profiles). Skipped with -short.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/graft-project/graft/internal/hosttest"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// The real work session of the fixtures, and the constraint its person adds
// (the recorded session states none).
const (
	fixtureID  = "4d5611e5-241a-462a-8d15-5122611a9569"
	constraint = "Never push to main without running the tests."
)

var (
	buildOnce  sync.Once
	buildDir   string
	buildErr   error
	graftBin   string
	graftCrash string
)

// binaries builds graft and graft with crash points once per test binary.
func binaries(t *testing.T) (normal, crash string) {
	t.Helper()
	root := testfixtures.ModuleRoot(t)
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "graft-realhost-"); buildErr != nil {
			return
		}
		graftBin, graftCrash = filepath.Join(buildDir, "graft"), filepath.Join(buildDir, "graft-crash")
		for _, b := range [][]string{{"-o", graftBin}, {"-tags", "crashpoints", "-o", graftCrash}} {
			cmd := exec.Command("go", append(append([]string{"build"}, b...), "./cmd/graft")...)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %v: %v\n%s", b, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return graftBin, graftCrash
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		if err := os.RemoveAll(buildDir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// graftRun runs graft with the host's environment (so it finds the same
// CLAUDE_CONFIG_DIR / CODEX_HOME) in dir.
type graftRun struct {
	t    *testing.T
	bin  string
	home string
	env  []string
	dir  string
}

func (g graftRun) run(args ...string) (stdout, stderr string, code int) {
	g.t.Helper()
	cmd := exec.Command(g.bin, append([]string{"--home", g.home}, args...)...)
	cmd.Env, cmd.Dir = g.env, g.dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		g.t.Fatalf("graft %v: %v", args, err)
	}
	return o.String(), e.String(), code
}

func (g graftRun) ok(args ...string) string {
	g.t.Helper()
	out, errOut, code := g.run(args...)
	if code != 0 {
		g.t.Fatalf("graft %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
	}
	return out
}

// handoffResult is the part of graft handoff --json the tests read.
type handoffResult struct {
	Host          string `json:"host"`
	HostSessionID string `json:"hostSessionId"`
	Path          string `json:"path"`
	ResumeCommand string `json:"resumeCommand"`
	Review        struct {
		Source string `json:"source"`
		Goal   []struct {
			Text string `json:"text"`
		} `json:"goal"`
		Constraints []struct {
			Text   string `json:"text"`
			Origin struct {
				Generation int    `json:"generation"`
				Session    string `json:"session"`
				Seq        int64  `json:"seq"`
			} `json:"origin"`
		} `json:"constraints"`
	} `json:"review"`
	Commit struct {
		TargetID   string `json:"targetId"`
		Generation int    `json:"generation"`
	} `json:"commit"`
}

func (g graftRun) handoff(host, transcript, cwd string) handoffResult {
	g.t.Helper()
	out := g.ok("handoff", host, "--transcript", transcript, "--cwd", cwd, "--yes", "--json")
	var res handoffResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		g.t.Fatalf("handoff --json: %v\n%s", err, out)
	}
	if res.HostSessionID == "" || res.Commit.TargetID == "" || !strings.Contains(res.ResumeCommand, res.HostSessionID) {
		g.t.Fatalf("handoff result %+v", res)
	}
	return res
}

// tapeBlocks are the texts of a target's tape events (graft show --json).
func (g graftRun) tapeBlocks(target string) []string {
	g.t.Helper()
	var blocks []string
	var tapeEvents int
	for _, line := range strings.Split(strings.TrimSpace(g.ok("show", target, "--json")), "\n") {
		var ev struct {
			Seq        int64  `json:"seq"`
			Type       string `json:"type"`
			Text       string `json:"text"`
			TapeEvents int    `json:"tapeEvents"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			g.t.Fatalf("show %s: %v: %s", target, err, line)
		}
		if ev.Seq == 1 {
			tapeEvents = ev.TapeEvents
		} else if ev.Seq <= int64(tapeEvents) {
			blocks = append(blocks, ev.Text)
		}
	}
	// The blocks every tape has (the others are left out when they have
	// nothing to say).
	for _, title := range []string{"Handoff", "Handoff acknowledged", "Breakpoint", "Anchor + Hard Constraints", "Goal", "Workspace Files", "Pending State"} {
		if !slices.ContainsFunc(blocks, func(b string) bool {
			head, _, _ := strings.Cut(b, "\n")
			return strings.HasPrefix(head, session.GraftMarker) && strings.HasSuffix(head, "] ["+title+"]")
		}) {
			g.t.Fatalf("%s: %d tape texts, none the %s block: want the handoff, the acknowledgement and the recap blocks", target, len(blocks), title)
		}
	}
	return blocks
}

// checkCarriesTape fails unless the host's request holds every tape block
// (marker line and body) and the human goal.
func checkCarriesTape(t *testing.T, req hosttest.Request, blocks []string, goal string) {
	t.Helper()
	for _, b := range blocks {
		if !req.Contains(b) {
			first, _, _ := strings.Cut(b, "\n")
			t.Errorf("the resumed host's request lacks the tape block %q (%d chars)", first, len(b))
		}
	}
	if !req.Contains(goal) {
		t.Errorf("the resumed host's request lacks the human goal %q", goal)
	}
}

func lastModelRequest(t *testing.T, srv *hosttest.ModelServer) hosttest.Request {
	t.Helper()
	reqs := srv.ModelRequests()
	if len(reqs) == 0 {
		t.Fatal("the host sent no model request")
	}
	return reqs[len(reqs)-1]
}

// withConstraint copies the real fixture under dir and appends the person's
// constraint as one more Claude Code user line.
func withConstraint(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(testfixtures.Path(t, "claude-code", fixtureID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","uuid":"graft-test-constraint","parentUuid":null,"timestamp":"2026-11-30T12:00:00.000Z","message":{"role":"user","content":"` + constraint + `"}}` + "\n"
	p := filepath.Join(dir, fixtureID+".jsonl")
	if err := os.WriteFile(p, append(data, line...), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkGeneration3 checks a second handoff's lineage: generation 3, the
// constraint still cited at its generation-1 origin, graft audit passing.
func checkGeneration3(t *testing.T, g graftRun, res handoffResult, gen1 string) {
	t.Helper()
	if res.Commit.Generation != 3 {
		t.Fatalf("second handoff committed generation %d, want 3 (the resumed host session must continue the graft target)", res.Commit.Generation)
	}
	found := false
	for _, c := range res.Review.Constraints {
		if c.Origin.Generation != 1 || c.Origin.Session != gen1 {
			t.Errorf("constraint %q cites %+v, want its generation-1 origin in %s", c.Text, c.Origin, gen1)
		}
		found = found || c.Text == constraint
	}
	if !found {
		t.Errorf("the generation-3 review lost the constraint %q: %+v", constraint, res.Review.Constraints)
	}
	if out := g.ok("audit", res.Commit.TargetID); !strings.Contains(out, "audit passed") {
		t.Errorf("graft audit %s: %s", res.Commit.TargetID, out)
	}
}

func TestClaudeCodeHandoffResumeAndGeneration3(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	c := h.NewClaude(t, srv)
	g := graftRun{t: t, bin: bin, home: filepath.Join(c.Root, "graft"), env: c.Environ(), dir: c.Dir}
	src := withConstraint(t, t.TempDir())

	start := time.Now()
	res := g.handoff("claude-code", src, c.Dir)
	t.Logf("graft handoff of the %s fixture: %v, %d model requests", fixtureID, time.Since(start).Round(time.Millisecond), len(srv.ModelRequests()))
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the handoff sent %d request(s) to the model server, want none", n)
	}
	if want := "claude --resume " + res.HostSessionID; res.ResumeCommand != want {
		t.Fatalf("resume command %q, want %q", res.ResumeCommand, want)
	}
	if filepath.Dir(res.Path) != c.ProjectDir(t) {
		t.Fatalf("exported to %s, want Claude Code's folder of the cwd %s", res.Path, c.ProjectDir(t))
	}

	// The real Claude Code resumes it and sends the whole tape.
	c.Resume(t, res.HostSessionID, "continue").Ok(t)
	checkCarriesTape(t, lastModelRequest(t, srv), g.tapeBlocks(res.Commit.TargetID), res.Review.Goal[0].Text)
	if !lastModelRequest(t, srv).Contains("continue") {
		t.Error("the resumed request lacks the new prompt")
	}

	// The resumed session got a human turn: the next handoff follows it into
	// the graft target and cuts generation 3.
	res3 := g.handoff("claude-code", res.Path, c.Dir)
	checkGeneration3(t, g, res3, fixtureID)
	if res3.Review.Source != res.Commit.TargetID {
		t.Fatalf("second handoff prepared %s, want the graft target %s", res3.Review.Source, res.Commit.TargetID)
	}
	c.Resume(t, res3.HostSessionID, "go on").Ok(t)
	checkCarriesTape(t, lastModelRequest(t, srv), g.tapeBlocks(res3.Commit.TargetID), res3.Review.Goal[0].Text)
	if !lastModelRequest(t, srv).Contains(constraint) {
		t.Errorf("the generation-3 session's request lacks the constraint %q", constraint)
	}
}

func TestCodexHandoffResumeAndGeneration3(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	x := h.NewCodex(t, srv)
	g := graftRun{t: t, bin: bin, home: filepath.Join(x.Root, "graft"), env: x.Environ(), dir: x.Dir}

	goal := "Port the pager to Go. " + constraint
	x.Exec(t, goal).Ok(t)
	rollouts := x.Rollouts(t)
	if len(rollouts) != 1 {
		t.Fatalf("codex wrote %d rollouts, want 1", len(rollouts))
	}
	srv.Reset()
	res := g.handoff("codex", rollouts[0], x.Dir)
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the handoff sent %d request(s) to the model server, want none", n)
	}
	if want := "codex resume " + res.HostSessionID; res.ResumeCommand != want {
		t.Fatalf("resume command %q, want %q", res.ResumeCommand, want)
	}
	if rel, err := filepath.Rel(x.SessionsDir(), res.Path); err != nil || strings.HasPrefix(rel, "..") {
		t.Fatalf("exported to %s, want under %s", res.Path, x.SessionsDir())
	}

	x.ExecResume(t, res.HostSessionID, "continue").Ok(t)
	checkCarriesTape(t, lastModelRequest(t, srv), g.tapeBlocks(res.Commit.TargetID), goal)
	// Once Codex has opened it, "resume --last" finds it too (Codex lists
	// from its own state database, which graft does not write).
	x.Run(t, "exec", "resume", "--last", "--skip-git-repo-check", "and then").Ok(t)
	if req := lastModelRequest(t, srv); !req.Contains("and then") || !req.Contains(g.tapeBlocks(res.Commit.TargetID)[0]) {
		t.Error("codex exec resume --last did not take the exported session")
	}

	res3 := g.handoff("codex", res.Path, x.Dir)
	checkGeneration3(t, g, res3, res.Review.Source)
	x.ExecResume(t, res3.HostSessionID, "go on").Ok(t)
	checkCarriesTape(t, lastModelRequest(t, srv), g.tapeBlocks(res3.Commit.TargetID), goal)
}

// installHooks writes config.toml and installs graft's hooks with it: into
// the project's .claude/settings.json for Claude Code, into $CODEX_HOME for
// Codex (run with --dangerously-bypass-hook-trust: trust is the user's to
// give).
func installHooks(t *testing.T, g graftRun, host, config string, where ...string) {
	t.Helper()
	if err := os.MkdirAll(g.home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(g.home, "config.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	g.ok(append([]string{"--config", cfg, "hook", "install", host}, where...)...)
}

// hostSessions reads graft status --json's bindings.
func (g graftRun) hostSessions() []binding {
	g.t.Helper()
	var st struct {
		HostSessions []binding `json:"hostSessions"`
	}
	if err := json.Unmarshal([]byte(g.ok("status", "--json")), &st); err != nil {
		g.t.Fatal(err)
	}
	return st.HostSessions
}

type binding struct{ Host, HostSessionID, Session, Role string }

// exported is the host session id exported from a graft session, "" if none.
func exported(bs []binding, id string) string {
	for _, b := range bs {
		if b.Role == "exported" && (id == "" || b.Session == id) {
			return b.HostSessionID
		}
	}
	return ""
}

func sessionOf(t *testing.T, c *hosttest.ClaudeEnv) string {
	t.Helper()
	ts := c.Transcripts(t)
	if len(ts) != 1 {
		t.Fatalf("%d Claude Code transcripts, want 1: %v", len(ts), ts)
	}
	return hosttest.TranscriptID(ts[0])
}

func TestClaudeCodeCompactionIntercepted(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	c := h.NewClaude(t, srv)
	g := graftRun{t: t, bin: bin, home: filepath.Join(c.Root, "graft"), env: c.Environ(), dir: c.Dir}
	installHooks(t, g, "claude-code", "interceptCompaction = true\n", "--project", g.dir)

	c.Print(t, "Port the pager to Go. "+constraint).Ok(t)
	id := sessionOf(t, c)
	srv.Reset()
	r := c.Resume(t, id, "/compact")
	if n := len(srv.Compactions()); n != 0 {
		t.Fatalf("%d compaction request(s) reached the model server, want none (intercepted)\n%s", n, r)
	}
	out := r.Stdout + r.Stderr
	if !strings.Contains(out, "Compaction blocked by PreCompact hook") || !strings.Contains(out, "claude --resume ") {
		t.Fatalf("Claude Code did not report the blocked compaction with the resume command:\n%s", r)
	}
	bs := g.hostSessions()
	exported := exported(bs, id+".g2")
	if exported == "" || !strings.Contains(out, "claude --resume "+exported) {
		t.Fatalf("no handoff of %s exported, or the block reason does not name it: %+v\n%s", id, bs, out)
	}
	// The new session resumes, carrying the constraint.
	srv.Reset()
	c.Resume(t, exported, "continue").Ok(t)
	if !lastModelRequest(t, srv).Contains(constraint) {
		t.Errorf("the handed-off session's request lacks the constraint")
	}
	// Typing into the old session: the model is told where the work went.
	srv.Reset()
	c.Resume(t, id, "hello?").Ok(t)
	if !lastModelRequest(t, srv).Contains("claude --resume " + exported) {
		t.Errorf("the old session's next request does not name the handoff")
	}
}

func TestClaudeCodeCompactionKeepsTheConstraints(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	c := h.NewClaude(t, srv)
	g := graftRun{t: t, bin: bin, home: filepath.Join(c.Root, "graft"), env: c.Environ(), dir: c.Dir}
	installHooks(t, g, "claude-code", "interceptCompaction = false\n", "--project", g.dir)

	c.Print(t, "Port the pager to Go. "+constraint).Ok(t)
	id := sessionOf(t, c)
	srv.SetSummary("The user wants the pager ported.") // a lossy summary: no constraint
	c.Resume(t, id, "/compact").Ok(t)
	if n := len(srv.Compactions()); n == 0 {
		t.Fatal("with interception off the compaction did not run")
	}
	srv.Reset()
	c.Resume(t, id, "next step").Ok(t)
	req := lastModelRequest(t, srv)
	if !req.Contains("[Anchor + Hard Constraints]") || !req.Contains(constraint) || !req.Contains("[ANCHOR] Core constraints originate from generation 1 session "+id) {
		t.Fatalf("the request after the compaction does not carry the constraints block with its origin; its strings:\n%q", req.Strings())
	}
}

// cutBlock is the constraints block, cut to fit what a host gives its
// model of a hook's additionalContext as it is: its cut line last.
var cutBlock = regexp.MustCompile(`\[graft:tape [0-9a-f]{8}\] \[Anchor \+ Hard Constraints\]\n(?s:.*?)\n\[cut: [0-9]+ constraints; recall seq=[0-9]+(\.\.[0-9]+)?\]`)

// Claude Code writes a hook's additionalContext past 10,000 characters
// (JavaScript's length: UTF-16 code units) to a file and gives the model
// its path and a 2 KB preview instead (hosts/claudecode/doc.go). The
// person's prompts hold enough constraints that the block passes that:
// the request after the compaction holds the block graft cut to fit, its
// cut line last and whole, and no file in its place.
func TestClaudeCodeCompactionFitsTheConstraintsInline(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	c := h.NewClaude(t, srv)
	c.Timeout = 60 * time.Second
	g := graftRun{t: t, bin: bin, home: filepath.Join(c.Root, "graft"), env: c.Environ(), dir: c.Dir}
	installHooks(t, g, "claude-code", "interceptCompaction = false\n", "--project", g.dir)

	c.Print(t, rulesPrompt(0)).Ok(t)
	id := sessionOf(t, c)
	for k := 35; k < rulesCount; k += 35 {
		c.Resume(t, id, rulesPrompt(k)).Ok(t)
	}
	srv.SetSummary("The user wants the pager ported.") // a lossy summary: no constraint
	c.Resume(t, id, "/compact").Ok(t)
	if n := len(srv.Compactions()); n == 0 {
		t.Fatal("with interception off the compaction did not run")
	}
	srv.Reset()
	c.Resume(t, id, "next step").Ok(t)
	req := lastModelRequest(t, srv)
	for _, bad := range []string{"<persisted-output>", "Output too large", "truncated at"} {
		if req.Contains(bad) {
			t.Errorf("the request after the compaction holds %q: Claude Code did not keep the hook's context inline", bad)
		}
	}
	var block string
	for _, v := range req.Strings() {
		if b := cutBlock.FindString(v); b != "" {
			block = b
			break
		}
	}
	anchor := "[ANCHOR] Core constraints originate from generation 1 session " + id
	if n := len(utf16.Encode([]rune(block))); block == "" || n > 10000 || !strings.Contains(block, anchor) || !strings.Contains(block, constraint) || strings.Contains(block, newestRule) {
		t.Fatalf("the request after the compaction does not hold the constraints block cut to fit (%d UTF-16 units), its origin and its cut line; its strings:\n%q", n, req.Strings())
	}
	// The cut line ends the hook's context: nothing of the block follows it.
	for _, v := range req.Strings() {
		if i := strings.Index(v, block); i >= 0 && strings.Contains(v[i+len(block):], "Widget") {
			t.Errorf("constraints follow the cut line:\n%s", v[i:])
		}
	}
}

// rulesCount is how many constraints the rulesPrompts say: a
// constraints block of about 14,000 characters, well past the 10,000 a
// host keeps (a line cited by its seq alone is about 70).
const rulesCount = 210

// rulesPrompt is the k/35+1-th of the six prompts that say rulesCount
// constraints, 35 each, the first with constraint too: each shorter than
// the 3,000 bytes past which graft takes an instruction as pasted and
// cuts its constraints first.
func rulesPrompt(k int) string {
	p := fmt.Sprintf("Part %d of the rules.", k/35+1)
	if k == 0 {
		p = "Port the pager to Go. " + constraint
	}
	for end := k + 35; k < end; k++ {
		p += fmt.Sprintf(" Never rename the exported symbol Widget%03d in package api.", k)
	}
	return p
}

// newestRule is the newest constraint rulesPrompt says.
var newestRule = fmt.Sprintf("Never rename the exported symbol Widget%03d in package api.", rulesCount-1)

// Codex gives its model a hook's additionalContext past 10,000 bytes cut
// in its middle, with a note and a file (hosts/codex/doc.go). Its
// SessionStart of source compact gives the request after the compaction
// the constraints block graft cut to fit, its cut line last and whole.
func TestCodexCompactionFitsTheConstraintsInline(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	x := h.NewCodex(t, srv)
	x.Timeout = 60 * time.Second
	x.WriteConfig(t, "model_auto_compact_token_limit = 1000\n", "")
	g := graftRun{t: t, bin: bin, home: filepath.Join(x.Root, "graft"), env: x.Environ(), dir: x.Dir}
	installHooks(t, g, "codex", "interceptCompaction = false\n", "--codex-home", x.CodexHome)

	x.Exec(t, rulesPrompt(0), "--dangerously-bypass-hook-trust").Ok(t)
	id := hosttest.RolloutID(x.Rollouts(t)[0])
	for k := 35; k < rulesCount; k += 35 {
		if k == rulesCount-35 {
			srv.SetInputTokens(150000) // past the limit: the next turn compacts first
		}
		x.ExecResume(t, id, rulesPrompt(k), "--dangerously-bypass-hook-trust").Ok(t)
	}
	srv.Reset()
	srv.SetInputTokens(10)
	x.ExecResume(t, id, "next step", "--dangerously-bypass-hook-trust").Ok(t)
	if n := len(srv.Compactions()); n != 1 {
		t.Fatalf("%d compaction requests, want 1:\n%s", n, srv.Describe())
	}
	req := lastModelRequest(t, srv)
	if req.Contains("Warning: truncated output") || req.Contains("Full hook output saved to") {
		t.Errorf("Codex cut the hook's context in its middle")
	}
	var block string
	for _, v := range req.Strings() {
		if b := cutBlock.FindString(v); b != "" {
			block = b
			break
		}
	}
	// graft names a Codex session for its rollout file.
	anchor := "[ANCHOR] Core constraints originate from generation 1 session rollout-"
	if block == "" || len(block) > 10000 || !strings.Contains(block, anchor) || !strings.Contains(block, id+", seq=") || !strings.Contains(block, constraint) || strings.Contains(block, newestRule) {
		t.Fatalf("the request after the compaction does not hold the constraints block cut to fit (%d bytes), its origin and its cut line; its strings:\n%q", len(block), req.Strings())
	}
}

// killedCommit leaves a journal record: graft-crash commits and is killed
// at point (a real SIGKILL once it says it reached it).
func killedCommit(t *testing.T, crash, home, point string) {
	t.Helper()
	g := graftRun{t: t, bin: graftBin, home: home, env: os.Environ()}
	g.ok("gen", "s", "--events", "400")
	var rv struct{ PreparedID, TapeHash string }
	if err := json.Unmarshal([]byte(g.ok("prepare", "s", "--json")), &rv); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(crash, "--home", home, "commit", rv.PreparedID, "--hash", rv.TapeHash)
	cmd.Env = append(os.Environ(), "GRAFT_CRASH_POINT="+point)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reached := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if sc.Text() == "GRAFT_CRASH_POINT_REACHED "+point {
				reached <- true
				_, _ = io.Copy(io.Discard, stderr)
				return
			}
		}
		reached <- false
	}()
	select {
	case ok := <-reached:
		if !ok {
			t.Fatalf("graft-crash ended without reaching %s", point)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("graft-crash did not reach %s in 60 s", point)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the killed commit exited 0")
	}
}

func TestSessionStartRecoversAKilledCommit(t *testing.T) {
	h := hosttest.Install(t)
	_, crash := binaries(t)
	srv := hosttest.NewModelServer(t)
	c := h.NewClaude(t, srv)
	g := graftRun{t: t, bin: graftBin, home: filepath.Join(c.Root, "graft"), env: c.Environ(), dir: c.Dir}
	killedCommit(t, crash, g.home, "commit/journal-flushed:after")
	records, err := filepath.Glob(filepath.Join(g.home, ".txn", "*.json"))
	if err != nil || len(records) != 1 {
		t.Fatalf("journal records after the killed commit: %v %v, want one", records, err)
	}
	installHooks(t, g, "claude-code", "", "--project", g.dir)

	c.Print(t, "hello").Ok(t)
	if left, _ := filepath.Glob(filepath.Join(g.home, ".txn", "*.json")); len(left) != 0 {
		t.Fatalf("the SessionStart hook left the journal record %v", left)
	}
	reqs := srv.ModelRequests()
	if len(reqs) == 0 || !reqs[0].Contains("graft's start-up recovery scan found 1 interrupted graft(s): 1 rolled back") {
		t.Fatalf("the first model request does not tell of the recovery (it must run before the turn); requests: %d", len(reqs))
	}
	var st struct {
		Sessions []struct{ ID, State string } `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(g.ok("status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	for _, s := range st.Sessions {
		if s.ID == "s" && s.State != "active" {
			t.Fatalf("source s is %s after recovery, want active", s.State)
		}
	}
}

func TestCodexHooksFollowAndSuggestAHandoff(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	x := h.NewCodex(t, srv)
	g := graftRun{t: t, bin: bin, home: filepath.Join(x.Root, "graft"), env: x.Environ(), dir: x.Dir}
	installHooks(t, g, "codex", "autoGraft = 100000\n", "--codex-home", x.CodexHome)

	srv.SetInputTokens(150000)
	x.Exec(t, "Port the pager to Go. "+constraint, "--dangerously-bypass-hook-trust").Ok(t)
	id := hosttest.RolloutID(x.Rollouts(t)[0])
	bs := g.hostSessions()
	if len(bs) != 1 || bs[0].HostSessionID != id || bs[0].Role != "imported" {
		t.Fatalf("after a Codex turn with graft's hooks: host sessions %+v, want %s followed", bs, id)
	}
	if ev := g.ok("show", bs[0].Session); !strings.Contains(ev, constraint) {
		t.Fatalf("the followed session %s lacks the human's words:\n%s", bs[0].Session, ev)
	}
	// The next prompt: past autoGraft, the model is told how to hand off.
	srv.Reset()
	x.ExecResume(t, id, "next step", "--dangerously-bypass-hook-trust").Ok(t)
	if req := lastModelRequest(t, srv); !req.Contains("handoff codex --session-id "+id) || !req.Contains("context is at 150000 tokens (autoGraft 100000)") {
		t.Fatalf("past autoGraft the request carries no handoff suggestion; its strings:\n%q", req.Strings())
	}
}

// codexPastItsCompactionLimit is a Codex session with graft's hooks
// intercepting compaction, whose one turn left it past its compaction
// limit: the next turn compacts first.
func codexPastItsCompactionLimit(t *testing.T) (*hosttest.ModelServer, *hosttest.CodexEnv, graftRun, string) {
	t.Helper()
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	x := h.NewCodex(t, srv)
	x.WriteConfig(t, "model_auto_compact_token_limit = 1000\n", "")
	g := graftRun{t: t, bin: bin, home: filepath.Join(x.Root, "graft"), env: x.Environ(), dir: x.Dir}
	installHooks(t, g, "codex", "interceptCompaction = true\n", "--codex-home", x.CodexHome)

	srv.SetInputTokens(150000)
	x.Exec(t, "Port the pager to Go. "+constraint, "--dangerously-bypass-hook-trust").Ok(t)
	id := hosttest.RolloutID(x.Rollouts(t)[0])
	srv.Reset()
	return srv, x, g, id
}

// Issue 24, item 9: in the interactive Codex, the person sees the resume
// command of the session graft handed off to when it stopped a compaction
// (Codex shows a stopping hook's systemMessage and stopReason there; codex
// exec 0.169 shows no hook text at all: internal/hosttest's explore tests).
func TestCodexInterceptedCompactionShowsTheResumeCommand(t *testing.T) {
	srv, x, g, id := codexPastItsCompactionLimit(t)
	tm, err := hosttest.NewTerminal(t, x.Environ(), x.Dir, 220, 50, x.Bin, "--dangerously-bypass-hook-trust", "resume", id)
	if errors.Is(err, hosttest.ErrNoTmux) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if screen, ok := tm.WaitFor(30*time.Second, "Port the pager to Go"); !ok {
		t.Fatalf("the interactive Codex did not show the resumed session:\n%s", screen)
	}
	tm.Type("continue")
	screen, ok := tm.WaitFor(60*time.Second, "codex resume ")
	exported := exported(g.hostSessions(), "")
	if exported == "" {
		t.Fatalf("no handoff exported: %+v\n%s", g.hostSessions(), screen)
	}
	if !ok || !strings.Contains(screen, "codex resume "+exported) {
		t.Fatalf("the screen does not give the resume command of %s:\n%s", exported, screen)
	}
	if n := len(srv.Compactions()); n != 0 {
		t.Fatalf("%d compaction requests reached the model server, want none", n)
	}
}

func TestCodexAutoCompactionIntercepted(t *testing.T) {
	srv, x, g, id := codexPastItsCompactionLimit(t)
	// Past the limit Codex compacts before the turn: graft hands off and
	// stops the turn instead (Codex cannot veto just the compaction).
	r := x.ExecResume(t, id, "continue", "--dangerously-bypass-hook-trust")
	if n := len(srv.Requests()); n != 0 || !strings.Contains(r.Stderr, "hook: PreCompact Stopped") {
		t.Fatalf("%d request(s) reached the model server, want none (intercepted):\n%s", n, r)
	}
	exported := exported(g.hostSessions(), "")
	if exported == "" {
		t.Fatalf("no handoff exported: %+v", g.hostSessions())
	}
	// Typing into the old session again: the model is told where the work went.
	srv.Reset()
	x.ExecResume(t, id, "hello?", "--dangerously-bypass-hook-trust").Ok(t)
	if req := lastModelRequest(t, srv); !req.Contains("codex resume " + exported) {
		t.Fatalf("the old session's next request does not name the handoff; its strings:\n%q", req.Strings())
	}
	// The new session resumes with the constraint.
	srv.Reset()
	srv.SetInputTokens(10)
	x.ExecResume(t, exported, "continue", "--dangerously-bypass-hook-trust").Ok(t)
	if !lastModelRequest(t, srv).Contains(constraint) {
		t.Error("the handed-off Codex session's request lacks the constraint")
	}
}

// doctorPlugin is where graft doctor --json says host keeps graft's plugin
// or extension ("" for none).
func (g graftRun) doctorPlugin(host string) string {
	g.t.Helper()
	out, errOut, _ := g.run("doctor", "--json")
	var rep struct {
		Hosts []struct{ Host, Plugin string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		g.t.Fatalf("graft doctor --json: %v\n%s%s", err, out, errOut)
	}
	for _, h := range rep.Hosts {
		if h.Host == host {
			return h.Plugin
		}
	}
	g.t.Fatalf("graft doctor --json names no host %s:\n%s", host, out)
	return ""
}
