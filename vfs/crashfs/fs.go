package crashfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/graft-project/graft/vfs"
)

// maxSymlinks is how many links one lookup may follow before ELOOP, as Linux.
const maxSymlinks = 40

// epoch is the modification time of the first change; every later change
// adds a millisecond, so times are ordered and runs reproducible.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// inode is a file, directory or symlink. It keeps two states: live (what
// a reader sees now) and durable (what survives power loss now).
type inode struct {
	mode    fs.FileMode // type bits and permissions
	modTime time.Time

	// Regular file: data is live, synced is as of the last Sync. Slices
	// handed out (synced, frozen copies, clones) may alias data's backing
	// array up to sharedLen bytes; those bytes are never written in place.
	data      []byte
	synced    []byte
	sharedLen int

	// Symlink.
	target string

	// Directory: entries are live, durable as of the last SyncDir.
	entries map[string]*inode
	durable map[string]*inode
}

func (n *inode) isDir() bool     { return n.mode.IsDir() }
func (n *inode) isSymlink() bool { return n.mode&fs.ModeSymlink != 0 }

// mutable makes the bytes from offset on writable in place, copying data
// first when a shared slice covers them.
func (n *inode) mutable(from int) {
	if from < n.sharedLen {
		n.data = append([]byte(nil), n.data...)
		n.sharedLen = 0
	}
}

// share returns data as a slice that stays valid: its bytes are never
// written again and appending to it reallocates.
func (n *inode) share() []byte {
	n.sharedLen = max(n.sharedLen, len(n.data))
	return n.data[:len(n.data):len(n.data)]
}

func newDir(perm fs.FileMode, t time.Time) *inode {
	return &inode{mode: fs.ModeDir | perm&fs.ModePerm, modTime: t, entries: map[string]*inode{}, durable: map[string]*inode{}}
}

// FS is an in-memory vfs.FS that knows, for every file and directory, what
// was made durable by Sync and SyncDir. See the package doc for the model.
type FS struct {
	mu      sync.Mutex
	root    *inode
	clock   int64 // changes so far; drives modification times
	tempSeq int   // suffix of the next WriteFileAtomic temp file

	// locks is the lock table: the handle holding each inode's lock
	// (File.Lock), until that handle's Close. A crash state is a new FS
	// with no holders. freed is signalled (under mu) when a lock is released.
	locks map[*inode]*file
	freed *sync.Cond

	recording bool
	steps     []step // steps[0] is the start of the recording
}

var _ vfs.FS = (*FS)(nil)

// New returns an empty FS: a root directory, durable.
func New() *FS {
	return &FS{root: newDir(0o755, epoch)}
}

func (f *FS) tick() time.Time {
	f.clock++
	return epoch.Add(time.Duration(f.clock) * time.Millisecond)
}

// lookup is the result of walking a path.
type lookup struct {
	parent *inode // directory holding the last element; nil for "/" or a path ending in "..".
	base   string
	node   *inode // nil when the last element does not exist
}

