package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/graft-project/graft/hosts/adapter"
)

// Untrusted lists the events of hs (graft's hooks in the hooks file at
// hooksPath) whose trusted hash in codexHome/config.toml is missing or
// another (adapter.HookTruster).
func (Adapter) Untrusted(codexHome, hooksPath string, hs []adapter.InstalledHook) ([]string, error) {
	var cfg struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if err := readConfig(codexHome, &cfg); err != nil {
		return nil, err
	}
	var out []string
	for _, h := range hs {
		key, hash := Trust(hooksPath, h)
		if cfg.Hooks.State[key].TrustedHash != hash {
			out = append(out, h.Event)
		}
	}
	return out, nil
}

// TrustHelp: Codex keeps trust in its config.toml, and asks the person to
// approve hooks it has not trusted when it starts.
func (Adapter) TrustHelp() (file, fix string) {
	return "$CODEX_HOME/config.toml", "codex (start it once and approve graft's hooks when it asks; or run it with --dangerously-bypass-hook-trust)"
}

// Trust is the entry of Codex's config.toml that marks hook h of the
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
func Trust(hooksPath string, h adapter.InstalledHook) (key, hash string) {
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
