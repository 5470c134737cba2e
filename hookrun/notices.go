package hookrun

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/graft-project/graft/hosts"
)

// Notices remembers, between hook runs, what a hook could not do, so that
// the person is told once per cause in the host's visible channel (doc.go,
// "Notices"). It lives in the graft home, the one place graft writes (an
// export's host file aside): a home that cannot be written remembers
// nothing, and its notice is told at every SessionStart instead. A
// directory is made only when there is something to remember. The zero
// value remembers nothing.
type Notices struct {
	// Dirs are where notices live, in the order Record tries them.
	Dirs []string
	// fresh are the messages recorded by this run: when no directory
	// takes them, they are told at SessionStart (once per host session
	// instead of once).
	fresh  []string
	stored bool
}

// Notice kinds: each is resolved as a whole when the hook next gets past
// that step.
const (
	KindConfig   = "config"           // config.toml could not be read or has an error
	KindHome     = "home"             // the graft home could not be opened
	KindTwice    = "twice"            // the plugin and graft hook install both hook an event
	KindNoBinary = "plugin-no-binary" // the plugin found no graft binary (written by plugin/graft/bin/graft-plugin)
)

// NoticesDir is where the notices of the graft home home live.
func NoticesDir(home string) string { return filepath.Join(home, "hook-notices") }

// OpenNotices remembers in dirs, tried in order.
func OpenNotices(dirs ...string) *Notices {
	return &Notices{Dirs: dirs}
}

// existing are the directories of n that exist as directories of this user.
func (n *Notices) existing() []string {
	var out []string
	for _, d := range n.Dirs {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
			continue
		}
		out = append(out, d)
	}
	return out
}

// usableDir makes d (0700) and checks that it is a real directory of this
// user that a file can be created in: a shared temporary directory may
// hold another user's graft-<uid>.
func usableDir(d string) error {
	if err := os.MkdirAll(d, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", d)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d", d, st.Uid)
	}
	f, err := os.CreateTemp(d, ".probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	if cerr := f.Close(); cerr != nil {
		return cerr
	}
	return os.Remove(name)
}

// noticeFile is the JSON of <cause>.json.
type noticeFile struct {
	Cause   string `json:"cause"`
	Message string `json:"message"`
	Since   string `json:"since,omitempty"`
}

// Cause is the file name (without extension) of a notice of kind with
// message: the kind alone for KindNoBinary, else kind-<12 hex of the
// message's SHA-256>, so that another error of the same kind is another
// cause, told again.
func Cause(kind, message string) string {
	if kind == KindNoBinary {
		return kind
	}
	sum := sha256.Sum256([]byte(message))
	return kind + "-" + hex.EncodeToString(sum[:])[:12]
}

// Record remembers a failure of kind; an existing record of the same cause
// is kept as it is (it may have been shown).
func (n *Notices) Record(kind, message string) {
	if n == nil {
		return
	}
	n.fresh = append(n.fresh, message)
	cause := Cause(kind, message)
	for _, d := range n.existing() {
		if _, err := os.Lstat(filepath.Join(d, cause+".json")); err == nil {
			n.stored = true
			return // already remembered (and maybe shown)
		}
	}
	b, err := json.Marshal(noticeFile{Cause: cause, Message: message, Since: time.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		return
	}
	for _, d := range n.Dirs {
		if usableDir(d) != nil {
			continue
		}
		// Written whole under a temporary name, then linked: a reader
		// never sees half a record, and a record is never replaced.
		f, err := os.CreateTemp(d, ".rec-*")
		if err != nil {
			continue
		}
		tmp := f.Name()
		_, werr := f.Write(append(b, '\n'))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			if lerr := os.Link(tmp, filepath.Join(d, cause+".json")); lerr == nil || errors.Is(lerr, fs.ErrExist) {
				n.stored = true
			}
		}
		_ = os.Remove(tmp)
		if n.stored {
			return
		}
	}
}

// Resolve forgets every notice of kind: the step works again, so the next
// failure of it is told again.
func (n *Notices) Resolve(kind string) {
	if n == nil {
		return
	}
	for _, d := range n.existing() {
		n.resolveIn(d, kind)
	}
}

