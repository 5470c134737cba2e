package hookinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
)

// Host is an agent host whose hooks graft installs: the hosts package's
// type, so the installer and the hook runtime name hosts alike.
type Host = hosts.Host

// Hosts lists the hosts graft installs hooks for: every host of the
// registry (package hosts).
var Hosts = hosts.Hosts

// ParseHost returns the host named s.
func ParseHost(s string) (Host, error) {
	if a, err := hosts.Of(Host(s)); err == nil {
		return a.Name(), nil
	}
	return "", fmt.Errorf("unknown host %q (hosts: %s)", s, hosts.Names(", ", ", "))
}

// Scope is which of a host's settings files to edit
// (adapter.Hooks.Scopes says which a host has).
type Scope = adapter.Scope

const (
	// ScopeProject is Claude Code's <dir>/.claude/settings.json.
	ScopeProject = adapter.ScopeProject
	// ScopeLocal is Claude Code's <dir>/.claude/settings.local.json (the
	// project file that is not shared).
	ScopeLocal = adapter.ScopeLocal
	// ScopeUser is Claude Code's $CLAUDE_CONFIG_DIR/settings.json (else
	// ~/.claude/settings.json), Codex's only file, $CODEX_HOME/hooks.json
	// (else ~/.codex/hooks.json), and Qwen Code's $QWEN_HOME/settings.json
	// (else ~/.qwen/settings.json).
	ScopeUser = adapter.ScopeUser
)

// Events are what graft does on a host's events, in the order it adds
// them (adapter.HookEvent.Does); each host's adapter names its own events
// for them, which are these names for both Claude Code and Codex.
var Events = []string{adapter.SessionStart, adapter.UserPromptSubmit, adapter.Stop, adapter.PreCompact}

// Timeout is the timeout in seconds graft writes for event: PreCompact may
// hand a whole session off, so it gets 60; the others 15.
func Timeout(event string) int {
	if event == adapter.PreCompact {
		return 60
	}
	return 15
}

// SettingsPath returns the absolute path of the settings file graft edits
// for host and scope (adapter.Hooks.Settings). For ScopeProject and
// ScopeLocal, dir is the project directory ("" is the current directory).
// For ScopeUser, dir overrides the host's folder; "" means the
// environment's ($CLAUDE_CONFIG_DIR, else ~/.claude, for Claude Code;
// $CODEX_HOME, else ~/.codex, for Codex). Codex has only ScopeUser (""
// is taken as ScopeUser).
func SettingsPath(host Host, scope Scope, dir string) (string, error) {
	a, err := hosts.Of(host)
	if err != nil {
		return "", fmt.Errorf("unknown host %q or scope %q", host, scope)
	}
	return a.Hooks().Settings(scope, dir)
}

// hostEvents are host's events graft hooks, each with its timeout (that
// of what graft does there).
func hostEvents(host Host) []adapter.HookEvent {
	a, err := hosts.Of(host)
	if err != nil {
		return nil
	}
	return a.Hooks().Events
}

// Result is what Install or Uninstall did to one settings file. The event
// lists are never nil.
type Result struct {
	Host Host `json:"host"`
	// File is the settings file (a symlink resolved to its target).
	File string `json:"file"`
	// Command is the hook command installed, or the one an uninstall also
	// recognised besides graft's own (empty: none).
	Command string `json:"command,omitempty"`
	// Created: the file did not exist and the install created it.
	Created bool `json:"created"`
	// Changed: the file was written.
	Changed bool `json:"changed"`
	// Added: events that got graft's entry.
	Added []string `json:"added"`
	// Updated: events whose graft entry was replaced in place (another
	// command, e.g. another graft path, or duplicates dropped).
	Updated []string `json:"updated"`
	// Present: events whose graft entry already ran this command.
	Present []string `json:"present"`
	// Removed: events graft's entries were removed from (uninstall).
	Removed []string `json:"removed"`
	// Moved: events where removing graft's entries moved other hooks to
	// another group or hook index (Codex keys hook trust by that index).
	Moved []string `json:"moved"`
	// Backup is the copy of the file as it was before the change, if the
	// file existed and was changed.
	Backup string `json:"backup,omitempty"`
	// Notes are things the user has to know or do (Codex's hook trust, a
	// host setting that disables hooks, …).
	Notes []string `json:"notes"`
	// MCPServer is what an install or uninstall did to graft's MCP server
	// in the host's config file, for a host that reads it from one beside
	// its hooks file (mcpserver.go: Codex's $CODEX_HOME/config.toml).
	MCPServer *MCPResult `json:"mcpServer,omitempty"`
}

