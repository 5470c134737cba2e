package index

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/graft-project/graft/vfs"
)

const (
	// DirName is the index directory of a home.
	DirName = "index"
	// FileMode and DirMode are the permissions of index files and of the
	// directory (session.FileMode and session.DirMode).
	FileMode os.FileMode = 0o600
	DirMode  os.FileMode = 0o700

	seqExt   = ".seq"
	stateExt = ".state"
	// tempInfix names a temp file of a write: <name>.tmp-<8 base32 chars>.
	tempInfix = ".tmp-"
)

// TempGrace is how old a temp file must be before a writer opening the
// directory removes it: a younger one may be another process's write in
// flight (an index write takes milliseconds).
var TempGrace = time.Minute

// Dir is the index directory of home.
func Dir(home string) string { return filepath.Join(home, DirName) }

// SeqPath is the seq marks file of session id (id must be valid).
func SeqPath(home, id string) string { return filepath.Join(home, DirName, id+seqExt) }

// StatePath is the state checkpoint of session id (id must be valid).
func StatePath(home, id string) string { return filepath.Join(home, DirName, id+stateExt) }

// Writer is the one writer of index/: every index file is written through
// it, atomically (a temp file renamed over the name), and the temp files
// an interrupted write left are swept when it opens the directory. A
// Writer is safe for concurrent use.
type Writer struct {
	fs  vfs.FS
	dir string
	now func() time.Time

	mu sync.Mutex
	// opened: the directory exists and was swept; durable: its entry in
	// the home was fsynced too.
	opened, durable bool
	swept           []string
}

// NewWriter returns the writer of home's index directory. It touches no
// file until its first write.
func NewWriter(fsys vfs.FS, home string) *Writer {
	return &Writer{fs: fsys, dir: Dir(home), now: time.Now}
}

// Swept returns the temp files the writer removed when it opened the
// directory.
func (w *Writer) Swept() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.swept...)
}

// open creates the directory (its entry fsynced when durable) and, the
// first time, sweeps the temp files older than TempGrace.
func (w *Writer) open(durable bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.opened && (w.durable || !durable) {
		return nil
	}
	var err error
	if durable {
		err = vfs.MkdirAllDurable(w.fs, w.dir, DirMode)
	} else {
		err = w.fs.MkdirAll(w.dir, DirMode)
	}
	if err != nil {
		return fmt.Errorf("index: creating %s: %w", w.dir, err)
	}
	w.durable = w.durable || durable
	if w.opened {
		return nil
	}
	if err := w.sweep(); err != nil {
		return err
	}
	w.opened = true
	return nil
}

// sweep removes the temp files of interrupted writes (IsTemp) that are
// older than TempGrace. The removals are not fsynced: a temp file that
// comes back after a power loss is swept again.
func (w *Writer) sweep() error {
	ents, err := w.fs.ReadDir(w.dir)
	if err != nil {
		return fmt.Errorf("index: listing %s to sweep the temp files of interrupted writes: %w", w.dir, err)
	}
	cutoff := w.now().Add(-TempGrace)
	for _, e := range ents {
		if !IsTemp(e.Name()) {
			continue
		}
		path := filepath.Join(w.dir, e.Name())
		fi, err := w.fs.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // renamed or swept by another process meanwhile
		}
		if err != nil {
			return fmt.Errorf("index: sweeping %s: %w", path, err)
		}
		if !fi.Mode().IsRegular() || fi.ModTime().After(cutoff) {
			continue
		}
		if err := w.fs.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("index: sweeping %s: %w", path, err)
		}
		w.swept = append(w.swept, e.Name())
	}
	return nil
}

// IsTemp reports whether name is a temp file of an index write: this
// writer's "<name>.tmp-<chars>", or renameio's ".<name><digits>", which
// wrote the state checkpoint before this writer did.
func IsTemp(name string) bool {
	if i := strings.LastIndex(name, tempInfix); i > 0 && i+len(tempInfix) < len(name) {
		return true
	}
	if rest, ok := strings.CutPrefix(name, "."); ok {
		base := strings.TrimRight(rest, "0123456789")
		return len(base) < len(rest) && strings.HasSuffix(base, stateExt)
	}
	return false
}

// write replaces index/<name>, which holds what (for errors), with data: a
// temp file created exclusively, written, fsynced when durable, closed and
// renamed over name, then the directory fsynced when durable. A failed
// write removes its temp file.
func (w *Writer) write(what, name string, data []byte, durable bool) error {
	if err := w.open(durable); err != nil {
		return err
	}
	path := filepath.Join(w.dir, name)
	tmp := path + tempInfix + rand.Text()[:8]
	f, err := w.fs.Create(tmp, FileMode)
	if err != nil {
		return fmt.Errorf("index: writing %s %s: %w", what, tmp, err)
	}
	_, err = f.Write(data)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.fs.Rename(tmp, path)
	}
	if err != nil {
		err = fmt.Errorf("index: writing %s %s: %w", what, path, err)
		if rerr := w.fs.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("index: removing %s: %w", tmp, rerr))
		}
		return err
	}
	if durable {
		if err := w.fs.SyncDir(w.dir); err != nil {
			return fmt.Errorf("index: fsync of %s after writing %s %s: %w", w.dir, what, name, err)
		}
	}
	return nil
}

// openFile opens an index file for reading: a regular file (checked before
// the open, so a planted FIFO cannot block, and after it), never a
// symlink. A missing file is (nil, nil, "", nil); one that is not a
// regular file is (nil, nil, reason, nil); err is an I/O failure.
func openFile(fsys vfs.FS, path string) (vfs.File, fs.FileInfo, string, error) {
	fi, err := fsys.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, "", nil
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("index: stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Sprintf("%s is not a regular file", path), nil
	}
	f, err := fsys.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, "", nil
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("index: opening %s: %w", path, err)
	}
	if fi, err = f.Stat(); err != nil {
		return nil, nil, "", vfs.CloseAfter(f, fmt.Errorf("index: stat %s: %w", path, err))
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Sprintf("%s is not a regular file", path), vfs.CloseAfter(f, nil)
	}
	return f, fi, "", nil
}
