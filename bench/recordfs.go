package bench

import (
	"errors"
	"fmt"
	"github.com/graft-project/graft/catalog"
	"os"
	"path/filepath"
	"sync"

	"github.com/graft-project/graft/vfs"
)

// writeOp is one operation that changes the disk or makes a change
// durable, as a commit made it: what the same-bytes-same-fsyncs baseline
// replays.
type writeOp struct {
	Kind string // create, write, sync, append, atomic, syncdir, remove, rename, bolttx
	Path string
	To   string // rename target
	Data []byte // bytes of a write or an atomic write
}

// recordFS is a vfs.FS that records every write, fsync and directory
// change while recording is on, and counts fsyncs. Reads pass through.
type recordFS struct {
	vfs.FS
	mu  sync.Mutex
	on  bool
	ops []writeOp
}

func newRecordFS(fs vfs.FS) *recordFS { return &recordFS{FS: fs} }

// start clears the log and starts recording; stop returns what was
// recorded.
func (r *recordFS) start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on, r.ops = true, nil
}

func (r *recordFS) stop() []writeOp {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.ops
}

func (r *recordFS) log(op writeOp) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on {
		r.ops = append(r.ops, op)
	}
}

func (r *recordFS) Create(name string, perm os.FileMode) (vfs.File, error) {
	f, err := r.FS.Create(name, perm)
	if err != nil {
		return nil, err
	}
	r.log(writeOp{Kind: "create", Path: name})
	return &recordFile{File: f, fs: r}, nil
}

func (r *recordFS) OpenAppend(name string) (vfs.File, error) {
	f, err := r.FS.OpenAppend(name)
	if err != nil {
		return nil, err
	}
	r.log(writeOp{Kind: "append", Path: name})
	return &recordFile{File: f, fs: r}, nil
}

func (r *recordFS) WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	if err := r.FS.WriteFileAtomic(name, data, perm); err != nil {
		return err
	}
	r.log(writeOp{Kind: "atomic", Path: name, Data: append([]byte(nil), data...)})
	return nil
}

func (r *recordFS) Rename(oldname, newname string) error {
	if err := r.FS.Rename(oldname, newname); err != nil {
		return err
	}
	r.log(writeOp{Kind: "rename", Path: oldname, To: newname})
	return nil
}

func (r *recordFS) Remove(name string) error {
	if err := r.FS.Remove(name); err != nil {
		return err
	}
	r.log(writeOp{Kind: "remove", Path: name})
	return nil
}

func (r *recordFS) SyncDir(dir string) error {
	if err := r.FS.SyncDir(dir); err != nil {
		return err
	}
	r.log(writeOp{Kind: "syncdir", Path: dir})
	return nil
}

type recordFile struct {
	vfs.File
	fs *recordFS
}

func (f *recordFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	f.fs.log(writeOp{Kind: "write", Path: f.Name(), Data: append([]byte(nil), p[:n]...)})
	return n, err
}

func (f *recordFile) Sync() error {
	if err := f.File.Sync(); err != nil {
		return err
	}
	f.fs.log(writeOp{Kind: "sync", Path: f.Name()})
	return nil
}

// fsyncCount is the file and directory fsyncs of ops: an atomic write is
// one of each (vfs: temp file fsync, rename, directory fsync).
// fsyncCount counts a commit's fsyncs: of files and directories through
// vfs.FS, and bbolt's fdatasyncs of catalog.db (two per transaction).
type fsyncCount struct{ File, Dir, Catalog int }

func (c fsyncCount) Total() int { return c.File + c.Dir + c.Catalog }

func (c fsyncCount) String() string {
	return fmt.Sprintf("%d (%d file, %d dir, %d catalog.db)", c.Total(), c.File, c.Dir, c.Catalog)
}

func countFsyncs(ops []writeOp) fsyncCount {
	var c fsyncCount
	for _, op := range ops {
		switch op.Kind {
		case "bolttx":
			c.Catalog += 2
		case "sync":
			c.File++
		case "syncdir":
			c.Dir++
		case "atomic":
			c.File++
			c.Dir++
		}
	}
	return c
}