func (n *Notices) resolveIn(dir, kind string) {
	for _, ext := range []string{".json", ".shown"} {
		names, err := filepath.Glob(filepath.Join(dir, kind+"*"+ext))
		if err != nil {
			continue
		}
		for _, name := range names {
			base := strings.TrimSuffix(filepath.Base(name), ext)
			if base == kind || strings.HasPrefix(base, kind+"-") {
				_ = os.Remove(name)
			}
		}
	}
}

// Take returns the messages of the notices not shown yet, marking each
// shown: of two hooks at once, the one that creates <cause>.shown tells it.
// What this run recorded and no directory took is told when event is a
// SessionStart, and not otherwise.
func (n *Notices) Take(event string) []string { return n.messages(event, true) }

// Pending returns the messages Take(event) would return now, marking
// none shown.
func (n *Notices) Pending(event string) []string { return n.messages(event, false) }

func (n *Notices) messages(event string, take bool) []string {
	if n == nil {
		return nil
	}
	var out []string
	if len(n.fresh) > 0 && !n.stored && event == SessionStart {
		out = append(out, n.fresh...)
	}
	var names []string
	for _, d := range n.existing() {
		m, err := filepath.Glob(filepath.Join(d, "*.json"))
		if err != nil {
			continue
		}
		sort.Strings(m)
		names = append(names, m...)
	}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		var nf noticeFile
		if json.Unmarshal(b, &nf) != nil || nf.Message == "" {
			continue
		}
		shown := strings.TrimSuffix(name, ".json") + ".shown"
		if !take {
			if _, err := os.Lstat(shown); err == nil {
				continue
			}
			out = append(out, nf.Message)
			continue
		}
		f, err := os.OpenFile(shown, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, fs.ErrExist) || err != nil {
			continue
		}
		_ = f.Close()
		out = append(out, nf.Message)
	}
	return out
}

// Tell puts the notices not shown yet into a SessionStart's or a
// UserPromptSubmit's answer, as its systemMessage (what the hosts show the
// person; a message the answer already had follows them). For a host
// whose hook text may reach no one (adapter.Hooks.NoticesToModel: codex
// exec shows none) they also go into additionalContext, asking the model
// to tell the user. Other events tell nothing: their
// failures wait for the next of these two.
func Tell(host hosts.Host, event string, n *Notices, out *Outcome) {
	a, err := hosts.Of(host)
	if err != nil {
		return
	}
	hooks := a.Hooks()
	ev, _ := hooks.Event(event)
	if ev.Does != SessionStart && ev.Does != UserPromptSubmit {
		return
	}
	msgs := n.Take(ev.Does)
	if len(msgs) == 0 {
		return
	}
	text := strings.Join(msgs, "\n")
	resp := map[string]any{}
	if len(out.Stdout) > 0 {
		if err := json.Unmarshal(out.Stdout, &resp); err != nil {
			resp = map[string]any{}
		}
	}
	sys := text
	if s, ok := resp["systemMessage"].(string); ok && s != "" {
		sys += "\n\n" + s
	}
	resp["systemMessage"] = sys
	if hooks.NoticesToModel {
		hso, _ := resp["hookSpecificOutput"].(map[string]any)
		if hso == nil {
			hso = map[string]any{"hookEventName": event}
		}
		ctx, _ := hso["additionalContext"].(string)
		note := modelNote(msgs)
		if ctx != "" {
			note += "\n\n" + ctx
		}
		hso["additionalContext"] = note
		resp["hookSpecificOutput"] = hso
	}
	b, err := json.Marshal(resp)
	if err != nil {
		out.warn("encoding the hook output: %v", err)
		return
	}
	out.Stdout = append(b, '\n')
}

// modelNote is what Tell puts first in the additionalContext of a host
// whose hook text may reach no one (adapter.Hooks.NoticesToModel): the
// notices msgs, asking the model to tell the user.
func modelNote(msgs []string) string {
	return "graft could not do its job; tell the user before answering:\n" + strings.Join(msgs, "\n")
}
