package hosts_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// hostTerminal runs a host's interactive program, argv, in a terminal of
// 200×50 in dir with env, and waits until its screen shows ready (the
// resumed session, its prompt): the test is skipped without tmux and fails
// when ready does not come within a minute. The prompt takes keys a moment
// after it is drawn: hostTerminal returns after that moment.
func hostTerminal(t *testing.T, env []string, dir, ready string, argv ...string) *hosttest.Terminal {
	t.Helper()
	tm, err := hosttest.NewTerminal(t, env, dir, 200, 50, argv...)
	if errors.Is(err, hosttest.ErrNoTmux) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if screen, ok := tm.WaitFor(60*time.Second, ready); !ok {
		t.Fatalf("%s did not show %q:\n%s", argv[0], ready, screen)
	}
	time.Sleep(2 * time.Second)
	return tm
}

// geminiSessionWith waits until one of gm's session files holds text and
// returns it: the resumed session's own. A resume in another minute than
// its file's name also leaves a stub file of the same session with nothing
// in it (hosts/gemini/doc.go, "Retention"), so a test that resumes may
// find two files; the conversation goes on in the first.
func geminiSessionWith(t *testing.T, gm *hosttest.GeminiEnv, what, text string) string {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		sessions := gm.Sessions(t)
		for _, p := range sessions {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(text)) {
				return p
			}
		}
		if time.Now().After(end) {
			t.Fatalf("no session file of %q holds %s (%q)", sessions, what, text)
		}
	}
}

// tapeBlock is the text of the block titled title in a tape, "" when the
// tape has none.
func tapeBlock(tape, title string) string {
	_, b, found := strings.Cut(tape, "] ["+title+"]\n")
	if !found {
		return ""
	}
	b, _, _ = strings.Cut(b, "\n\n[graft:tape ")
	return b
}

// checkGoalCarried fails unless tape's Task Status names the host's goal
// objective with status, and its Goal block the person's "/goal
// objective".
func checkGoalCarried(t *testing.T, tape, status, objective string) {
	t.Helper()
	if s := tapeBlock(tape, "Task Status"); !strings.Contains(s, status+" at seq=") || !strings.Contains(s, objective) {
		t.Errorf("Task Status does not name the goal %s:\n%s", status, s)
	}
	if g := tapeBlock(tape, "Goal"); !strings.Contains(g, "/goal "+objective) {
		t.Errorf("the Goal lacks the person's /goal:\n%s", g)
	}
}

// preparedTape imports transcript of host as graft session id and returns
// the text of the tape graft prepare makes of it.
func preparedTape(t *testing.T, g graftRun, host, transcript, id string) string {
	t.Helper()
	g.ok("import", host, transcript, "--id", id)
	var rv struct {
		Tape string `json:"tape"`
	}
	prep := g.ok("prepare", id, "--json")
	if err := json.Unmarshal([]byte(prep), &rv); err != nil {
		t.Fatalf("graft prepare --json: %v\n%s", err, prep)
	}
	return rv.Tape
}

// checkTurnedDownApart fails unless tape's Pending State names the shell
// command (the line "- seq=N <outcome>: $ <command>", as "declined: $ npm
// install left-pad") among the calls the person declined or stopped, and
// command among no failure.
func checkTurnedDownApart(t *testing.T, tape, outcome, command string) {
	t.Helper()
	pending := tapeBlock(tape, "Pending State")
	fails, declined, found := strings.Cut(pending, "Calls the person declined")
	if !found || !strings.Contains(declined, outcome+": $ "+command) || strings.Contains(fails, command) {
		t.Errorf("Pending State does not name %q as %s apart from the failures:\n%s", command, outcome, pending)
	}
	if strings.Contains(tape, "ok: "+command) {
		t.Errorf("the tape says %q went well:\n%s", command, tape)
	}
}

// waitForFile reads path until it holds every one of texts (a host writes
// its session file after its screen shows the turn), within 30 s, and
// returns its bytes; past that it fails, naming what, with the file.
func waitForFile(t *testing.T, path, what string, texts ...string) []byte {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(texts, func(s string) bool { return !bytes.Contains(b, []byte(s)) }) {
			return b
		}
		if time.Now().After(end) {
			t.Fatalf("%s lacks %s:\n%s", path, what, b)
		}
	}
}
