package hookrun

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
)

// Input is a host's hook JSON (doc.go).
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Source         string `json:"source"`
	Trigger        string `json:"trigger"`
	// InputTokens is the prompt size of the last model request, when the
	// host reports it to the hook (Qwen Code's Stop); else autoGraft reads
	// the transcript.
	InputTokens *int64 `json:"input_tokens"`
}

// The events graft acts on (adapter.HookEvent.Does); each host's adapter
// says which of its events does which.
const (
	SessionStart     = adapter.SessionStart
	UserPromptSubmit = adapter.UserPromptSubmit
	Stop             = adapter.Stop
	PreCompact       = adapter.PreCompact
)

// Settings are what the configuration decides for hooks.
type Settings struct {
	// AutoGraft is the context size in tokens past which a review is
	// prepared and a handoff suggested; 0 is off.
	AutoGraft int64
	// InterceptCompaction makes PreCompact hand off and block.
	InterceptCompaction bool
	Prepare             graft.PrepareOptions
	// Self is how the printed commands name graft ("graft", or with --home).
	Self string
	// Notices remembers failures between runs and tells each once
	// (notices.go); nil remembers nothing.
	Notices *Notices
	// Plugin: the run comes from graft's Claude Code plugin, whose hooks
	// stand down when graft hook install put graft's hooks into a settings
	// file too (twice.go).
	Plugin bool
	// ProjectDir is the Claude Code project whose settings files the
	// plugin's check reads ("" : the input's cwd).
	ProjectDir string
}

// Outcome is what the hook prints: Stdout for the host, Stderr lines for
// the person's log. The exit code is always 0.
type Outcome struct {
	Stdout []byte
	Stderr []string
	// Event and Session say what was handled (tests, logs).
	Event   string
	Session string
}

func (o *Outcome) warn(format string, args ...any) {
	o.Stderr = append(o.Stderr, "graft hook: "+fmt.Sprintf(format, args...))
}

// Parse reads a hook's input: stdin's JSON, or the argument of a host's
// notify program (adapter.Hooks.Notify: Codex's).
func Parse(host hosts.Host, stdin []byte, args []string) (*Input, error) {
	a, err := hosts.Of(host)
	if err != nil {
		return nil, err
	}
	hooks := a.Hooks()
	if hooks.Notify != nil && len(args) == 1 {
		sid, cwd, err := hooks.Notify(args[0])
		if err != nil {
			return nil, err
		}
		return &Input{SessionID: sid, Cwd: cwd, HookEventName: Stop}, nil
	}
	if len(args) > 0 {
		return nil, fmt.Errorf("unexpected arguments %q (hook input comes on stdin)", args)
	}
	dec := json.NewDecoder(bytes.NewReader(stdin))
	var in Input
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("the hook input is not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the hook input holds more than one JSON value")
	}
	if in.HookEventName == "" {
		return nil, errors.New(`the hook input has no "hook_event_name"`)
	}
	if _, ok := hooks.Event(in.HookEventName); !ok {
		return nil, fmt.Errorf("graft does not act on %s hooks", in.HookEventName)
	}
	if in.SessionID == "" && in.TranscriptPath == "" {
		return nil, fmt.Errorf("the %s input names no session_id and no transcript_path", in.HookEventName)
	}
	return &in, nil
}

