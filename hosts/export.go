package hosts

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/version"
	"github.com/graft-project/graft/vfs"
)

// ExportOptions say which graft target to write for which host, and where.
type ExportOptions struct {
	Store *session.Store
	Home  string
	// Bindings is where the bindings live (nil: Files(Store.FS, Home)).
	Bindings Bindings
	Session  string
	Host     Host
	// Cwd is the working directory the host session belongs to; "" is the
	// process's. It must exist.
	Cwd string
	// Root overrides the host's folder (adapter.Adapter.Root:
	// $CLAUDE_CONFIG_DIR, $CODEX_HOME, … and their ~ defaults): the one an
	// owed export recorded at its commit.
	Root string
	Now  func() time.Time
	// Hook is called after each step of the export (crash points; nil:
	// none).
	Hook func(ExportStep)
}

// ExportResult is a host session that continues a graft target.
type ExportResult struct {
	Host          Host   `json:"host"`
	HostSessionID string `json:"hostSessionId"`
	Path          string `json:"path"`
	ResumeCommand string `json:"resumeCommand"`
	Session       string `json:"session"`
	Cwd           string `json:"cwd"`
	// Created is true when this export wrote the host file: the first
	// export, or one after the file was deleted; false when the file was
	// there with the same bytes.
	Created bool `json:"created"`
}

