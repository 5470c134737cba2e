package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/graft-project/graft/importer"
)

// GeminiHookBench runs graft hook gemini on a Gemini CLI session file in a
// throw-away user, as Gemini CLI runs it: a new process per hook, the hook
// JSON on stdin. Each Turn appends one turn as Gemini CLI records it, then
// times the hook of event (BeforeAgent: graft's UserPromptSubmit, the one
// that looks for a compression since the last prompt; AfterAgent: Stop).
type GeminiHookBench struct {
	Dirs HostDirs
	// GeminiHome is $GEMINI_CLI_HOME; Transcript the session file under
	// its .gemini/tmp/<slug>/chats/; Session its graft session.
	GeminiHome, Transcript, Session string
	// Prime is the first hook's run (AfterAgent): the whole file imported.
	Prime time.Duration
	// CPU is the CPU time of the last hook run.
	CPU time.Duration
	// TurnBytes is the size of the last turn appended.
	TurnBytes int

	bin, sid string
	at       time.Time
	turns    int
}

// NewGeminiHookBench copies st (SynthesizeGeminiSession) into a fresh
// throw-away user under dir and runs the AfterAgent hook once, which
// imports all of it.
func NewGeminiHookBench(bin, dir string, st Synthetic) (*GeminiHookBench, error) {
	d, err := NewHostDirs(dir, "gemini-hook-")
	if err != nil {
		return nil, err
	}
	gh := filepath.Join(d.Root, "gemini-cli-home")
	slug := filepath.Base(d.Project)
	chats := filepath.Join(gh, ".gemini", "tmp", slug, "chats")
	if err := os.MkdirAll(chats, 0o700); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if err := os.WriteFile(filepath.Join(gh, ".gemini", "tmp", slug, ".project_root"), []byte(d.Project), 0o600); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	h := &GeminiHookBench{Dirs: d, GeminiHome: gh, Transcript: filepath.Join(chats, filepath.Base(st.Path)), bin: bin, sid: st.SessionID,
		at: st.LastTimestamp.Add(time.Minute)}
	if err := copyFile(st.Path, h.Transcript); err != nil {
		return nil, err
	}
	if h.Prime, err = h.Run("AfterAgent"); err != nil {
		return nil, fmt.Errorf("bench: the first hook (importing all of %s): %w", h.Transcript, err)
	}
	if h.Session, err = importer.DefaultID(h.Transcript); err != nil {
		return nil, err
	}
	return h, h.check()
}