// Run handles one hook event. open opens the service (and so runs the
// recovery scan); it is called only for well-formed input.
func Run(host hosts.Host, in *Input, open func() (*graft.Service, error), set Settings) (out Outcome) {
	out.Event = in.HookEventName
	defer func() {
		if p := recover(); p != nil {
			out.Stdout = nil
			out.warn("%s failed (panic: %v); the host goes on without graft", in.HookEventName, p)
		}
	}()
	if set.Self == "" {
		set.Self = "graft"
	}
	defer Tell(host, in.HookEventName, set.Notices, &out)
	if set.Plugin {
		if msg := pluginTwice(host, in, set); msg != "" {
			out.warn("%s", msg)
			set.Notices.Record(KindTwice, msg)
			return out
		}
		set.Notices.Resolve(KindTwice)
	}
	svc, err := open()
	if err != nil {
		out.warn("%s: opening the graft home: %v", in.HookEventName, err)
		set.Notices.Record(KindHome, fmt.Sprintf("graft's hooks did nothing: they cannot open the graft home: %v. graft follows no session and recovers nothing until it can; run graft doctor to see why and what to do.", err))
		return out
	}
	set.Notices.Resolve(KindHome)
	// A held catalog.db costs the host session about BusyBudget in all,
	// then the hook says graft is busy and lets the host go on.
	svc.Deadline = time.Now().Add(BusyBudget)
	a, err := hosts.Of(host)
	if err != nil {
		out.warn("%s: %v", in.HookEventName, err)
		return out
	}
	ev, _ := a.Hooks().Event(in.HookEventName) // Parse refused any other
	h := &handler{host: host, hooks: a.Hooks(), in: in, svc: svc, set: set, out: &out}
	switch ev.Does {
	case SessionStart:
		h.sessionStart()
	case UserPromptSubmit, Stop:
		h.turn()
	case PreCompact:
		h.preCompact()
	}
	return out
}

// BusyBudget bounds a hook's waits for graft's state (catalog.db) held by
// another process (issue 24, item 10).
const BusyBudget = 2 * time.Second

type handler struct {
	host  hosts.Host
	hooks adapter.Hooks
	in    *Input
	svc   *graft.Service
	set   Settings
	out   *Outcome
}

// transcript is the hook's transcript path, or the one the host keeps for
// its session id. "" when there is none yet (a session's file appears
// after the first reply).
func (h *handler) transcript() string {
	if p := h.in.TranscriptPath; p != "" {
		if _, err := os.Stat(p); err != nil {
			return "" // not written yet (or gone): nothing to follow
		}
		why := hosts.CheckTranscriptPath(h.host, p, h.in.SessionID)
		if why == "" {
			return p
		}
		// Never read, never bound: a hook input naming another file
		// would tie the session id to it for good (issue 24, item 6).
		h.out.warn("%s: transcript_path %s refused: %s; the host's own transcript of the session is followed instead", h.in.HookEventName, p, why)
		if h.in.SessionID == "" {
			return ""
		}
	}
	p, err := hosts.FindTranscript(h.host, h.in.SessionID, h.in.Cwd)
	if errors.Is(err, hosts.ErrNoTranscript) {
		return "" // not written yet: the host writes it after the first reply
	}
	if err != nil {
		h.out.warn("%s: finding the transcript of %s session %s: %v", h.in.HookEventName, h.host, h.in.SessionID, err)
		return ""
	}
	return p
}

// follow imports what is new; it reports failures and strays on stderr and
// returns the result (nil when there is no transcript or it failed).
func (h *handler) follow() *hosts.FollowResult {
	path := h.transcript()
	if path == "" {
		return nil
	}
	fr, err := h.svc.Follow(h.host, path, h.in.SessionID, h.in.Cwd, nil)
	if err != nil {
		h.out.warn("%s: following %s: %v", h.in.HookEventName, path, err)
		if fr == nil || fr.HandedOffTo == "" {
			return nil
		}
		// Handed off: where the work went on is known although what the
		// host wrote since could not be measured; the note still goes.
		return fr
	}
	h.out.Session = fr.Session
	if fr.Stray != nil {
		h.out.warn("this %s session was handed off: graft session %s continues in %s; the %d new line(s) here are not merged", h.host, fr.Session, fr.HandedOffTo, fr.Stray.Lines)
	}
	return fr
}

