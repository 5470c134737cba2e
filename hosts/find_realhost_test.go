package hosts_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/graft-project/graft/internal/hosttest"
)

// The Handoff block tells the next window how to find what the recap does
// not cite: in the real Claude Code resumed from a handoff, the agent runs
// the graft find the block names, for a word of the source session the
// tape left out, and the match comes back to the model as the command's
// output, with the seq graft recall reads.
func TestClaudeCodeAgentFindsWhatTheTapeLeftOut(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	c := h.NewClaude(t, srv)
	home := filepath.Join(c.Root, "graft")
	// The agent's shell finds the graft the person installed, on its home.
	c.Extra = append(c.Extra, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "GRAFT_HOME="+home)
	g := graftRun{t: t, bin: bin, home: home, env: c.Environ(), dir: c.Dir}
	res := g.handoff("claude-code", withConstraint(t, t.TempDir()), c.Dir)
	source := res.Review.Source

	tape := strings.ToLower(strings.Join(g.tapeBlocks(res.Commit.TargetID), "\n"))
	command := "graft find " + source + " "
	if !strings.Contains(tape, strings.ToLower("Search the rest: "+command+"<words>")) {
		t.Fatalf("the tape does not name %q<words>:\n%s", command, tape[:min(len(tape), 2000)])
	}
	word := leftOutWord(t, g, source, tape)

	args, err := json.Marshal(map[string]string{"command": command + word, "description": "Find what the recap left out"})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetReplyFunc(claudeBashOnce(string(args), "Found it."))
	c.Resume(t, res.HostSessionID, "Where did we mention "+word+"?", "--allowedTools=Bash(graft find:*)").Ok(t)
	req := lastModelRequest(t, srv)
	var out string
	for _, s := range req.Strings() {
		if strings.Contains(s, "every word") {
			out = s
		}
	}
	if out == "" || !strings.Contains(strings.ToLower(out), word) || !strings.Contains(out, "graft recall "+source+" <seq>") {
		t.Fatalf("the model did not get graft find's matches for %q; the last request's strings:\n%q", word, req.Strings())
	}
}

// leftOutWord is a word of the source session's events, ten letters or
// more, that the tape does not hold: the first in seq order, so the test
// is the same on every run.
func leftOutWord(t *testing.T, g graftRun, source, tape string) string {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(g.ok("show", source, "--json")), "\n") {
		var ev struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("show --json: %v\n%s", err, line)
		}
		for _, w := range strings.FieldsFunc(ev.Text, func(r rune) bool { return !unicode.IsLetter(r) || r > unicode.MaxASCII }) {
			if w = strings.ToLower(w); len(w) >= 10 && !strings.Contains(tape, w) {
				return w
			}
		}
	}
	t.Fatalf("every word of %s's texts is in its tape", source)
	return ""
}
