package hosts

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// FollowOptions name a host transcript to bring into graft.
type FollowOptions struct {
	Store *session.Store
	Home  string
	// Bindings is where the bindings live (nil: Files(Store.FS, Home)).
	Bindings Bindings
	Host     Host
	Path     string
	// HostSessionID is the host's id of the session; "" reads it from the
	// file name (adapter.Adapter.SessionID).
	HostSessionID string
	// Cwd, when set (a hook's input), is recorded with the time on the
	// binding: the host session last seen in that working directory.
	Cwd      string
	Now      func() time.Time
	Progress func(read, total int64)
	// LockWait bounds each wait for the session's lock (0: the
	// importer's default): a hook's budget.
	LockWait time.Duration
}

// FollowResult says where a host transcript went.
type FollowResult struct {
	Host          Host   `json:"host"`
	HostSessionID string `json:"hostSessionId"`
	Path          string `json:"path"`
	Session       string `json:"session"`
	Role          string `json:"role"`
	// NewBinding is true when this follow bound the host session first.
	NewBinding bool `json:"newBinding"`
	// Import is the import's summary; nil when nothing was imported.
	Import *importer.Summary `json:"import,omitempty"`
	// HandedOffTo is set when the session was handed off: the live
	// session that continues the work. Nothing is imported then.
	HandedOffTo string `json:"handedOffTo,omitempty"`
	// Stray is set when, besides, the host session went on anyway: those
	// lines are not merged (see Binding).
	Stray *Stray `json:"stray,omitempty"`
}

// Follow brings what a host transcript gained into the graft session it
// continues: the session graft exported it from, or the one it was first
// imported into (bound then). A session that was handed off takes nothing
// more: what the host wrote after is recorded as a stray, not merged.
func Follow(o FollowOptions) (*FollowResult, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	a, err := Of(o.Host)
	if err != nil {
		return nil, err
	}
	if a.Growth() != adapter.Appends {
		return nil, fmt.Errorf("%w: %s rewrites its session files, and graft follows only a host that appends to them", ErrCannotFollow, o.Host)
	}
	fi, err := os.Stat(o.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist", ErrNoTranscript, o.Path)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoTranscript, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (%s)", ErrNoTranscript, o.Path, fi.Mode().Type())
	}
	path, err := filepath.Abs(o.Path)
	if err != nil {
		return nil, fmt.Errorf("hosts: resolving %s: %w", o.Path, err)
	}
	hid := strings.ToLower(o.HostSessionID)
	if hid == "" {
		if hid, err = HostSessionIDFromPath(o.Host, path); err != nil {
			return nil, err
		}
	}
	res := &FollowResult{Host: o.Host, HostSessionID: hid, Path: path}
	b, err := o.bindings().Load(o.Host, hid)
	switch {
	case errors.Is(err, ErrNoBinding):
		id, err := importer.DefaultID(path)
		if err != nil {
			return nil, err
		}
		// A file that is not the host's is refused before it is bound, as
		// the import would refuse it before it writes anything.
		if err := importer.Check(importer.Options{Store: o.Store, Home: o.Home, ID: id, Source: path, Others: Others(o.Host)}, a.Mapper()); err != nil {
			return nil, err
		}
		b = &Binding{Host: o.Host, HostSessionID: hid, Session: id, Role: RoleImported, Path: path, Created: o.Now().UTC().Format(time.RFC3339Nano)}
		if err := o.bindings().Save(b); err != nil {
			return nil, err
		}
		res.NewBinding = true
	case err != nil:
		return nil, err
	}
	if o.Cwd != "" {
		cwd, err := RealDir(o.Cwd)
		if err == nil && (b.Role == RoleImported || b.Cwd == "" || b.Cwd == cwd) {
			b.Cwd, b.LastSeen = cwd, o.Now().UTC().Format(time.RFC3339Nano)
			if err := o.bindings().Save(b); err != nil {
				return nil, err
			}
		}
	}
	res.Session, res.Role = b.Session, b.Role
	exists, err := o.Store.Exists(b.Session)
	if err != nil {
		return nil, err
	}
	if exists {
		info, err := o.Store.Info(b.Session)
		if err != nil {
			return nil, err
		}
		if g, ok := info.Live(); ok {
			return res, noteStray(&o, b, res, path, g.Target)
		}
	}
	sum, err := a.Import(adapter.ImportOptions{Store: o.Store, Home: o.Home, Path: path, ID: b.Session, LockWait: o.LockWait, Others: Others(o.Host),
		Progress: func(_ string, read, total int64) {
			if o.Progress != nil {
				o.Progress(read, total)
			}
		}})
	res.Import = sum
	return res, err
}

// noteStray measures what the host wrote past the import cursor of a
// handed-off session and records it on the binding.
func noteStray(o *FollowOptions, b *Binding, res *FollowResult, path, target string) error {
	live := target
	defer func() { res.HandedOffTo = live }()
	for seen := map[string]bool{}; !seen[live]; {
		seen[live] = true
		info, err := o.Store.Info(live)
		if err != nil {
			break // the chain is judged by status; the first target is named
		}
		g, ok := info.Live()
		if !ok {
			break
		}
		live = g.Target
	}
	var off int64
	var lines0 int
	cur, err := importer.LoadCursor(o.Store.FS, o.Home, b.Session)
	switch {
	case err == nil:
		off, lines0 = cur.Offset, cur.Lines
	case !errors.Is(err, importer.ErrNoCursor):
		return err
	}
	f, fi, err := openTranscript(path)
	if err != nil {
		return err
	}
	defer f.Close()
	n := fi.Size() - off
	if n <= 0 {
		return nil
	}
	data := make([]byte, n)
	if _, err := f.ReadAt(data, off); err != nil && err != io.EOF {
		return fmt.Errorf("hosts: reading %s: %w", path, err)
	}
	// Only a new human instruction means the host session was used: the
	// end of the turn that handed it off (an agent's own graft_commit
	// result and its last words) is not.
	a, err := Of(o.Host)
	if err != nil {
		return err
	}
	m := a.Mapper()
	if cur != nil {
		err = cur.RestoreState(o.Store.FS, o.Home, m)
	} else {
		err = m.LoadState(nil)
	}
	if err != nil {
		return fmt.Errorf("hosts: %s importer state of %s: %w", o.Host, b.Session, err)
	}
	humans := 0
	lines, _, err := importer.MapLines(data, lines0+1, m, false, func(ev *session.Event) {
		if ev.IsHumanInstruction() {
			humans++
		}
	})
	if err != nil {
		return fmt.Errorf("hosts: reading the new lines of %s: %w", path, err)
	}
	if humans == 0 {
		return nil
	}
	if b.Stray != nil && b.Stray.Bytes == n && b.Stray.Target == live {
		res.Stray = b.Stray
		return nil
	}
	b.Stray = &Stray{Bytes: n, Lines: lines, Humans: humans, Seen: o.Now().UTC().Format(time.RFC3339Nano), Target: live}
	res.Stray = b.Stray
	return o.bindings().Save(b)
}

func (o *FollowOptions) bindings() Bindings {
	if o.Bindings != nil {
		return o.Bindings
	}
	return Files(o.Store.FS, o.Home)
}