// tapeTurn reads the tape events of target info's log.
func tapeTurn(st *session.Store, info *session.Info) (*adapter.Turn, error) {
	o := info.Origin
	if o == nil {
		return nil, fmt.Errorf("%w: session %s does not start with graft/origin; commit a graft first (graft handoff prepares, commits and exports in one step)", ErrNotTarget, info.ID)
	}
	t := &adapter.Turn{}
	if in := o.Inherit; in != nil && in.Goal != nil && in.Goal.Status == session.GoalActive {
		t.Goal = in.Goal.Objective
	}
	last := int64(o.TapeEvents) // the origin is the first of them
	_, err := st.Scan(info.ID, session.ScanFrom{}, func(ev *session.Event, _ []byte, _ int64) error {
		if ev.Seq == 1 {
			// The state fold does not build ts: read it here.
			at, err := time.Parse(time.RFC3339Nano, ev.TS)
			if err != nil {
				return fmt.Errorf("hosts: %s: graft/origin time %q: %w", info.ID, ev.TS, err)
			}
			t.At = at
		}
		if ev.Seq < 2 || ev.Seq > last {
			return nil
		}
		if ev.Source.Name != "graft" {
			return fmt.Errorf("hosts: %s seq %d is inside the tape (seqs 2-%d) but not graft's (%s/%s)", info.ID, ev.Seq, last, ev.Source.Kind, ev.Source.Name)
		}
		switch ev.Type {
		case session.TypeAssistantMessage:
			if t.Ack != "" {
				return fmt.Errorf("hosts: %s seq %d: a second acknowledgement in the tape", info.ID, ev.Seq)
			}
			t.Ack = ev.Text
		case session.TypeUserMessage:
			t.User = append(t.User, ev.Text)
		default:
			return fmt.Errorf("hosts: %s seq %d: a %s event inside the tape", info.ID, ev.Seq, ev.Type)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(t.User) == 0 || t.Ack == "" || len(t.User)+2 != o.TapeEvents {
		return nil, fmt.Errorf("hosts: %s: the tape holds %d messages and %d acknowledgement(s), graft/origin counts %d events with itself", info.ID, len(t.User), boolInt(t.Ack != ""), o.TapeEvents)
	}
	return t, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// RealDir resolves a working directory as the hosts see it: absolute,
// symlinks resolved, a directory.
func RealDir(dir string) (string, error) { return adapter.RealDir(dir) }

// layout is where an export goes and what it holds.
type layout struct {
	sid, path, resume string
	data              []byte // rendered by this graft (writer)
	// bare renders the turn without its goal (nil: the turn has none):
	// what a graft from before exports carried it wrote.
	bare func(by adapter.Made) ([]byte, error)
	// claims are the markers the host needs before the file
	// (adapter.Claimer), created when missing.
	claims []adapter.File
	mapper importer.Mapper
	// made is who the data names as its makers (graft's version, the
	// host's: hostVersion); render renders the same turn as other makers
	// would have, and madeOf reads the makers of a file graft wrote (ok
	// false: not one).
	made   adapter.Made
	render func(by adapter.Made) ([]byte, error)
	madeOf func(first []byte) (adapter.Made, bool)
}

func plan(o *ExportOptions, a adapter.Adapter, info *session.Info, t *adapter.Turn, cwd string) (*layout, error) {
	root := o.Root
	if root == "" {
		var err error
		if root, err = a.Root(); err != nil {
			return nil, fmt.Errorf("hosts: finding %s's folder: %w", a.Title(), err)
		}
	}
	sid := a.ExportID(t, info.ID, info.Origin.Txn)
	var claims []adapter.File
	if c, ok := a.(adapter.Claimer); ok {
		var err error
		if claims, err = c.Claims(root, cwd); err != nil {
			return nil, fmt.Errorf("hosts: %s's folder for %s: %w", a.Title(), cwd, err)
		}
	}
	path := a.ExportPath(root, cwd, sid, t)
	if path == "" {
		return nil, fmt.Errorf("hosts: %s has no place for an export in %s", a.Title(), cwd)
	}
	made := adapter.Made{Graft: version.Get().Short(), Host: hostVersion(o, a, root, info, path)}
	var err error
	if made.Provider, err = hostProvider(o, a, root, path); err != nil {
		return nil, err
	}
	render := func(by adapter.Made) ([]byte, error) { return a.Render(t, sid, cwd, by) }
	var bare func(by adapter.Made) ([]byte, error)
	if _, ok := a.(adapter.GoalCarrier); ok && t.Goal != "" {
		nogoal := *t
		nogoal.Goal = ""
		bare = func(by adapter.Made) ([]byte, error) { return a.Render(&nogoal, sid, cwd, by) }
	}
	data, err := render(made)
	if err != nil {
		return nil, err
	}
	return &layout{sid: sid, data: data, resume: a.ResumeCommand(sid), path: path, claims: claims,
		mapper: a.Mapper(), made: made, render: render, bare: bare, madeOf: a.Writer}, nil
}

// Export writes graft target o.Session as a host session that the host
// resumes, and binds them (doc.go). Exporting the same target again to the
// same host answers with the same session and bytes.
func Export(o ExportOptions) (*ExportResult, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	a, err := Of(o.Host)
	if err != nil {
		return nil, err
	}
	if err := session.ValidID(o.Session); err != nil {
		return nil, err
	}
	cwd, err := RealDir(o.Cwd)
	if err != nil {
		return nil, err
	}
	info, err := o.Store.Info(o.Session)
	if err != nil {
		return nil, err
	}
	t, err := tapeTurn(o.Store, info)
	if err != nil {
		return nil, err
	}
	all, err := o.bindings().List()
	if err != nil {
		return nil, err
	}
	var prior *Binding
	for _, b := range OfSession(all, o.Session) {
		if b.Role != RoleExported {
			continue
		}
		if b.Host != o.Host {
			return nil, fmt.Errorf("%w: %s was exported to %s as session %s (%s); a graft target continues in one host session", ErrBoundElsewhere, o.Session, b.Host, b.HostSessionID, b.Path)
		}
		prior = &b
	}
	if prior == nil {
		// A target that already continues somewhere must not fork.
		if err := o.Store.Check(info); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrTargetNotLive, err)
		}
	}
	if prior != nil && prior.Cwd != "" && o.Cwd == "" {
		cwd = prior.Cwd // the same export, wherever it is asked for from
	}
	l, err := plan(&o, a, info, t, cwd)
	if err != nil {
		return nil, err
	}
	res := &ExportResult{Host: o.Host, HostSessionID: l.sid, Path: l.path, ResumeCommand: l.resume, Session: o.Session, Cwd: cwd}
	if prior != nil && prior.HostSessionID != l.sid {
		return nil, fmt.Errorf("%w: %s was exported as %s session %s, this build derives %s", ErrBoundElsewhere, o.Session, o.Host, prior.HostSessionID, l.sid)
	}
	if prior != nil && prior.Path != l.path {
		return nil, movedExport(&o, a, prior, cwd, l.path)
	}
	if err := l.asWritten(o.Store.FS); err != nil {
		return nil, err
	}
	if err := claim(o.Store.FS, l.claims); err != nil {
		return nil, err
	}
	created, err := publish(&o, l.sid, l.path, l.data)
	if err != nil {
		return nil, err
	}
	res.Created = created
	if prior != nil {
		return res, nil
	}
	fi, err := o.Store.FS.Lstat(l.path)
	if err != nil {
		return nil, fmt.Errorf("hosts: stat %s: %w", l.path, err)
	}
	dev, ino, ok := index.FileIdentity(fi)
	if !ok {
		return nil, fmt.Errorf("hosts: %s: no device and inode on this system", l.path)
	}
	if err := seedCursor(&o, l, dev, ino, info.LastSeq); err != nil {
		return nil, err
	}
	o.at(StepCursor)
	sum := sha256.Sum256(l.data)
	b := &Binding{Host: o.Host, HostSessionID: l.sid, Session: o.Session, Role: RoleExported, Path: l.path, Cwd: cwd,
		Bytes: int64(len(l.data)), SHA256: hex.EncodeToString(sum[:]), Created: o.Now().UTC().Format(time.RFC3339Nano)}
	if err := o.bindings().Save(b); err != nil {
		return nil, err
	}
	o.at(StepBound)
	return res, nil
}

// asWritten renders l.data as the file already at l.path names its makers
// (adapter.Made), when they are others: the export of the same target by
// another graft version (an upgrade between a handoff and the export it
// owed, a re-export), or for another version of the host (the person's
// host upgraded since), is the same export, and the import cursor is
// seeded with the file's own bytes. So is a file that lacks the goal's
// record a GoalCarrier's export ends with (one a graft from before
// exports carried the goal wrote): l.data is then the turn without it.
// No file, or one graft did not write, leaves l.data as it is (publish
// says what is there).
func (l *layout) asWritten(fsys vfs.FS) error {
	f, err := fsys.Open(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("hosts: reading %s: %w", l.path, err)
	}
	first, err := bufio.NewReader(f).ReadBytes('\n')
	if cerr := f.Close(); err == nil || errors.Is(err, io.EOF) {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("hosts: reading %s: %w", l.path, err)
	}
	by, ok := l.madeOf(first)
	if !ok {
		return nil
	}
	if by != l.made {
		data, err := l.render(by)
		if err != nil {
			return err
		}
		l.data = data
	}
	if l.bare == nil {
		return nil
	}
	// The goal's record is the file's last: an export without it (a
	// graft from before exports carried the goal wrote it) is the same
	// export, as it is.
	if same, _ := sameFile(fsys, l.path, l.data); same {
		return nil
	}
	bare, err := l.bare(by)
	if err != nil {
		return err
	}
	if same, _ := sameFile(fsys, l.path, bare); same {
		l.data = bare
	}
	return nil
}

// movedExport says why a re-export cannot go where the first one went:
// asked for from another working directory, or the host's own directory
// moved (its adapter's RootVar set otherwise, the first one perhaps
// gone).
func movedExport(o *ExportOptions, a adapter.Adapter, prior *Binding, cwd, path string) error {
	if prior.Cwd != "" && cwd != prior.Cwd {
		return fmt.Errorf("%w: %s was exported to %s (working directory %s), not %s; export from that directory or omit --cwd", ErrBoundElsewhere, o.Session, prior.Path, prior.Cwd, path)
	}
	dir, gone := filepath.Dir(prior.Path), ""
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		gone = ", a directory that is gone now"
	}
	return fmt.Errorf("%w: %s was exported to %s%s; %s's directory is another now (this export would write %s): export with %s set as at the first export to write it there again",
		ErrBoundElsewhere, o.Session, prior.Path, gone, o.Host, path, a.RootVar())
}

// ExportStep names a step of Export that ExportOptions.Hook is called
// after (the crash suite's points, txn.ExportPoints).
type ExportStep string

// The steps of Export, in order.
const (
	StepTempSynced ExportStep = "temp-fsync:after" // the transcript under its temporary name, fsynced
	StepLinked     ExportStep = "link:after"       // linked to its name; directory not yet fsynced
	StepDirSynced  ExportStep = "dirsync:after"    // temporary name gone, directory fsynced
	StepCursor     ExportStep = "cursor:after"     // the session's import cursor seeded
	StepBound      ExportStep = "binding:after"    // the binding written
)

func (o *ExportOptions) at(step ExportStep) {
	if o.Hook != nil {
		o.Hook(step)
	}
}

// ExportID is the host session id an export of target session id to host
// gets (doc.go: derived from the host, the target and its txn): how an
// unbound transcript graft wrote is recognised.
func ExportID(st *session.Store, id string, host Host) (string, error) {
	info, err := st.Info(id)
	if err != nil {
		return "", err
	}
	t, err := tapeTurn(st, info)
	if err != nil {
		return "", err
	}
	a, err := Of(host)
	if err != nil {
		return "", err
	}
	return a.ExportID(t, info.ID, info.Origin.Txn), nil
}

// seedCursor makes the session's import cursor start after graft's lines.
// A cursor that already follows this transcript (an export that stopped
// before its binding) is kept: it may have gone further.
func seedCursor(o *ExportOptions, l *layout, dev, ino uint64, lastSeq int64) error {
	cur, err := importer.LoadCursor(o.Store.FS, o.Home, o.Session)
	switch {
	case err == nil:
		if cur.Source == l.path && cur.Offset >= int64(len(l.data)) {
			return nil
		}
		return fmt.Errorf("%w: session %s already follows %s (%s, imports/%s.json)", ErrBoundElsewhere, o.Session, cur.Source, cur.Format, o.Session)
	case !errors.Is(err, importer.ErrNoCursor):
		return err
	}
	return importer.Seed(o.Store, o.Home, o.Session, l.path, dev, ino, l.data, lastSeq, l.mapper)
}

// publish writes data at path without ever replacing a file, through
// fsys: a temporary file in the directory (.graft-export-<host session
// id>.tmp, so a killed export's is known and taken over by the next), fsync,
// link to the name, remove the temporary, fsync the directory. A file
// already at path with the same bytes (an earlier export of the same
// target) is left as it is: created is false.
func publish(o *ExportOptions, sid, path string, data []byte) (created bool, err error) {
	fsys := o.Store.FS
	dir := filepath.Dir(path)
	if err := vfs.MkdirAllDurable(fsys, dir, session.DirMode); err != nil {
		return false, fmt.Errorf("hosts: creating %s: %w", dir, err)
	}
	tmpName := filepath.Join(dir, ".graft-export-"+sid+".tmp")
	// A killed export of this same host session may have left its
	// temporary file (only graft writes that name, under the target's
	// import lock): it goes first, whether or not the file got its name.
	if _, err := fsys.Lstat(tmpName); err == nil {
		if err := fsys.Remove(tmpName); err != nil {
			return false, fmt.Errorf("hosts: removing the stale %s: %w", tmpName, err)
		}
		if err := fsys.SyncDir(dir); err != nil {
			return false, fmt.Errorf("hosts: fsync directory %s: %w", dir, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("hosts: stat %s: %w", tmpName, err)
	}
	if same, err := sameFile(fsys, path, data); err != nil || same {
		return false, err
	}
	tmp, err := fsys.Create(tmpName, 0o600)
	if err != nil {
		return false, fmt.Errorf("hosts: writing into %s: %w", dir, err)
	}
	defer func() {
		if rerr := fsys.Remove(tmpName); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
			err = fmt.Errorf("hosts: removing %s: %w", tmpName, rerr)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, fmt.Errorf("hosts: writing %s: %w", tmpName, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, fmt.Errorf("hosts: fsync %s: %w", tmpName, err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("hosts: closing %s: %w", tmpName, err)
	}
	o.at(StepTempSynced)
	if err := fsys.Link(tmpName, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			if same, serr := sameFile(fsys, path, data); serr != nil || same {
				return false, serr
			}
			return false, fmt.Errorf("%w: %s holds other bytes; graft never replaces a host transcript", ErrExportExists, path)
		}
		return false, fmt.Errorf("hosts: linking %s: %w", path, err)
	}
	o.at(StepLinked)
	if err := fsys.Remove(tmpName); err != nil {
		return false, fmt.Errorf("hosts: removing %s: %w", tmpName, err)
	}
	if err := fsys.SyncDir(dir); err != nil {
		return false, fmt.Errorf("hosts: fsync directory %s: %w", dir, err)
	}
	o.at(StepDirSynced)
	return true, nil
}

// claim creates each marker the host needs before an export's file
// (adapter.Claimer) that does not exist, through fsys, whole or not at
// all: a temporary file beside it (<name>.graft.tmp), fsynced, linked to
// its name (a marker already there, the host's or another export's, is
// never replaced), the temporary removed and the directory fsynced.
func claim(fsys vfs.FS, files []adapter.File) error {
	for _, m := range files {
		dir := filepath.Dir(m.Path)
		if err := vfs.MkdirAllDurable(fsys, dir, session.DirMode); err != nil {
			return fmt.Errorf("hosts: creating %s: %w", dir, err)
		}
		if _, err := fsys.Lstat(m.Path); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("hosts: stat %s: %w", m.Path, err)
		}
		tmp := m.Path + ".graft.tmp"
		if err := fsys.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("hosts: removing the stale %s: %w", tmp, err)
		}
		f, err := fsys.Create(tmp, 0o600)
		if err != nil {
			return fmt.Errorf("hosts: creating %s: %w", tmp, err)
		}
		_, err = f.Write(m.Data)
		if err == nil {
			err = f.Sync()
		}
		if err = vfs.CloseAfter(f, err); err != nil {
			return fmt.Errorf("hosts: writing %s: %w", tmp, err)
		}
		if err := fsys.Link(tmp, m.Path); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("hosts: linking %s: %w", m.Path, err)
		}
		if err := fsys.Remove(tmp); err != nil {
			return fmt.Errorf("hosts: removing %s: %w", tmp, err)
		}
		if err := fsys.SyncDir(dir); err != nil {
			return fmt.Errorf("hosts: fsync directory %s: %w", dir, err)
		}
	}
	return nil
}

// sameFile reports whether path exists holding exactly data (or data and
// what the host wrote after it). Another file there (or a directory) is
// ErrExportExists.
func sameFile(fsys vfs.FS, path string, data []byte) (bool, error) {
	fi, err := fsys.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("hosts: stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("%w: %s is a %s", ErrExportExists, path, fi.Mode().Type())
	}
	f, err := fsys.Open(path)
	if err != nil {
		return false, fmt.Errorf("hosts: reading %s: %w", path, err)
	}
	got, err := io.ReadAll(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("hosts: reading %s: %w", path, err)
	}
	if string(got) == string(data) {
		return true, nil
	}
	if len(got) > len(data) && string(got[:len(data)]) == string(data) {
		// The host resumed it and wrote on: still graft's export.
		return true, nil
	}
	return false, fmt.Errorf("%w: %s holds other bytes; graft never replaces a host transcript", ErrExportExists, path)
}

func (o *ExportOptions) bindings() Bindings {
	if o.Bindings != nil {
		return o.Bindings
	}
	return Files(o.Store.FS, o.Home)
}
