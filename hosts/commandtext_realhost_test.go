package hosts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/hosttest"
)

// commandFile is the custom command each test writes: its text is the
// command file's words, the host's, with the arguments filled in.
const commandFile = "Explore mode is for research and thinking, not implementing. You MUST NOT write code.\n\nThe question: "

// checkCommandText fails unless the tape's Goal quotes the command typed
// as the person's instruction and shows the command's text under it as the
// host's words, never quoted as the person's, and no rule of the command
// file is a hard constraint from the user's own words.
func checkCommandText(t *testing.T, tape string) {
	t.Helper()
	goal := tapeBlock(tape, "Goal")
	if !strings.Contains(goal, "> /explore why is the build slow") || !strings.Contains(goal, "(the host's words, not the user's): Explore mode is for research") {
		t.Errorf("the Goal does not show the command typed and its text as the host's:\n%s", goal)
	}
	if strings.Contains(goal, "> Explore mode") {
		t.Errorf("the Goal quotes the command's text as the person's words:\n%s", goal)
	}
	if a := tapeBlock(tape, "Anchor + Hard Constraints"); strings.Contains(a, "MUST NOT write code") {
		t.Errorf("the command file's rule is a hard constraint from the user's words:\n%s", a)
	}
}

// A custom command typed in the interactive Qwen Code (.qwen/commands/
// explore.md): the real Qwen Code 0.24.4 records a slash_command
// invocation with sentToModel true, its result, and the command's text as
// a user record of the person's provenance, the result's child.
func TestQwenCustomCommandsTextIsTheHosts(t *testing.T) {
	q, _, g := newQwenGraft(t)
	writeFile(t, filepath.Join(q.Dir, ".qwen", "commands", "explore.md"), "---\ndescription: Explore mode\n---\n\n"+commandFile+"{{args}}\n")
	q.Print(t, "Look at the build.").Ok(t)
	id, src := qwenSession(t, q)
	tm := hostTerminal(t, q.Environ(), q.Dir, "Look at the build.", q.Bin, "--resume", id)
	tm.Type("/explore why is the build slow")
	waitForFile(t, src, "Qwen Code's record of the command's text", "The question: why is the build slow", `"sentToModel":true`)
	checkCommandText(t, preparedTape(t, g, "qwen", src, "cmd"))
}

// The same command in the interactive Gemini CLI (.gemini/commands/
// explore.toml): the real Gemini CLI 0.61.0 records the command's text as
// the message's content and what was typed as its displayContent.
func TestGeminiCustomCommandsTextIsTheHosts(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	gm := h.NewGemini(t, hosttest.NewGeminiServer(t))
	writeFile(t, filepath.Join(gm.Dir, ".gemini", "commands", "explore.toml"), "description = \"Explore mode\"\nprompt = \"\"\"\n"+commandFile+"{{args}}\n\"\"\"\n")
	gm.Prompt(t, "Look at the build.").Ok(t)
	tm := hostTerminal(t, gm.Environ(), gm.Dir, "Look at the build.", gm.Bin, gm.Entry, "--resume", "latest")
	tm.Type("/explore why is the build slow")
	session := geminiSessionWith(t, gm, "Gemini CLI's record of the command's text", "The question: why is the build slow")
	tm.Quit("/quit")
	g := graftRun{t: t, bin: bin, home: filepath.Join(gm.Root, "graft"), env: gm.Environ(), dir: gm.Dir}
	checkCommandText(t, preparedTape(t, g, "gemini", session, "cmd"))
}

// writeFile writes text to path, its folder made first.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
