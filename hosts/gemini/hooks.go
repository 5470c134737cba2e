package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
)

// HookEvent is one Gemini CLI event graft hooks.
type HookEvent struct {
	// Name is Gemini CLI's name of the event, as settings.json and the
	// hook's input (hook_event_name) spell it.
	Name string
	// Does is what graft does on it, named by the event graft was first
	// written for: SessionStart, UserPromptSubmit, Stop or PreCompact.
	Does string
	// CanBlock: an answer of the hook can stop what the host does. graft
	// relies on none (the real-program test checks PreCompress cannot).
	CanBlock bool
}

// HookEvents are the events graft's hooks run on, in the order an install
// adds them (doc.go, "Hooks"). Gemini CLI 0.61.0 runs PreCompress before
// every turn's compression check and cannot be stopped by it (exit 2 and
// {"decision":"block"} are reported as a failed hook and ignored):
// the constraints must reach the first turn after a compression instead.
var HookEvents = []HookEvent{
	{Name: "SessionStart", Does: "SessionStart"},
	{Name: "BeforeAgent", Does: "UserPromptSubmit"},
	{Name: "AfterAgent", Does: "Stop"},
	{Name: "PreCompress", Does: "PreCompact"},
}

// HookInput is what Gemini CLI hands a hook on stdin (the fields graft
// reads). It also sets GEMINI_PROJECT_DIR and GEMINI_SESSION_ID in the
// hook's environment.
type HookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Timestamp      string `json:"timestamp"`
	// Source is SessionStart's "startup" or "resume"; Trigger
	// PreCompress's "manual" or "auto"; Prompt BeforeAgent's and
	// AfterAgent's (with a SessionStart context prepended to the first).
	Source  string `json:"source,omitempty"`
	Trigger string `json:"trigger,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
}

// UserSettings is the settings file of the user's hooks under root;
// ProjectSettings the project's, which Gemini CLI reads only in a trusted
// folder.
func UserSettings(root string) string { return filepath.Join(root, "settings.json") }

// ProjectSettings is <dir>/.gemini/settings.json.
func ProjectSettings(dir string) string { return filepath.Join(dir, ".gemini", "settings.json") }

// HookCommand is one hook of settings.json.
type HookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// HookGroup is one entry of an event's list in settings.json.
type HookGroup struct {
	Matcher string        `json:"matcher"`
	Hooks   []HookCommand `json:"hooks"`
}

// HookSettings is the "hooks" value of settings.json that runs command
// (given the event's name as its last argument) on every event of
// HookEvents: {"<Event>": [{"matcher": "*", "hooks": [{"type": "command",
// "command": "…"}]}]}.
func HookSettings(command func(event string) string) map[string][]HookGroup {
	out := map[string][]HookGroup{}
	for _, e := range HookEvents {
		out[e.Name] = []HookGroup{{Matcher: "*", Hooks: []HookCommand{{Type: "command", Command: command(e.Name)}}}}
	}
	return out
}

// ContextAnswer is a hook's stdout that puts text before the model
// (SessionStart, BeforeAgent: Gemini CLI sends it as
// <hook_context>text</hook_context> ahead of the prompt) and, when message
// is not "", shows message to the person ("Hook system message: …").
func ContextAnswer(event, text, message string) ([]byte, error) {
	a := map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}}
	if message != "" {
		a["systemMessage"] = message
	}
	b, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("gemini: encoding a hook answer: %w", err)
	}
	return b, nil
}

// LineTokens is the context size of the model request one session-file
// line reports: a gemini message's tokens.input (the prompt's
// promptTokenCount, cached tokens included). A $set that replaces the
// message list reports nothing: the next reply tells the new size. found
// is false when the line reports none; the last line that does is the
// session's size.
func LineTokens(line []byte) (tokens int64, found bool) {
	if !bytes.Contains(line, []byte(`"tokens"`)) {
		return 0, false
	}
	var r struct {
		ID     string  `json:"id"`
		Type   string  `json:"type"`
		Tokens *Tokens `json:"tokens"`
	}
	if json.Unmarshal(line, &r) != nil || r.ID == "" || r.Type != "gemini" || r.Tokens == nil {
		return 0, false
	}
	return r.Tokens.Input, true
}