func (h *handler) sessionStart() {
	var notes []string
	if r := h.svc.Startup; r != nil && (r.RolledBack+r.RolledForward+r.Corrupt > 0 || len(r.Errors) > 0 || len(r.Warnings) > 0) {
		notes = append(notes, fmt.Sprintf("graft's start-up recovery scan found %d interrupted graft(s): %d rolled back (the source stays usable), %d rolled forward (the target is live).",
			r.Scanned, r.RolledBack, r.RolledForward))
		for _, l := range r.Leftovers {
			notes = append(notes, "Leftover of a crashed graft, marked abandoned: "+l)
		}
		for _, w := range r.Warnings {
			notes = append(notes, "Warning: "+w)
		}
		for _, e := range r.Errors {
			notes = append(notes, "Unresolved (run graft recover): "+e)
		}
	}
	if r := h.svc.Startup; r != nil {
		for _, e := range r.Exports {
			notes = append(notes, "graft finished a handoff that was stopped before its export: "+e)
		}
	}
	if err := h.svc.StartupErr; err != nil {
		notes = append(notes, fmt.Sprintf("graft's recovery scan left records unresolved: %v (run %s recover)", err, h.set.Self))
	}
	fr := h.follow()
	if fr != nil && fr.HandedOffTo != "" {
		notes = append(notes, h.handedOffNote(fr))
	}
	if h.in.Source == "compact" && fr != nil && fr.HandedOffTo == "" {
		// The notes, then the block in the room they leave.
		h.withConstraints(fr.Session, notes, "")
		return
	}
	if len(notes) == 0 {
		return
	}
	h.context(strings.Join(notes, "\n\n"))
}

func (h *handler) turn() {
	fr := h.follow()
	if fr == nil {
		return
	}
	if fr.HandedOffTo != "" {
		if h.does() == UserPromptSubmit {
			h.context(h.handedOffNote(fr))
		}
		return
	}
	carry := h.constraintsOwed(fr)
	var notes []string
	if msg := h.autoGraft(fr); msg != "" {
		h.out.Stderr = append(h.out.Stderr, msg)
		if h.does() == UserPromptSubmit {
			// Before the turn: the model reads it and can tell the person.
			notes = append(notes, msg+"\n(Tell the user about this handoff before answering.)")
		} else {
			h.emit(map[string]any{"systemMessage": msg})
		}
	}
	if carry {
		// The note first, then the block in the room it leaves.
		h.withConstraints(fr.Session, notes, carriedNote+"\n")
		return
	}
	if len(notes) > 0 {
		h.context(strings.Join(notes, "\n\n"))
	}
}

// autoGraft prepares a review when the context is past autoGraft tokens
// and returns what tells the person how to hand off ("" when it is not,
// or on a failure, which is warned of).
func (h *handler) autoGraft(fr *hosts.FollowResult) string {
	if h.set.AutoGraft <= 0 {
		return ""
	}
	tokens, ok := int64(0), false
	if h.in.InputTokens != nil {
		tokens, ok = *h.in.InputTokens, true
	} else {
		var err error
		if tokens, ok, err = hosts.ContextTokens(h.host, fr.Path); err != nil {
			h.out.warn("%s: reading the context size: %v", h.in.HookEventName, err)
			return ""
		}
	}
	if !ok || tokens < h.set.AutoGraft {
		return ""
	}
	rv, err := h.svc.Prepare(context.Background(), fr.Session, h.set.Prepare)
	if err != nil {
		h.out.warn("%s: the context is at %d tokens (autoGraft %d) but prepare failed: %v", h.in.HookEventName, tokens, h.set.AutoGraft, err)
		return ""
	}
	return fmt.Sprintf("graft: this session's context is at %d tokens (autoGraft %d). A handoff is ready for review (%s, tape %d chars, %d constraint(s)). Hand off to a fresh session instead of compacting:\n  %s handoff %s --session-id %s --cwd %s\nor read the review first: %s show --prepared %s",
		tokens, h.set.AutoGraft, rv.PreparedID, rv.TapeChars, len(rv.Constraints), h.set.Self, h.host, fr.HostSessionID, shellQuote(h.cwd()), h.set.Self, rv.PreparedID)
}

// handedOffNote tells whoever still types into a handed-off host session
// where the work went on, with the command that resumes it.
func (h *handler) handedOffNote(fr *hosts.FollowResult) string {
	note := fmt.Sprintf("graft: this %s session was handed off; the work continues in graft session %s", h.host, fr.HandedOffTo)
	all, err := h.svc.Bindings().List()
	if err != nil {
		h.out.warn("listing the host sessions for the resume command of %s: %v", fr.HandedOffTo, err)
	}
	for _, b := range hosts.OfSession(all, fr.HandedOffTo) {
		if b.Role == hosts.RoleExported {
			note += ", resumed with: " + hosts.ResumeCommand(b.Host, b.HostSessionID)
		}
	}
	return note + ". What is said here is not carried over: tell the user to continue there."
}