// splitPath cleans name and splits it into elements; relative names are
// taken from the root, as the FS has no working directory.
func splitPath(name string) []string {
	var out []string
	for _, e := range strings.Split(filepath.Clean("/"+name), "/") {
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// resolve walks name from the root, following symlinks in every element but
// the last, and in the last too when followLast is set. It returns a bare
// errno; callers wrap it with the operation and the name.
func (f *FS) resolve(name string, followLast bool) (lookup, error) {
	if name == "" {
		return lookup{}, syscall.ENOENT
	}
	queue := splitPath(name)
	stack := []*inode{f.root}
	links := 0
	for len(queue) > 0 {
		elem := queue[0]
		queue = queue[1:]
		last := len(queue) == 0
		cur := stack[len(stack)-1]
		if elem == "." || elem == ".." {
			if elem == ".." && len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			if last {
				return lookup{node: stack[len(stack)-1]}, nil
			}
			continue
		}
		if !cur.isDir() {
			return lookup{}, syscall.ENOTDIR
		}
		child := cur.entries[elem]
		if child == nil {
			if last {
				return lookup{parent: cur, base: elem}, nil
			}
			return lookup{}, syscall.ENOENT
		}
		if child.isSymlink() && (!last || followLast) {
			links++
			if links > maxSymlinks {
				return lookup{}, syscall.ELOOP
			}
			if strings.HasPrefix(child.target, "/") {
				stack = stack[:1]
			}
			var target []string
			for _, e := range strings.Split(child.target, "/") {
				if e != "" {
					target = append(target, e)
				}
			}
			if len(target) == 0 && !strings.HasPrefix(child.target, "/") {
				return lookup{}, syscall.ENOENT
			}
			if len(target) == 0 {
				target = []string{"."}
			}
			queue = append(target, queue...)
			continue
		}
		if last {
			return lookup{parent: cur, base: elem, node: child}, nil
		}
		stack = append(stack, child)
	}
	return lookup{node: stack[len(stack)-1]}, nil
}

func pathErr(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// Open implements vfs.FS: read-only, refusing a symlink (ELOOP).
func (f *FS) Open(name string) (vfs.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, err := f.resolve(name, false)
	switch {
	case err != nil:
		return nil, pathErr("open", name, err)
	case l.node == nil:
		return nil, pathErr("open", name, syscall.ENOENT)
	case l.node.isSymlink():
		return nil, pathErr("open", name, syscall.ELOOP)
	}
	return &file{fs: f, n: l.node, name: name, read: true}, nil
}

// Create implements vfs.FS: exclusive, so any existing entry (a symlink
// included) is EEXIST.
func (f *FS) Create(name string, perm os.FileMode) (vfs.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.create(name, perm)
	if err != nil {
		return nil, err
	}
	return &file{fs: f, n: n, name: name, write: true}, nil
}

func (f *FS) create(name string, perm os.FileMode) (*inode, error) {
	l, err := f.resolve(name, false)
	switch {
	case err != nil:
		return nil, pathErr("open", name, err)
	case l.node != nil:
		return nil, pathErr("open", name, syscall.EEXIST)
	}
	n := &inode{mode: perm & fs.ModePerm, modTime: f.tick()}
	l.parent.entries[l.base] = n
	f.record("create " + name)
	return n, nil
}

// OpenAppend implements vfs.FS: the file must exist and not be a symlink.
func (f *FS) OpenAppend(name string) (vfs.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, err := f.resolve(name, false)
	switch {
	case err != nil:
		return nil, pathErr("open", name, err)
	case l.node == nil:
		return nil, pathErr("open", name, syscall.ENOENT)
	case l.node.isSymlink():
		return nil, pathErr("open", name, syscall.ELOOP)
	case l.node.isDir():
		return nil, pathErr("open", name, syscall.EISDIR)
	}
	return &file{fs: f, n: l.node, name: name, write: true, append: true}, nil
}

// WriteFileAtomic implements vfs.FS as the steps the real one takes, each
// recorded on its own: create "."+base+digits in the same directory, write,
// sync, close, rename over name, sync the directory. On failure the temp
// file is removed.
func (f *FS) WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	dir, base := filepath.Split(filepath.Clean(name))
	var tmp string
	var tf vfs.File
	for {
		f.mu.Lock()
		f.tempSeq++
		tmp = filepath.Join(dir, "."+base+strconv.Itoa(f.tempSeq))
		n, err := f.create(tmp, perm)
		f.mu.Unlock()
		if err == nil {
			tf = &file{fs: f, n: n, name: tmp, write: true}
			break
		}
		if !os.IsExist(err) {
			return fmt.Errorf("crashfs: write %s atomically: %w", name, err)
		}
	}
	fail := func(step string, err error) error {
		err = fmt.Errorf("crashfs: write %s atomically: %s %s: %w", name, step, tmp, err)
		if rerr := f.Remove(tmp); rerr != nil {
			return errors.Join(err, fmt.Errorf("crashfs: removing temp file %s: %w", tmp, rerr))
		}
		return err
	}
	if _, err := tf.Write(data); err != nil {
		return fail("write", errors.Join(err, tf.Close()))
	}
	if err := tf.Sync(); err != nil {
		return fail("sync", errors.Join(err, tf.Close()))
	}
	if err := tf.Close(); err != nil {
		return fail("close", err)
	}
	if err := f.Rename(tmp, name); err != nil {
		return fail("rename", err)
	}
	if err := f.SyncDir(filepath.Dir(filepath.Clean(name))); err != nil {
		return fmt.Errorf("crashfs: write %s atomically: %w", name, err)
	}
	return nil
}

// Rename implements vfs.FS as os.Rename does: a file or symlink replaces a
// file or symlink atomically; an existing directory is never replaced
// (EEXIST); a directory never moves into itself.
func (f *FS) Rename(oldname, newname string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	fail := func(err error) error {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	from, err := f.resolve(oldname, false)
	if err != nil {
		return fail(err)
	}
	if from.node == nil {
		return fail(syscall.ENOENT)
	}
	to, err := f.resolve(newname, false)
	if err != nil {
		return fail(err)
	}
	if from.parent == nil || to.parent == nil {
		return fail(syscall.EBUSY)
	}
	if to.node == from.node {
		return nil
	}
	if to.node != nil {
		switch {
		case to.node.isDir():
			// os.Rename refuses any existing directory as the new name.
			return fail(syscall.EEXIST)
		case from.node.isDir():
			return fail(syscall.ENOTDIR)
		}
	}
	if from.node.isDir() && contains(from.node, to.parent) {
		return fail(syscall.EINVAL)
	}
	delete(from.parent.entries, from.base)
	to.parent.entries[to.base] = from.node
	f.tick()
	f.record("rename " + oldname + " -> " + newname)
	return nil
}

// Link implements vfs.FS as os.Link does: newname becomes a second entry
// of oldname's file (not a directory); an existing newname is EEXIST. Like
// any new entry it survives a crash only once its directory is synced.
func (f *FS) Link(oldname, newname string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	fail := func(err error) error {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: err}
	}
	from, err := f.resolve(oldname, false)
	if err != nil {
		return fail(err)
	}
	if from.node == nil {
		return fail(syscall.ENOENT)
	}
	if from.node.isDir() {
		return fail(syscall.EPERM)
	}
	to, err := f.resolve(newname, false)
	if err != nil {
		return fail(err)
	}
	if to.parent == nil {
		return fail(syscall.EBUSY)
	}
	if to.node != nil {
		return fail(syscall.EEXIST)
	}
	to.parent.entries[to.base] = from.node
	f.tick()
	f.record("link " + oldname + " -> " + newname)
	return nil
}

// contains reports whether dir is d or lies below it (live entries).
func contains(d, dir *inode) bool {
	if d == dir {
		return true
	}
	for _, c := range d.entries {
		if c.isDir() && contains(c, dir) {
			return true
		}
	}
	return false
}

// Remove implements vfs.FS: a file, a symlink or an empty directory.
func (f *FS) Remove(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, err := f.resolve(name, false)
	switch {
	case err != nil:
		return pathErr("remove", name, err)
	case l.node == nil:
		return pathErr("remove", name, syscall.ENOENT)
	case l.parent == nil:
		return pathErr("remove", name, syscall.EBUSY)
	case l.node.isDir() && len(l.node.entries) > 0:
		return pathErr("remove", name, syscall.ENOTEMPTY)
	}
	delete(l.parent.entries, l.base)
	f.tick()
	f.record("remove " + name)
	return nil
}

// MkdirAll implements vfs.FS. The new directories' entries are durable only
// after SyncDir of each parent. No umask applies.
func (f *FS) MkdirAll(dir string, perm os.FileMode) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	elems := splitPath(dir)
	created := false
	for i := 1; i <= len(elems); i++ {
		p := "/" + strings.Join(elems[:i], "/")
		l, err := f.resolve(p, false)
		if err == nil && l.node != nil && l.node.isSymlink() {
			l, err = f.resolve(p, true)
			if err == nil && l.node == nil {
				// mkdir(2) does not follow a dangling symlink: it exists.
				err = syscall.EEXIST
			}
		}
		if err != nil {
			return pathErr("mkdir", p, err)
		}
		if l.node == nil {
			l.parent.entries[l.base] = newDir(perm, f.tick())
			created = true
			continue
		}
		if !l.node.isDir() {
			return pathErr("mkdir", p, syscall.ENOTDIR)
		}
	}
	if created {
		f.record("mkdirall " + dir)
	}
	return nil
}

// ReadDir implements vfs.FS: entries sorted by name.
func (f *FS) ReadDir(dir string) ([]os.DirEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, err := f.resolve(dir, true)
	switch {
	case err != nil:
		return nil, pathErr("open", dir, err)
	case l.node == nil:
		return nil, pathErr("open", dir, syscall.ENOENT)
	case !l.node.isDir():
		return nil, pathErr("readdirent", dir, syscall.ENOTDIR)
	}
	names := make([]string, 0, len(l.node.entries))
	for name := range l.node.entries {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]os.DirEntry, len(names))
	for i, name := range names {
		out[i] = fs.FileInfoToDirEntry(infoOf(name, l.node.entries[name]))
	}
	return out, nil
}

