package adapter

import (
	"time"
	"unicode/utf16"
)

// Hooks is how a host runs graft's hooks and takes their answers.
type Hooks struct {
	// Events are the host events graft's hooks run on, in the order an
	// install adds them, each with what graft does there.
	Events []HookEvent
	// Scopes are the settings files graft's hooks can go into; the first
	// is the one an install takes when none is named.
	Scopes []Scope
	// Settings is the settings file of scope: dir is the project
	// directory for ScopeProject and ScopeLocal ("" : the current one),
	// and overrides Root for ScopeUser ("" : Root). A scope not in Scopes
	// is an error.
	Settings func(scope Scope, dir string) (string, error)
	// Block is the answer of the hook that stops the host's compaction,
	// saying reason to the person; nil when no hook answer stops it.
	Block func(reason string) map[string]any
	// CompactContext: a PreCompact hook's additionalContext reaches the
	// request in which the host's model writes the compaction's summary,
	// so graft's PreCompact hook gives it the session's constraints with
	// their origins (for a host whose compaction no answer stops).
	CompactContext bool
	// CompactContextMax is how many characters of that additionalContext
	// the host keeps, counted as CompactContextLen counts them (0: it
	// keeps all of it): graft renders the constraints block within them,
	// cutting constraints with a cut line that names what to recall,
	// rather than have the host cut it off mid-line.
	CompactContextMax int
	// CompactContextLen is the length the host gives a PreCompact hook's
	// additionalContext (nil: runes), which CompactContextMax caps.
	CompactContextLen func(string) int
	// ContextMax is how many characters of a SessionStart's or a
	// UserPromptSubmit's additionalContext (one hook's answer) the host
	// gives its model as they are, counted as ContextLen counts them (0:
	// all of it); past it the host gives something else in its place
	// (Claude Code: a file's path and a preview; Codex: the head and the
	// end). graft renders the constraints block it gives there, after a
	// compaction, within what the text joined with it leaves of them,
	// cutting constraints with a cut line, as for CompactContextMax.
	ContextMax int
	// ContextLen is the length ContextMax counts (nil: runes).
	ContextLen func(string) int
	// NoticesToModel: the host shows a hook's systemMessage to no one in
	// some of its modes (codex exec), so what graft must tell the person
	// also goes to the model, asking it to tell them.
	NoticesToModel bool
	// Notify reads the one argument of the host's notify program (run
	// after each turn, instead of a hook on stdin) as a Stop; nil when the
	// host has none.
	Notify func(arg string) (sessionID, cwd string, err error)
	// Matcher is the "matcher" of the group an install adds for each
	// event ("": none; a group without one runs on every occurrence).
	Matcher string
	// TimeoutUnit is the unit of a hook's "timeout" in the host's
	// settings (0: seconds; Gemini CLI's are milliseconds).
	TimeoutUnit time.Duration
	// CompactionInTranscript: no hook tells graft that the host compacted
	// (no SessionStart "compact", and no answer stops it), but the
	// compaction's summary shows in the transcript (an event of source
	// name "compacted"): the first UserPromptSubmit after one gets the
	// constraints with their origins.
	CompactionInTranscript bool
	// Notes are what a person must know after graft's hooks were
	// installed into (or removed from) the host's settings file.
	Notes func(f SettingsFacts) []string
	// Plugin: graft's plugin (plugin/ in graft's repository) is a plugin
	// of this host, whose hooks run beside the ones graft hook install
	// puts into its settings files: a hook run from the plugin stands down
	// when graft's hook for the same event is in one of them, and graft
	// plugin enables it in the user's settings file.
	Plugin bool
	// PluginRemove is the host's own command that takes graft's plugin or
	// extension out of it ("claude plugin uninstall graft@graft", "gemini
	// extensions uninstall graft"); "" for a host graft has none for. A
	// hook run from one (graft hook <host> --plugin) stands down when
	// graft's hook for the same event is in one of the host's settings
	// files too, and names this command beside the one that removes that
	// hook: keep one.
	PluginRemove string
	// PluginAt is the file that says whether the host runs graft's plugin
	// or extension (Claude Code's user settings.json, Codex's config.toml,
	// the extension's manifest under the host's extensions/), and whether
	// it does: installed and enabled by the host's own command. Nil for a
	// host graft has none for. graft doctor names the file when on, and
	// an error reading it once (the settings scan may have named it).
	PluginAt func() (file string, on bool, err error)
}

// HookEvent is one host event graft hooks.
type HookEvent struct {
	// Name is the host's name of the event, as its settings and its hook
	// input (hook_event_name) spell it.
	Name string
	// Does is what graft does on it, named by the event graft was first
	// written for: SessionStart, UserPromptSubmit, Stop or PreCompact.
	Does string
}

// The events graft acts on (HookEvent.Does).
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	Stop             = "Stop"
	PreCompact       = "PreCompact"
)

// Scope is which of a host's settings files graft's hooks go into.
type Scope string

const (
	// ScopeProject is a file in the project, shared when committed
	// (Claude Code's <dir>/.claude/settings.json).
	ScopeProject Scope = "project"
	// ScopeLocal is the project's file that is not shared (Claude Code's
	// <dir>/.claude/settings.local.json).
	ScopeLocal Scope = "local"
	// ScopeUser is the user's file in the host's folder.
	ScopeUser Scope = "user"
)

// SettingsFacts are what Hooks.Notes is told of an edit of a settings file.
type SettingsFacts struct {
	// File is the settings file.
	File string
	// Install: graft's hooks were installed (else removed).
	Install bool
	// Moved are the events whose other hooks moved to another group or
	// index.
	Moved []string
	// Setting is the raw JSON value of a top-level key of the file, ok
	// false when the file has none.
	Setting func(key string) (value string, ok bool)
}

// GraftNamed are the events of a host that names them as graft does
// (Claude Code, Codex): SessionStart, UserPromptSubmit, Stop, PreCompact.
func GraftNamed() []HookEvent {
	var evs []HookEvent
	for _, e := range []string{SessionStart, UserPromptSubmit, Stop, PreCompact} {
		evs = append(evs, HookEvent{Name: e, Does: e})
	}
	return evs
}

// Event is the HookEvent of host event name; ok is false when graft does
// not hook it.
func (h Hooks) Event(name string) (HookEvent, bool) {
	for _, e := range h.Events {
		if e.Name == name {
			return e, true
		}
	}
	return HookEvent{}, false
}

// ContextCap is what the host gives its model of the additionalContext
// of a hook that does does (PreCompact: CompactContextMax and
// CompactContextLen; else ContextMax and ContextLen): at most max
// characters as length counts them; max 0 is all of it.
func (h Hooks) ContextCap(does string) (max int, length func(string) int) {
	if does == PreCompact {
		return h.CompactContextMax, h.CompactContextLen
	}
	return h.ContextMax, h.ContextLen
}

// HasScope reports whether s is one of the host's settings scopes.
func (h Hooks) HasScope(s Scope) bool {
	for _, x := range h.Scopes {
		if x == s {
			return true
		}
	}
	return false
}

// UTF16Len is the length JavaScript gives s: UTF-16 code units (the
// ContextLen and CompactContextLen of hosts written in it).
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