// replayer carries out recorded ops again in its own directory: the same
// bytes written and the same fsyncs, and nothing else a commit does (no
// locks, no reads, no catalog, no fold). Paths map by their last two
// elements (sessions/<id>.jsonl, .txn/<txn>.json), so a replay needs no
// copy of the source log: appending to a small stand-in costs what
// appending to the source costs.
type replayer struct {
	dir   string
	files map[string]*os.File
	bolt  *os.File // the replay's catalog.db, once a bolttx needs it
}

// replay runs ops in a fresh directory under dir and removes it after.
func replay(dir string, ops []writeOp) (err error) {
	root, err := os.MkdirTemp(dir, "replay-")
	if err != nil {
		return fmt.Errorf("bench: replay directory: %w", err)
	}
	rp := &replayer{dir: root, files: map[string]*os.File{}}
	defer func() {
		for _, f := range rp.files {
			if cerr := f.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}
		if rerr := os.RemoveAll(root); rerr != nil && err == nil {
			err = rerr
		}
	}()
	// Files a commit appends to or replaces exist before it starts.
	for _, op := range ops {
		if op.Kind == "append" || op.Kind == "atomic" {
			p := rp.path(op.Path)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
				return err
			}
		}
		if op.Kind == "create" || op.Kind == "syncdir" {
			d := rp.path(op.Path)
			if op.Kind == "create" {
				d = filepath.Dir(d)
			}
			if err := os.MkdirAll(d, 0o700); err != nil {
				return err
			}
		}
	}
	for _, op := range ops {
		if err := rp.do(op); err != nil {
			return fmt.Errorf("bench: replaying %s %s: %w", op.Kind, op.Path, err)
		}
	}
	return nil
}

func (rp *replayer) path(p string) string {
	return filepath.Join(rp.dir, filepath.Base(filepath.Dir(p)), filepath.Base(p))
}

func (rp *replayer) do(op writeOp) error {
	p := rp.path(op.Path)
	switch op.Kind {
	case "create":
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		return rp.reopen(p, f)
	case "append":
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		return rp.reopen(p, f)
	case "write":
		f := rp.files[p]
		if f == nil {
			return errors.New("write to a file the replay has not opened")
		}
		_, err := f.Write(op.Data)
		return err
	case "sync":
		f := rp.files[p]
		if f == nil {
			return errors.New("fsync of a file the replay has not opened")
		}
		return f.Sync()
	case "atomic":
		return vfs.Default.WriteFileAtomic(p, op.Data, 0o600)
	case "syncdir":
		return vfs.Default.SyncDir(p)
	case "remove":
		return os.Remove(p)
	case "rename":
		return os.Rename(p, rp.path(op.To))
	case "bolttx":
		return rp.boltTx(op.Data)
	}
	return nil
}

// boltPage is bbolt's page size on this machine (it takes the OS's).
var boltPage = os.Getpagesize()

// catalogOps are the write transactions a catalog made, as bolttx ops:
// Data is the data pages of one transaction (the meta page is written
// apart). st is the difference of two catalog.ReadWriteStats readings; the
// page writes are shared evenly among the transactions.
func catalogOps(st catalog.WriteStats) []writeOp {
	var ops []writeOp
	for k := range st.Txns {
		pages := st.PageWrites / st.Txns
		if k < st.PageWrites%st.Txns {
			pages++
		}
		ops = append(ops, writeOp{Kind: "bolttx", Path: "catalog.db", Data: make([]byte, max(0, pages-1)*int64(boltPage))})
	}
	return ops
}

// boltTx does the I/O of one bbolt write transaction in the replay's
// catalog.db: the data pages, fdatasync, the meta page, fdatasync.
func (rp *replayer) boltTx(data []byte) error {
	if rp.bolt == nil {
		f, err := os.OpenFile(filepath.Join(rp.dir, "catalog.db"), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		rp.bolt = f
		rp.files[f.Name()] = f // closed with the others
	}
	// Pages after the meta pages, as bbolt writes its dirty pages.
	if _, err := rp.bolt.WriteAt(data, int64(4*boltPage)); err != nil {
		return err
	}
	if err := fdatasync(rp.bolt); err != nil {
		return err
	}
	if _, err := rp.bolt.WriteAt(make([]byte, boltPage), 0); err != nil {
		return err
	}
	return fdatasync(rp.bolt)
}

// reopen keeps f as the open handle of p, closing an earlier one.
func (rp *replayer) reopen(p string, f *os.File) error {
	old := rp.files[p]
	rp.files[p] = f
	if old != nil {
		return old.Close()
	}
	return nil
}