// Lstat implements vfs.FS: a symlink is described, not followed.
func (f *FS) Lstat(name string) (os.FileInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, err := f.resolve(name, false)
	switch {
	case err != nil:
		return nil, pathErr("lstat", name, err)
	case l.node == nil:
		return nil, pathErr("lstat", name, syscall.ENOENT)
	}
	return infoOf(filepath.Base(filepath.Clean("/"+name)), l.node), nil
}

// SyncDir implements vfs.FS: the directory's entries become durable. Like
// the real one (open + fsync), on a regular file it syncs the file's data.
func (f *FS) SyncDir(dir string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, err := f.resolve(dir, true)
	switch {
	case err != nil:
		return pathErr("open", dir, err)
	case l.node == nil:
		return pathErr("open", dir, syscall.ENOENT)
	}
	f.syncNode(l.node)
	f.record("syncdir " + dir)
	return nil
}

// syncNode makes a directory's entries or a file's data durable.
func (f *FS) syncNode(n *inode) {
	if n.isDir() {
		n.durable = cloneEntries(n.entries)
		return
	}
	n.synced = n.share()
}

func cloneEntries(m map[string]*inode) map[string]*inode {
	out := make(map[string]*inode, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Symlink plants a symlink name -> target, for tests of O_NOFOLLOW. Its
// entry is durable only after SyncDir of its directory, like a new file.
func (f *FS) Symlink(target, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	fail := func(err error) error {
		return &os.LinkError{Op: "symlink", Old: target, New: name, Err: err}
	}
	l, err := f.resolve(name, false)
	switch {
	case err != nil:
		return fail(err)
	case l.node != nil:
		return fail(syscall.EEXIST)
	}
	l.parent.entries[l.base] = &inode{mode: fs.ModeSymlink | 0o777, modTime: f.tick(), target: target}
	f.record("symlink " + name + " -> " + target)
	return nil
}

// ReadFile returns the live contents of name, following symlinks.
func (f *FS) ReadFile(name string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, err := f.resolve(name, true)
	switch {
	case err != nil:
		return nil, pathErr("open", name, err)
	case l.node == nil:
		return nil, pathErr("open", name, syscall.ENOENT)
	case l.node.isDir():
		return nil, pathErr("read", name, syscall.EISDIR)
	}
	return append([]byte(nil), l.node.data...), nil
}

// fileInfo is a stat result, copied when taken.
type fileInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
}

func infoOf(name string, n *inode) fileInfo {
	size := int64(len(n.data))
	if n.isSymlink() {
		size = int64(len(n.target))
	}
	return fileInfo{name: name, size: size, mode: n.mode, modTime: n.modTime}
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return i.mode }
func (i fileInfo) ModTime() time.Time { return i.modTime }
func (i fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fileInfo) Sys() any           { return nil }