func newResult(host Host, file, command string) Result {
	return Result{Host: host, File: file, Command: command,
		Added: []string{}, Updated: []string{}, Present: []string{}, Removed: []string{}, Moved: []string{}, Notes: []string{}}
}

// FileError is a settings file graft refuses to edit: not JSON, or not
// shaped as the host's settings. Nothing was written.
type FileError struct {
	File   string
	Line   int // 1-based
	Column int // 1-based, in bytes
	Offset int // byte offset
	Msg    string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s: line %d, column %d (byte offset %d): %s; nothing written", e.File, e.Line, e.Column, e.Offset, e.Msg)
}

// hookEntry is one hook as graft writes it.
type hookEntry struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// groupEntry is the matcher group graft adds for an event: the host's
// matcher that runs it on every occurrence of the event (adapter.Hooks
// Matcher; none for Claude Code and Codex).
type groupEntry struct {
	Matcher string      `json:"matcher,omitempty"`
	Hooks   []hookEntry `json:"hooks"`
}

// newEntry is graft's hook for what graft does on an event (does), its
// timeout in the host's unit (adapter.Hooks TimeoutUnit).
func newEntry(host Host, command, does string) hookEntry {
	t := Timeout(does)
	if a, err := hosts.Of(host); err == nil && a.Hooks().TimeoutUnit > 0 {
		t = int(time.Duration(t) * time.Second / a.Hooks().TimeoutUnit)
	}
	return hookEntry{Type: "command", Command: command, Timeout: t}
}

func newHook(host Host, command, does string) []byte {
	return marshal(newEntry(host, command, does))
}

// matcher is the matcher of the groups graft adds for host.
func matcher(host Host) string {
	a, err := hosts.Of(host)
	if err != nil {
		return ""
	}
	return a.Hooks().Matcher
}

// settings is a parsed settings file.
type settings struct {
	file  string
	data  []byte
	top   object
	hooks object // the "hooks" object; nil when absent
	// emptied are the events uninstall took the last groups of.
	emptied []string
}

func parseSettings(host Host, file string, data []byte) (*settings, error) {
	s := &settings{file: file, data: data}
	fail := func(err error) error {
		var pe *parseError
		if !errors.As(err, &pe) {
			return fmt.Errorf("%s: %w; nothing written", file, err)
		}
		line, col := lineCol(data, pe.off)
		return &FileError{File: file, Line: line, Column: col, Offset: pe.off, Msg: pe.msg}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return s, nil // an empty file is taken as {}
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the bytes read, the offending one included
			// (the end, for a file cut short).
			off := int(se.Offset)
			if off > 0 && off <= len(data) && !bytes.ContainsAny(data[off-1:off], " \t\r\n") {
				off--
			}
			return nil, fail(&parseError{off, "not valid JSON: " + se.Error()})
		}
		return nil, fail(&parseError{0, fmt.Sprintf("not valid JSON: %v", err)})
	}
	var err error
	if s.top, err = parseObject(data, 0, "the settings"); err != nil {
		return nil, fail(err)
	}
	if i := s.top.index("hooks"); i >= 0 {
		if s.hooks, err = parseObject(s.top[i].val, s.top[i].off, `"hooks"`); err != nil {
			return nil, fail(err)
		}
		names := slices.Clone(Events)
		for _, e := range hostEvents(host) {
			names = append(names, e.Name)
		}
		for _, m := range s.hooks {
			if slices.Contains(names, m.key) {
				if _, err := parseArray(m.val, m.off, fmt.Sprintf("hooks.%s", m.key)); err != nil {
					return nil, fail(err)
				}
			}
		}
	}
	return s, nil
}

