package hosts_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/hosttest"
)

// Issue 25, item 3: the work goes on in another host and back, for every
// pair of the four hosts, each with the real program. One chain of seven
// handoffs crosses every pair (Claude Code → Codex → Gemini CLI → Qwen
// Code → Claude Code → Gemini CLI → Codex → Qwen Code); after each, the
// host it went to resumes the new session, and its model request carries
// every tape block and the next prompt. At the end the lineage is
// generation 8 and the constraint still cites its generation-1 origin.
func TestCrossHostEveryPair(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	gs := hosttest.NewGeminiServer(t)
	qs := hosttest.NewQwenServer(t)
	c := h.NewClaude(t, srv)
	x := h.NewCodex(t, srv)
	gm := h.NewGemini(t, gs)
	q := h.NewQwen(t, qs)
	env := append(c.Environ(), "CODEX_HOME="+x.CodexHome, "GEMINI_CLI_HOME="+gm.Home, "QWEN_HOME="+q.QwenDir)
	g := graftRun{t: t, bin: bin, home: filepath.Join(c.Root, "graft"), env: env, dir: c.Dir}

	// Each host: the directory its sessions are exported into, and a
	// resume of one turn that returns the model request carrying prompt.
	type host struct {
		cwd    string
		resume func(id, prompt string) hosttest.Request
	}
	lastWith := func(reqs []hosttest.Request, prompt string) hosttest.Request {
		for k := len(reqs) - 1; k >= 0; k-- {
			if reqs[k].Contains(prompt) {
				return reqs[k]
			}
		}
		t.Fatalf("no model request carries the prompt %q (%d requests)", prompt, len(reqs))
		return hosttest.Request{}
	}
	hostsOf := map[string]host{
		"claude-code": {c.Dir, func(id, p string) hosttest.Request {
			c.Resume(t, id, p).Ok(t)
			return lastWith(srv.ModelRequests(), p)
		}},
		"codex": {x.Dir, func(id, p string) hosttest.Request {
			x.ExecResume(t, id, p).Ok(t)
			return lastWith(srv.ModelRequests(), p)
		}},
		"gemini": {gm.Dir, func(id, p string) hosttest.Request {
			gm.Resume(t, id, p).Ok(t)
			return lastWith(gs.Requests(), p)
		}},
		"qwen": {q.RealDir(t), func(id, p string) hosttest.Request {
			q.Resume(t, id, p).Ok(t)
			return lastWith(qs.Requests(), p)
		}},
	}

	from, path := "claude-code", withConstraint(t, t.TempDir())
	chain := []string{"codex", "gemini", "qwen", "claude-code", "gemini", "codex", "qwen"}
	var last handoffResult
	for k, to := range chain {
		out := g.ok("handoff", from, "--transcript", path, "--cwd", hostsOf[to].cwd, "--to", to, "--yes", "--json")
		var res handoffResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s → %s: handoff --json: %v\n%s", from, to, err, out)
		}
		if res.Host != from || res.HostSessionID == "" || !strings.Contains(res.ResumeCommand, res.HostSessionID) {
			t.Fatalf("%s → %s: result %+v", from, to, res)
		}
		if k > 0 && res.Review.Source != last.Commit.TargetID {
			t.Fatalf("%s → %s prepared %s, want the previous graft target %s", from, to, res.Review.Source, last.Commit.TargetID)
		}
		if want := k + 2; res.Commit.Generation != want {
			t.Fatalf("%s → %s committed generation %d, want %d", from, to, res.Commit.Generation, want)
		}
		prompt := "go on, step " + string(rune('A'+k))
		req := hostsOf[to].resume(res.HostSessionID, prompt)
		checkCarriesTape(t, req, g.tapeBlocks(res.Commit.TargetID), res.Review.Goal[0].Text)
		if !req.Contains(constraint) {
			t.Errorf("%s → %s: the resumed request lacks the constraint %q", from, to, constraint)
		}
		t.Logf("%s → %s: generation %d, %s", from, to, res.Commit.Generation, res.ResumeCommand)
		from, path, last = to, res.Path, res
	}
	found := false
	for _, cn := range last.Review.Constraints {
		if cn.Text != constraint {
			continue
		}
		found = true
		if cn.Origin.Generation != 1 || cn.Origin.Session != fixtureID {
			t.Errorf("after %d hosts the constraint cites %+v, want generation 1 of %s", len(chain), cn.Origin, fixtureID)
		}
	}
	if !found {
		t.Errorf("the last review lost the constraint %q: %+v", constraint, last.Review.Constraints)
	}
	if out := g.ok("audit", last.Commit.TargetID); !strings.Contains(out, "audit passed") {
		t.Errorf("graft audit %s: %s", last.Commit.TargetID, out)
	}
}
