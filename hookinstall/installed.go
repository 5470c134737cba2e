package hookinstall

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// Hook is one of graft's hooks in a settings file, where it stands: what
// graft doctor reads, and what Codex keys its trust by.
type Hook struct {
	Event   string `json:"event"`
	Group   int    `json:"group"` // index of the matcher group in the event's list
	Index   int    `json:"index"` // index of the hook in the group's "hooks"
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"` // as written, in the host's unit (adapter.Hooks TimeoutUnit); 0 for none
}

// Installed lists graft's hooks for host in the settings file at path
// (recognised as Uninstall does, with no extra command), in the order of
// Events. A missing file has none.
func Installed(host Host, path string) ([]Hook, error) {
	s, err := readSettings(host, path)
	if err != nil {
		return nil, err
	}
	hooks := []Hook{}
	if s.hooks == nil {
		return hooks, nil
	}
	for _, he := range hostEvents(host) {
		ev := he.Name
		groups := s.eventGroups(ev)
		for _, f := range graftHooks(host, groups, "") {
			h := Hook{Event: ev, Group: f.group, Index: f.hook, Command: f.command}
			g, _ := parseObject(groups[f.group].val, groups[f.group].off, "group") // parsed by graftHooks
			if i := g.index("matcher"); i >= 0 {
				_ = json.Unmarshal(g[i].val, &h.Matcher) // not a string: no matcher
			}
			hs, _ := groupHooks(groups[f.group])
			if o, err := parseObject(hs[f.hook].val, hs[f.hook].off, "hook"); err == nil {
				if i := o.index("timeout"); i >= 0 {
					_ = json.Unmarshal(o[i].val, &h.Timeout) // not a number: none
				}
			}
			hooks = append(hooks, h)
		}
	}
	return hooks, nil
}

// Program is the program a hook command runs: its first word after any
// NAME=value assignments, split as IsGraftCommand splits it ("" when the
// command does not split).
func Program(command string) string {
	words, ok := shellWords(command)
	if !ok {
		return ""
	}
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	return words[0]
}

// CodexTrust is the entry of Codex's config.toml that marks hook h of the
// hooks file at hooksPath trusted (Codex 0.169.0):
//
//	[hooks.state."<hooksPath>:<event_snake_case>:<group>:<index>"]
//	trusted_hash = "sha256:<hex>"
//
// where the hash is SHA-256 of the compact JSON, keys sorted, of
// {"event_name":<event_snake_case>,"hooks":[{"async":false,"command":…,
// "timeout":<seconds>,"type":"command"}],"matcher":…} (matcher only when
// set; timeout 600 when not set; SessionEnd's clamped to at most 3). It is
// what "codex app-server" reports as currentHash from hooks/list
// (internal/hosttest's explore test compares the two).
func CodexTrust(hooksPath string, h Hook) (key, hash string) {
	event := snakeCase(h.Event)
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = 600
	}
	if event == "session_end" && timeout > 3 {
		timeout = 3
	}
	// encoding/json sorts map keys and writes compact JSON; HTML escaping
	// is turned off to match serde_json.
	doc := map[string]any{
		"event_name": event,
		"hooks":      []any{map[string]any{"async": false, "command": h.Command, "timeout": timeout, "type": "command"}},
	}
	if h.Matcher != "" {
		doc["matcher"] = h.Matcher
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		panic(err) // plain values only
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return fmt.Sprintf("%s:%s:%d:%d", hooksPath, event, h.Group, h.Index), "sha256:" + hex.EncodeToString(sum[:])
}

func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