// render writes the edited settings, indented with the file's own indent
// unit, ending in a newline unless the file did not.
func (s *settings) render() ([]byte, error) {
	top := s.top
	if s.hooks != nil {
		top = top.set("hooks", encodeObject(s.hooks))
	}
	var b bytes.Buffer
	if err := json.Indent(&b, encodeObject(top), "", indentOf(s.data)); err != nil {
		return nil, fmt.Errorf("%s: graft built invalid JSON (a bug): %w", s.file, err)
	}
	if len(s.data) == 0 || bytes.HasSuffix(s.data, []byte("\n")) {
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// found is one graft hook: group index and hook index in the event array.
type found struct {
	group, hook int
	command     string
}

// graftHooks lists graft's hooks for host in an event's groups. Groups and
// hooks not shaped as the host writes them are not graft's and are kept.
func graftHooks(host Host, groups []element, installing string) []found {
	var fs []found
	for gi, g := range groups {
		hooks, ok := groupHooks(g)
		if !ok {
			continue
		}
		for hi, h := range hooks {
			if c, ok := hookCommand(h); ok && IsGraftCommand(host, c, installing) {
				fs = append(fs, found{gi, hi, c})
			}
		}
	}
	return fs
}

func groupHooks(g element) ([]element, bool) {
	o, err := parseObject(g.val, g.off, "group")
	if err != nil {
		return nil, false
	}
	i := o.index("hooks")
	if i < 0 {
		return nil, false
	}
	hooks, err := parseArray(o[i].val, o[i].off, "group hooks")
	return hooks, err == nil
}

func hookCommand(h element) (string, bool) {
	o, err := parseObject(h.val, h.off, "hook")
	if err != nil {
		return "", false
	}
	if i := o.index("type"); i >= 0 {
		var t string
		if json.Unmarshal(o[i].val, &t) != nil || t != "command" {
			return "", false
		}
	}
	i := o.index("command")
	if i < 0 {
		return "", false
	}
	var c string
	if json.Unmarshal(o[i].val, &c) != nil {
		return "", false
	}
	return c, true
}

// rewrite edits graft's hooks in groups: edits maps a found hook to its new
// bytes, nil to remove it. A group whose hooks all go is dropped; a group
// that keeps any keeps its other keys and hooks as they were. moved reports
// whether a hook graft did not edit changed its group or hook index (Codex
// keys its hook trust by that position).
func rewrite(groups []element, edits map[found][]byte) (out []element, moved bool) {
	out = make([]element, 0, len(groups))
	for gi, g := range groups {
		touched := false
		for f := range edits {
			if f.group == gi {
				touched = true
			}
		}
		if !touched {
			moved = moved || len(out) != gi
			out = append(out, g)
			continue
		}
		o, _ := parseObject(g.val, g.off, "group") // parsed before by graftHooks
		hi := o.index("hooks")
		hooks, _ := parseArray(o[hi].val, o[hi].off, "group hooks")
		var kept []element
		for k, h := range hooks {
			var f found
			var hit bool
			for e := range edits {
				if e.group == gi && e.hook == k {
					f, hit = e, true
				}
			}
			switch {
			case !hit:
				moved = moved || len(out) != gi || len(kept) != k
				kept = append(kept, h)
			case edits[f] != nil:
				kept = append(kept, element{val: edits[f]})
			}
		}
		if len(kept) == 0 {
			continue
		}
		o = o.set("hooks", encodeArray(kept))
		out = append(out, element{val: encodeObject(o), off: g.off})
	}
	return out, moved
}

// eventGroups returns the groups of event (nil if the key is absent).
func (s *settings) eventGroups(event string) []element {
	i := s.hooks.index(event)
	if i < 0 {
		return nil
	}
	groups, _ := parseArray(s.hooks[i].val, s.hooks[i].off, event) // checked by parseSettings
	return groups
}

// install adds or updates graft's entry for every event; it reports whether
// anything changed.
func (s *settings) install(host Host, command string, r *Result) bool {
	changed := false
	for _, he := range hostEvents(host) {
		ev := he.Name
		groups := s.eventGroups(ev)
		fs := graftHooks(host, groups, command)
		switch {
		case len(fs) == 0:
			groups = append(groups, element{val: marshal(groupEntry{Matcher: matcher(host), Hooks: []hookEntry{newEntry(host, command, he.Does)}})})
			r.Added = append(r.Added, ev)
		case len(fs) == 1 && fs[0].command == command:
			r.Present = append(r.Present, ev)
			continue
		default:
			edits := map[found][]byte{}
			for k, f := range fs {
				switch {
				case k > 0:
					edits[f] = nil // a duplicate
				case f.command != command:
					edits[f] = newHook(host, command, he.Does)
				}
			}
			var moved bool
			groups, moved = rewrite(groups, edits)
			if moved {
				r.Moved = append(r.Moved, ev)
			}
			r.Updated = append(r.Updated, ev)
		}
		s.hooks = s.hooks.set(ev, encodeArray(groups))
		changed = true
	}
	return changed
}

// uninstall removes graft's entries from every event; an event left with no
// groups stays as [] and is listed in s.emptied, for dropEmptied.
func (s *settings) uninstall(host Host, command string, r *Result) bool {
	if s.hooks == nil {
		return false
	}
	for _, he := range hostEvents(host) {
		ev := he.Name
		groups := s.eventGroups(ev)
		fs := graftHooks(host, groups, command)
		if len(fs) == 0 {
			continue
		}
		edits := map[found][]byte{}
		for _, f := range fs {
			edits[f] = nil
		}
		groups, moved := rewrite(groups, edits)
		if moved {
			r.Moved = append(r.Moved, ev)
		}
		if len(groups) == 0 {
			s.emptied = append(s.emptied, ev)
		}
		s.hooks = s.hooks.set(ev, encodeArray(groups))
		r.Removed = append(r.Removed, ev)
	}
	return len(r.Removed) > 0
}

// keepEmptied drops the events uninstall emptied (s.emptied, each kept
// in place as [] until now) but those whose bit is set in mask, and
// "hooks" when that leaves it empty unless bit len(s.emptied) is set.
func (s *settings) keepEmptied(mask int) {
	for k, ev := range s.emptied {
		if mask&(1<<k) == 0 {
			s.hooks = s.hooks.remove(ev)
		}
	}
	if len(s.hooks) == 0 && mask&(1<<len(s.emptied)) == 0 {
		s.top = s.top.remove("hooks")
		s.hooks = nil
	}
}

// dropEmptied drops the containers uninstall emptied (the events, then
// "hooks") but those the newest of graft's backups that matches had: a
// person's own "hooks": {} or "Stop": [] stays and one graft's install
// created goes, so the file comes back byte for byte (editFile writes
// that backup's bytes). With no backup matching, every emptied one goes.
func (s *settings) dropEmptied() error {
	full := *s
	k, err := backedChoice(s.file, 1<<(len(s.emptied)+1), func(mask int) *settings {
		k := full
		k.top, k.hooks = slices.Clone(full.top), slices.Clone(full.hooks)
		k.keepEmptied(mask)
		return &k
	})
	if err != nil {
		return err
	}
	if k != nil {
		*s = *k
		return nil
	}
	s.keepEmptied(0)
	return nil
}

// notes adds what the user has to know about the file's host settings
// (adapter.Hooks.Notes).
func (s *settings) notes(host Host, install bool, r *Result) {
	a, err := hosts.Of(host)
	if err != nil || a.Hooks().Notes == nil {
		return
	}
	r.Notes = append(r.Notes, a.Hooks().Notes(adapter.SettingsFacts{File: r.File, Install: install, Moved: r.Moved,
		Setting: func(key string) (string, bool) {
			if i := s.top.index(key); i >= 0 {
				return string(s.top[i].val), true
			}
			return "", false
		}})...)
}

// Install merges graft's hook for host into the settings file at path: one
// entry per event of Events running command (see the package doc for the
// exact entries and rules). The file is created if missing (its directory
// 0700, the file 0600); an existing file is copied to a backup first and
// replaced atomically with its mode kept. Installing what is installed
// changes nothing.
func Install(host Host, path, command string) (Result, error) {
	if _, err := ParseHost(string(host)); err != nil {
		return Result{}, err
	}
	if command == "" {
		return Result{}, errors.New("hookinstall: empty hook command")
	}
	return edit(host, path, command, func(s *settings, r *Result) bool {
		ch := s.install(host, command, r)
		s.notes(host, true, r)
		return ch
	})
}

// Uninstall removes graft's hooks for host from the settings file at path:
// exactly the hooks IsGraftCommand(host, c, command) recognises (command
// may be empty), and the groups, event keys and "hooks" key they leave
// empty. A missing file or one without graft's hooks is left untouched.
func Uninstall(host Host, path, command string) (Result, error) {
	if _, err := ParseHost(string(host)); err != nil {
		return Result{}, err
	}
	var bad error
	r, err := editFile(host, path, command, true, func(s *settings, r *Result) bool {
		ch := s.uninstall(host, command, r)
		if ch {
			bad = s.dropEmptied()
		}
		s.notes(host, false, r)
		return ch && bad == nil
	})
	if bad != nil {
		return r, bad
	}
	return r, err
}

// readSettings reads and parses the settings file at path (a symlink
// resolved); a missing file is empty settings.
func readSettings(host Host, path string) (*settings, error) {
	file, err := resolve(path)
	if err != nil {
		return nil, err
	}
	data, _, _, err := readFile(file)
	if err != nil {
		return nil, err
	}
	return parseSettings(host, file, data)
}

// Find returns the events whose hooks in the settings file at path hold a
// graft hook for host (recognised as Uninstall does). A missing file has
// none.
func Find(host Host, path, command string) ([]string, error) {
	s, err := readSettings(host, path)
	if err != nil {
		return nil, err
	}
	events := []string{}
	if s.hooks == nil {
		return events, nil
	}
	for _, he := range hostEvents(host) {
		if len(graftHooks(host, s.eventGroups(he.Name), command)) > 0 {
			events = append(events, he.Name)
		}
	}
	return events, nil
}