// GeminiTurn is the k-th turn appended to a Gemini CLI session file as
// Gemini CLI 0.61.0 records one: the person's message and a $set of
// lastUpdated, a reply calling run_shell_command (bare, then again with
// its toolCalls and about 2 KB of test output), the function response as a
// user message, the closing reply; each message followed by a $set.
func GeminiTurn(sid string, k int, at time.Time) []byte {
	var b strings.Builder
	tick := func(sec int) string {
		return at.Add(time.Duration(sec) * time.Second).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	id := func(j int) string {
		return strings.ReplaceAll(derivedUUID(k, fmt.Sprintf("gemini turn %s %d", sid, j)), "-", "")
	}
	write := func(kv ...any) {
		b.Write(jsObject(kv...))
		b.WriteByte('\n')
	}
	set := func(ts string) { write("$set", jsObject("lastUpdated", ts)) }
	var out strings.Builder
	fmt.Fprintf(&out, "=== RUN   TestTurn%d\n", k)
	for j := 0; out.Len() < 2000; j++ {
		fmt.Fprintf(&out, "    turn_test.go:%d: case %d/%d: input %q → ok\n", 40+j, k, j, fmt.Sprintf("row-%d-%d", k, j))
	}
	fmt.Fprintf(&out, "--- PASS: TestTurn%d\nPASS\n", k)
	write("id", id(1), "timestamp", tick(0), "type", "user", "content", jsArray(jsObject("text",
		fmt.Sprintf("Turn %d: the parser still drops the last row when the input has no trailing newline. Fix it in internal/turn, add a test for input %d, and run the package's tests.", k, k))))
	set(tick(0))
	tokens := jsObject("input", 20000+k, "output", 40, "cached", 16000, "thoughts", 0, "tool", 0, "total", 20040+k)
	head := []any{"id", id(2), "timestamp", tick(4), "type", "gemini", "content", "", "thoughts", jsArray(), "tokens", tokens, "model", geminiModel}
	write(head...)
	set(tick(4))
	cid := fmt.Sprintf("run_shell_command__run_shell_command_%d_0", at.UnixMilli())
	args := jsObject("command", fmt.Sprintf("go test ./internal/turn/ -run 'TestTurn%d$' -count=1 -v", k))
	fr := jsObject("functionResponse", jsObject("id", cid, "name", "run_shell_command", "response", jsObject("output", out.String())))
	write(append(head, "toolCalls", jsArray(jsObject("id", cid, "name", "run_shell_command", "args", args, "result", jsArray(fr), "status", "success",
		"timestamp", tick(9), "resultDisplay", out.String(), "description", clipRunes(string(args), 80), "displayName", "run_shell_command",
		"renderOutputAsMarkdown", false)))...)
	write("id", id(3), "timestamp", tick(9), "type", "user", "content", jsArray(fr))
	set(tick(9))
	write("id", id(4), "timestamp", tick(15), "type", "gemini", "content",
		fmt.Sprintf("The tests of turn %d pass: `scanRows` now flushes the pending row at EOF, and `TestTurn%d` covers input %d without a trailing newline.", k, k, k),
		"thoughts", jsArray(), "tokens", tokens, "model", geminiModel)
	set(tick(15))
	return []byte(b.String())
}

// Append appends the next turn to the session file, as Gemini CLI does
// (no fsync), and returns its size.
func (h *GeminiHookBench) Append() (int, error) {
	data := GeminiTurn(h.sid, h.turns, h.at)
	f, err := os.OpenFile(h.Transcript, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	w := bufio.NewWriter(f)
	if _, err := w.Write(data); err != nil {
		return 0, errors.Join(fmt.Errorf("bench: appending to %s: %w", h.Transcript, err), f.Close())
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	h.at, h.turns, h.TurnBytes = h.at.Add(time.Minute), h.turns+1, len(data)
	return len(data), nil
}

// Turn appends one turn and times one hook of event, which must import it.
func (h *GeminiHookBench) Turn(event string) (time.Duration, error) {
	if _, err := h.Append(); err != nil {
		return 0, err
	}
	return h.Run(event)
}

// Run runs graft hook gemini for event once and checks that it said
// nothing and that the import cursor reached the file's end.
func (h *GeminiHookBench) Run(event string) (time.Duration, error) {
	stdin, err := json.Marshal(map[string]string{"session_id": h.sid, "transcript_path": h.Transcript, "cwd": h.Dirs.Project,
		"hook_event_name": event, "timestamp": h.at.UTC().Format(time.RFC3339), "prompt": "go on"})
	if err != nil {
		return 0, err
	}
	pr, err := RunProcess(append(h.Dirs.Env(), "GEMINI_CLI_HOME="+h.GeminiHome), stdin, h.bin, "hook", "gemini")
	if err != nil {
		return 0, err
	}
	h.CPU = pr.CPU
	if len(pr.Stderr) > 0 || len(pr.Stdout) > 0 {
		return 0, fmt.Errorf("bench: graft hook gemini (%s) printed %q on stdout, %q on stderr; want nothing", event, pr.Stdout, pr.Stderr)
	}
	if h.Session != "" {
		if err := h.check(); err != nil {
			return 0, err
		}
	}
	return pr.Wall, nil
}

func (h *GeminiHookBench) check() error { return followedToEnd(h.Transcript, h.Dirs.Graft, h.Session) }
