package qwen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Tool names of Qwen Code 0.24.4 (its core's tool-names.ts) that graft
// reads: the file tools name their file in "file_path"; the shell tool
// runs "command", a string.
const (
	ToolReadFile  = "read_file"
	ToolWriteFile = "write_file"
	ToolEdit      = "edit"
	ToolShell     = "run_shell_command"
	ToolTodoWrite = "todo_write"
	ToolAgent     = "agent"
)

// FileOps maps a file tool to what it does to the file its input names in
// "file_path": "read", "write" or "edit" (the tape's Workspace Files).
var FileOps = map[string]string{ToolReadFile: "read", ToolWriteFile: "write", ToolEdit: "edit"}

// SettingsPath is the user settings file under Qwen Code's global
// directory (Home): where graft's hooks go.
func SettingsPath(home string) string { return filepath.Join(home, "settings.json") }

// ProjectSettingsPath is a project's own settings file, whose hooks Qwen
// Code runs too.
func ProjectSettingsPath(cwd string) string { return filepath.Join(cwd, ".qwen", "settings.json") }

// HookEvent is one hook event of Qwen Code as graft uses it (doc.go,
// "Hooks"). Every hook reads JSON on stdin with CommonHookFields and the
// event's own Fields.
type HookEvent struct {
	Name string
	// Sources are the values of its "source" (SessionStart) or "trigger"
	// (PreCompact, PostCompact) field.
	Sources []string
	Fields  []string
	// Blocks tells whether the hook can stop what the event announces.
	Blocks bool
	// Context is where the host puts the hook's additionalContext; ""
	// when nowhere.
	Context string
}

// CommonHookFields are on the stdin of every hook.
var CommonHookFields = []string{"session_id", "transcript_path", "cwd", "hook_event_name", "timestamp", "permission_mode"}

// The events graft hooks, as Qwen Code 0.24.4 runs them from
// ~/.qwen/settings.json.
var (
	SessionStart = HookEvent{Name: "SessionStart", Sources: []string{"startup", "resume", "compact"}, Fields: []string{"source", "model"},
		Context: "the system prompt, inside <qwen:session-start-context>"}
	UserPromptSubmit = HookEvent{Name: "UserPromptSubmit", Fields: []string{"prompt", "submitted_prompt", "prompt_id"}, Blocks: true,
		Context: "a text part after the prompt, inside <qwen:user-prompt-submit-context>"}
	Stop = HookEvent{Name: "Stop", Fields: []string{"last_assistant_message", "stop_hook_active", "input_tokens", "context_limit", "context_usage", "prompt_id"}}
	// PreCompact cannot stop the compression; its additionalContext is
	// appended to the summary request as "Additional Instructions".
	PreCompact = HookEvent{Name: "PreCompact", Sources: []string{"manual", "auto"}, Fields: []string{"trigger", "custom_instructions", "prompt_id"},
		Context: "the compression's summary request, after \"Additional Instructions:\""}
	PostCompact = HookEvent{Name: "PostCompact", Sources: []string{"manual", "auto"}, Fields: []string{"trigger", "compact_summary"}}
)

// HookEvents are the events above, in the order a session meets them.
var HookEvents = []HookEvent{SessionStart, UserPromptSubmit, Stop, PreCompact, PostCompact}

// HookSettings is the "hooks" object of a settings.json that runs command
// for each event (one matcher group each, Claude Code's shape); timeout
// in seconds, 0 for the host's default.
func HookSettings(commands map[string]string, timeout int) map[string]any {
	hooks := map[string]any{}
	for event, cmd := range commands {
		h := map[string]any{"type": "command", "command": cmd}
		if timeout > 0 {
			h["timeout"] = timeout
		}
		hooks[event] = []any{map[string]any{"hooks": []any{h}}}
	}
	return hooks
}

// ContextAnswer is a hook's stdout that gives the model text: the
// additionalContext of event (SessionStart, UserPromptSubmit,
// PreCompact).
func ContextAnswer(event, text string) ([]byte, error) {
	return json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}})
}

// BlockAnswer is a UserPromptSubmit hook's stdout that refuses the
// prompt: no model request is made (`qwen -p` exits 0 and prints
// nothing of reason).
func BlockAnswer(reason string) ([]byte, error) {
	return json.Marshal(map[string]any{"decision": "block", "reason": reason})
}

// Usage is how full a session's context is.
type Usage struct {
	InputTokens  int64 // the prompt tokens of the last model request
	ContextLimit int64 // the model's context window; 0 when not reported
}

// usageTail is how much of a session file's end ContextUsage reads.
const usageTail = 1 << 20

// ContextUsage reads the last assistant record of the session file at
// path (within its last MiB): usageMetadata.promptTokenCount and
// contextWindowSize. ok is false when none is recorded.
func ContextUsage(path string) (u Usage, ok bool, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Usage{}, false, fmt.Errorf("qwen: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return Usage{}, false, fmt.Errorf("qwen: %s is not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return Usage{}, false, fmt.Errorf("qwen: %w", err)
	}
	defer f.Close()
	off := max(fi.Size()-usageTail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return Usage{}, false, fmt.Errorf("qwen: reading %s: %w", path, err)
	}
	lines := bytes.Split(buf, []byte{'\n'})
	if off > 0 {
		lines = lines[1:] // cut mid-line
	}
	for k := len(lines) - 1; k >= 0; k-- {
		if !bytes.Contains(lines[k], []byte(`"usageMetadata"`)) {
			continue
		}
		var r struct {
			Type  string `json:"type"`
			Usage *struct {
				Prompt int64 `json:"promptTokenCount"`
			} `json:"usageMetadata"`
			Window int64 `json:"contextWindowSize"`
		}
		if json.Unmarshal(lines[k], &r) != nil || r.Type != typeAssistant || r.Usage == nil {
			continue
		}
		return Usage{InputTokens: r.Usage.Prompt, ContextLimit: r.Window}, true, nil
	}
	return Usage{}, false, nil
}

// StopUsage reads the usage a Stop hook is given on stdin: input_tokens
// and context_limit. ok is false when input_tokens is absent.
func StopUsage(input []byte) (u Usage, ok bool) {
	var in struct {
		InputTokens  *int64 `json:"input_tokens"`
		ContextLimit int64  `json:"context_limit"`
	}
	if json.Unmarshal(input, &in) != nil || in.InputTokens == nil {
		return Usage{}, false
	}
	return Usage{InputTokens: *in.InputTokens, ContextLimit: in.ContextLimit}, true
}
