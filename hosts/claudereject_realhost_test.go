package hosts_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// The person declines a tool call in the real interactive Claude Code
// (2.1.332, permission mode default) and says what to do instead ("No",
// then Tab to amend): Claude Code hands the words to its model inside the
// tool's result, "… To tell you how to proceed, the user said:\n<words>",
// and goes on in the same turn, with no user line. graft imports the words
// as the person's instruction, after the result: the review's latest
// instruction and a hard constraint of theirs; the call is declined, no
// failure, in the tape's Pending State.
func TestClaudeRejectionFeedbackIsThePersonsInstruction(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	srv.SetReplyFunc(claudeBashOnce(`{"command":"npm install left-pad","description":"Install left-pad"}`, "Understood."))
	c := h.NewClaude(t, srv)
	c.TrustProject(t)
	c.WriteUserSettings(t, map[string]any{"permissions": map[string]any{"defaultMode": "default"}})
	tm, err := hosttest.NewTerminal(t, c.Environ(), c.Dir, 200, 50, c.Bin)
	if errors.Is(err, hosttest.ErrNoTmux) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		screen := tm.Screen()
		if strings.Contains(screen, "Make auto mode your default permission mode?") {
			tm.Keys("Down", "Enter") // "No, keep manual mode", as the settings say
			continue
		}
		if strings.Contains(screen, "shift+tab") || strings.Contains(screen, "for shortcuts") {
			break // its prompt, with the mode line under it
		}
		if time.Now().After(end) {
			t.Fatalf("the interactive Claude Code did not start:\n%s", screen)
		}
	}
	time.Sleep(2 * time.Second)
	tm.Type("Add left-pad.")
	if screen, ok := tm.WaitFor(30*time.Second, "Do you want to proceed?"); !ok {
		t.Fatalf("no permission prompt:\n%s", screen)
	}
	tm.Keys("Down", "Down", "Down", "Tab") // "No", then amend it with words
	const said = "Use pnpm, not npm."
	tm.Type(said)
	if screen, ok := tm.WaitFor(30*time.Second, "Understood."); !ok {
		t.Fatalf("the model did not answer after the rejection:\n%s", screen)
	}
	transcripts := c.Transcripts(t)
	if len(transcripts) != 1 {
		t.Fatalf("transcripts: %q", transcripts)
	}
	// The screen can show the answer before Claude Code has written the
	// lines to its transcript.
	waitForFile(t, transcripts[0], "the rejection with the person's words and the answer after it", `To tell you how to proceed, the user said:\n`+said, "Understood.")

	g := graftRun{t: t, bin: bin, home: filepath.Join(c.Root, "graft"), env: c.Environ(), dir: c.Dir}
	g.ok("import", "claude-code", transcripts[0], "--id", "rej")
	var rv struct {
		Goal []struct {
			Text string `json:"text"`
		} `json:"goal"`
		Constraints []struct {
			Text string `json:"text"`
		} `json:"constraints"`
		Tape string `json:"tape"`
	}
	prep := g.ok("prepare", "rej", "--json")
	if err := json.Unmarshal([]byte(prep), &rv); err != nil {
		t.Fatalf("graft prepare --json: %v\n%s", err, prep)
	}
	if n := len(rv.Goal); n == 0 || rv.Goal[n-1].Text != said {
		t.Errorf("the review's latest instruction is not the person's words: %+v", rv.Goal)
	}
	if !slices.ContainsFunc(rv.Constraints, func(c struct {
		Text string `json:"text"`
	}) bool {
		return strings.Contains(c.Text, said)
	}) {
		t.Errorf("the person's words are no hard constraint: %+v", rv.Constraints)
	}
	// The declined call did not run: no failure to fix, but a call to ask
	// about before running it again.
	checkTurnedDownApart(t, rv.Tape, "declined", "npm install left-pad")
}

// claudeBashOnce is a fake model for Claude Code's main conversation: its
// first request that offers Bash is answered with a Bash call of args,
// every later one with then; a request without Bash (a title, a
// classifier) with "ok".
func claudeBashOnce(args, then string) func(hosttest.Request) hosttest.Reply {
	var mu sync.Mutex
	calls := 0
	return func(r hosttest.Request) hosttest.Reply {
		if !r.IsClaudeModel() || !slices.Contains(r.ClaudeTools(), "Bash") {
			return hosttest.Reply{Text: "ok"}
		}
		mu.Lock()
		defer mu.Unlock()
		if calls++; calls == 1 {
			return hosttest.Reply{Call: &hosttest.FunctionCall{Name: "Bash", Arguments: args}}
		}
		return hosttest.Reply{Text: then}
	}
}
