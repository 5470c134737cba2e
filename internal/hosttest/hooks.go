package hosttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/graft-project/graft/hookinstall"
	"github.com/graft-project/graft/hosts/codex"
)

// ClaudeProjectDirName is the folder name under <config>/projects that
// Claude Code 2.1.328 gives the working directory realPath (symlinks
// already resolved): every UTF-16 unit outside [A-Za-z0-9] becomes "-";
// past 200 characters the name is cut to 200 and "-" plus the base-36
// absolute value of a Java-style 32-bit hash of realPath is appended.
func ClaudeProjectDirName(realPath string) string {
	units := utf16.Encode([]rune(realPath))
	name := make([]byte, len(units))
	for i, u := range units {
		switch {
		case u >= 'a' && u <= 'z', u >= 'A' && u <= 'Z', u >= '0' && u <= '9':
			name[i] = byte(u)
		default:
			name[i] = '-'
		}
	}
	if len(name) <= 200 {
		return string(name)
	}
	var h int32
	for _, u := range units {
		h = h<<5 - h + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return string(name[:200]) + "-" + strconv.FormatInt(abs, 36)
}

// HookLog is a file that hook commands append their stdin JSON to, one
// object per line, so a test can see which hooks fired and with what.
type HookLog struct {
	Path string
}

// NewHookLog makes an empty hook log in a fresh temporary directory.
func NewHookLog(t testing.TB) *HookLog {
	t.Helper()
	l := &HookLog{Path: filepath.Join(t.TempDir(), "hooks.jsonl")}
	if err := os.WriteFile(l.Path, nil, 0o600); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	return l
}

// Command is a shell command that appends the hook's stdin to the log as
// one line, then runs then (a shell command; empty for none), whose output
// and exit status become the hook's.
func (l *HookLog) Command(then string) string {
	q := shellQuote(l.Path)
	c := fmt.Sprintf("cat >> %s; echo >> %s", q, q)
	if then != "" {
		c += "; " + then
	}
	return c
}

// Events are the hook inputs logged so far, in order.
func (l *HookLog) Events(t testing.TB) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(l.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("hosttest: %v", err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("hosttest: hook log line %q is not a JSON object: %v", line, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	return out
}

// Names are the hook_event_name of each logged event, with its source or
// trigger when it has one ("SessionStart:startup", "PreCompact:manual").
func (l *HookLog) Names(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, e := range l.Events(t) {
		n, _ := e["hook_event_name"].(string)
		if s, ok := e["source"].(string); ok {
			n += ":" + s
		} else if s, ok := e["trigger"].(string); ok {
			n += ":" + s
		}
		out = append(out, n)
	}
	return out
}

// Reset empties the log.
func (l *HookLog) Reset(t testing.TB) {
	t.Helper()
	if err := os.WriteFile(l.Path, nil, 0o600); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// HooksConfig is the hooks object both hosts read (Claude Code's
// settings.json "hooks", Codex's hooks.json "hooks"): for each event one
// matcher group holding one command hook per command.
func HooksConfig(timeout int, commands map[string][]string) map[string]any {
	hooks := map[string]any{}
	for event, cmds := range commands {
		var hs []any
		for _, c := range cmds {
			h := map[string]any{"type": "command", "command": c}
			if timeout > 0 {
				h["timeout"] = timeout
			}
			hs = append(hs, h)
		}
		hooks[event] = []any{map[string]any{"hooks": hs}}
	}
	return map[string]any{"hooks": hooks}
}

// CodexHook names one command hook of a Codex hooks.json for trust.
type CodexHook struct {
	Event   string // as in hooks.json: "SessionStart", "PreCompact", …
	Group   int    // index of the matcher group in the event's list
	Index   int    // index of the hook in the group's "hooks"
	Matcher string // the group's matcher, "" for none
	Command string
	Timeout int // seconds as written; 0 for none (Codex's default is 600)
}

// CodexHookTrust is the config.toml entry that marks h, from the hooks.json
// at hooksPath, trusted for Codex 0.169.0 (codex.Trust in hosts/codex, where
// the rule lives: graft doctor checks the trust with it):
//
//	[hooks.state."<key>"]
//	trusted_hash = "<hash>"
func CodexHookTrust(hooksPath string, h CodexHook) (key, hash, toml string) {
	key, hash = codex.Trust(hooksPath, hookinstall.Hook{Event: h.Event, Group: h.Group, Index: h.Index, Matcher: h.Matcher, Command: h.Command, Timeout: h.Timeout})
	toml = fmt.Sprintf("[hooks.state.%s]\ntrusted_hash = %s\n", strconv.Quote(key), strconv.Quote(hash))
	return key, hash, toml
}