// context adds text for the model before its next request, after what
// this run already added.
func (h *handler) context(text string) {
	if prev := h.given(); prev != "" {
		text = prev + "\n\n" + text
	}
	h.setContext(text)
}

// given is the additionalContext this run's answer holds so far.
func (h *handler) given() string {
	var prev struct {
		HSO struct {
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if len(h.out.Stdout) > 0 && json.Unmarshal(h.out.Stdout, &prev) == nil {
		return prev.HSO.Context
	}
	return ""
}

// setContext answers with text as the whole additionalContext.
func (h *handler) setContext(text string) {
	h.emit(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": h.in.HookEventName, "additionalContext": text}})
}

// withConstraints adds, after what this run already added, notes (joined
// by blank lines), then head and the Anchor + Hard Constraints block of
// session, with origins: the block within what the host gives its model
// of this event's additionalContext as it is (adapter.Hooks.ContextCap),
// less what comes before it and the notices Tell will put before it all
// (adapter.Hooks.NoticesToModel): its newest constraints cut with a cut
// line that names them (graft.Service.ConstraintsBlock), rather than the
// host cutting, or filing, the whole. When the block cannot be given (it
// cannot be built, or not even its anchor line fits): a warning, and the
// notes alone.
func (h *handler) withConstraints(session string, notes []string, head string) {
	max, length := h.hooks.ContextCap(h.does())
	var lead string
	if prev := h.given(); prev != "" {
		lead = prev + "\n\n"
	}
	if len(notes) > 0 {
		lead += strings.Join(notes, "\n\n") + "\n\n"
	}
	reserved := ""
	if max > 0 && h.hooks.NoticesToModel {
		if msgs := h.set.Notices.Pending(h.does()); len(msgs) > 0 {
			reserved = modelNote(msgs) + "\n\n"
		}
	}
	text, err := fitConstraints(reserved, lead+head, max, length, func(max int, length func(string) int) (string, error) {
		return h.svc.ConstraintsBlock(session, max, length)
	})
	if err != nil {
		h.out.warn("%s: the constraints of %s are not given: %v", h.in.HookEventName, session, err)
		if len(notes) > 0 {
			h.context(strings.Join(notes, "\n\n"))
		}
		return
	}
	h.setContext(text)
}

// fitConstraints is before followed by the constraints block block
// renders within what before leaves of max characters, counted by length
// (nil: runes), after reserved, which another step puts before it all
// (max 0: no cap, and block gets 0). tape.ErrBudget when no room is left,
// or block finds the block's anchor line and heading do not fit.
func fitConstraints(reserved, before string, max int, length func(string) int, block func(max int, length func(string) int) (string, error)) (string, error) {
	if length == nil {
		length = utf8.RuneCountInString
	}
	room := 0
	if max > 0 {
		// A length of joined texts is the sum of theirs (runes, UTF-16
		// code units, bytes, escapes).
		if room = max - length(reserved) - length(before); room <= 0 {
			return "", fmt.Errorf("%w: what comes before the %s block takes %d of the %d characters the host keeps", tape.ErrBudget, tape.ConstraintsTitle, max-room, max)
		}
	}
	b, err := block(room, length)
	if err != nil {
		return "", err
	}
	return before + b, nil
}

// carriedNote opens the constraints a prompt carries past a compaction.
const carriedNote = "graft: the host compacted this session; its hard constraints, each with the message it came from, go on:"

// constraintsOwed reports whether the first prompt after a compaction is
// owed the constraints with their origins, for a host whose compaction no
// hook announces or stops but whose transcript shows it
// (adapter.Hooks.CompactionInTranscript: Gemini CLI): when the session's
// last compaction summary comes after the last time they were carried (a
// hook context holding the constraints block, as the host recorded it).
func (h *handler) constraintsOwed(fr *hosts.FollowResult) bool {
	if !h.hooks.CompactionInTranscript || h.does() != UserPromptSubmit {
		return false
	}
	// The newest of the two kinds decides, read from the log's end (only
	// the lines that can be one are decoded) down to where the look of the
	// prompt before got to (session.Store.LastMatch's memo): a session
	// never compacted costs a read of what was appended since.
	title := "] [" + tape.ConstraintsTitle + "]"
	key := fmt.Sprintf("hookrun-carry-v1-%x", sha256.Sum256([]byte(carriedNote+"\x00"+title)))
	last, memoErr, err := h.svc.LastEvent(fr.Session, key, [][]byte{[]byte(`"compacted"`), []byte(carriedNote)}, func(ev *session.Event) bool {
		switch {
		case ev.Source.Kind != session.KindSystem:
			return false
		case ev.Source.Name == "compacted":
			return true
		default:
			return ev.Source.Name == "hook-context" && strings.Contains(ev.Text, carriedNote) && strings.Contains(ev.Text, title)
		}
	})
	if err != nil {
		h.out.warn("%s: reading %s for a compaction: %v", h.in.HookEventName, fr.Session, err)
		return false
	}
	if memoErr != nil {
		h.out.warn("%s: the next prompt reads all of %s for a compaction again: %v", h.in.HookEventName, fr.Session, memoErr)
	}
	return last != nil && last.Source.Name == "compacted"
}

// does is what graft does on the hook's event.
func (h *handler) does() string {
	ev, _ := h.hooks.Event(h.in.HookEventName)
	return ev.Does
}

func (h *handler) cwd() string {
	if h.in.Cwd != "" {
		return h.in.Cwd
	}
	wd, _ := os.Getwd()
	return wd
}

func (h *handler) preCompact() {
	if !h.set.InterceptCompaction || h.hooks.Block == nil {
		// A host whose compaction no hook answer stops is not handed off
		// here: its compaction would run on in the handed-off session.
		fr := h.follow()
		if h.hooks.CompactContext && fr != nil && fr.HandedOffTo == "" {
			// The host's model writes the summary with this in its
			// request: the constraints, with their origins, survive it.
			// Within what the host keeps of it: the newest constraints
			// cut with a cut line, not the block cut off mid-line. When
			// not even its anchor line fits, a warning and no answer.
			h.withConstraints(fr.Session, nil, "")
		}
		return
	}
	path := h.transcript()
	if path == "" {
		h.out.warn("PreCompact: no transcript for session %s; the compaction goes on", h.in.SessionID)
		return
	}
	res, err := h.svc.Handoff(context.Background(), graft.HandoffOptions{Host: h.host, Transcript: path, HostSessionID: h.in.SessionID, Cwd: h.cwd(),
		Prepare: h.set.Prepare})
	if res != nil && res.Follow != nil {
		h.out.Session = res.Follow.Session
	}
	if err != nil {
		h.out.warn("PreCompact: the handoff failed, the compaction goes on: %v", err)
		return
	}
	reason := fmt.Sprintf("graft handed this session off instead of compacting it: %s → %s (generation %d, tape %d chars, no model tokens). Continue in the new session: %s",
		res.Commit.Source, res.Commit.TargetID, res.Commit.Generation, res.Commit.TapeChars, res.ResumeCommand)
	if res.Finished != nil {
		reason = fmt.Sprintf("graft handed this session off earlier (%s → %s, generation %d) but was stopped before the new session was written; it is written now. Continue in the new session: %s",
			res.Commit.Source, res.Commit.TargetID, res.Commit.Generation, res.ResumeCommand)
	}
	for _, n := range res.Notes {
		reason += "\nNote: " + n // where the new session went, the rules and the goal it lacks
	}
	h.out.Stderr = append(h.out.Stderr, reason)
	h.emit(h.hooks.Block(reason))
}

func (h *handler) emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		h.out.warn("encoding the hook output: %v", err)
		return
	}
	h.out.Stdout = append(b, '\n')
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
