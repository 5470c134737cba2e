package crashfs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// file is an open file. Handles share the inode: a removed file stays
// readable and writable through handles opened before the remove.
type file struct {
	fs     *FS
	n      *inode
	name   string
	read   bool
	write  bool
	append bool
	off    int64 // next Read, or next Write unless appending
	closed bool
}

// check refuses use after Close and a direction the file was not opened for.
func (h *file) check(op string, needRead, needWrite bool) error {
	switch {
	case h.closed:
		return pathErr(op, h.name, os.ErrClosed)
	case needRead && !h.read, needWrite && !h.write:
		return pathErr(op, h.name, syscall.EBADF)
	case h.n.isDir() && (needRead || needWrite):
		return pathErr(op, h.name, syscall.EISDIR)
	}
	return nil
}

func (h *file) Read(p []byte) (int, error) {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if err := h.check("read", true, false); err != nil {
		return 0, err
	}
	if h.off >= int64(len(h.n.data)) {
		return 0, io.EOF
	}
	k := copy(p, h.n.data[h.off:])
	h.off += int64(k)
	return k, nil
}

func (h *file) ReadAt(p []byte, off int64) (int, error) {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if err := h.check("read", true, false); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, pathErr("readat", h.name, syscall.EINVAL)
	}
	if off >= int64(len(h.n.data)) {
		return 0, io.EOF
	}
	k := copy(p, h.n.data[off:])
	if k < len(p) {
		return k, io.EOF
	}
	return k, nil
}

func (h *file) Write(p []byte) (int, error) {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if err := h.check("write", false, true); err != nil {
		return 0, err
	}
	n := h.n
	if h.append {
		h.off = int64(len(n.data))
	}
	off := int(h.off)
	n.mutable(min(off, len(n.data)))
	if off > len(n.data) {
		n.data = append(n.data, make([]byte, off-len(n.data))...)
	}
	if end := off + len(p); end > len(n.data) {
		n.data = append(n.data[:off], p...)
	} else {
		copy(n.data[off:], p)
	}
	h.off += int64(len(p))
	n.modTime = h.fs.tick()
	h.fs.record(fmt.Sprintf("write %d bytes to %s", len(p), h.name))
	return len(p), nil
}

func (h *file) Sync() error {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if err := h.check("sync", false, false); err != nil {
		return err
	}
	h.fs.syncNode(h.n)
	h.fs.record("sync " + h.name)
	return nil
}

// Truncate changes the live size; like written bytes, it is durable after
// Sync. As ftruncate(2), it needs a file open for writing.
func (h *file) Truncate(size int64) error {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if err := h.check("truncate", false, false); err != nil {
		return err
	}
	if !h.write || size < 0 || h.n.isDir() {
		return pathErr("truncate", h.name, syscall.EINVAL)
	}
	n := h.n
	if int(size) <= len(n.data) {
		n.data = n.data[:size]
	} else {
		n.mutable(len(n.data))
		n.data = append(n.data, make([]byte, int(size)-len(n.data))...)
	}
	n.modTime = h.fs.tick()
	h.fs.record(fmt.Sprintf("truncate %s to %d bytes", h.name, size))
	return nil
}

func (h *file) Stat() (os.FileInfo, error) {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if err := h.check("stat", false, false); err != nil {
		return nil, err
	}
	return infoOf(filepath.Base(filepath.Clean("/"+h.name)), h.n), nil
}

func (h *file) Close() error {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if h.closed {
		return pathErr("close", h.name, fs.ErrClosed)
	}
	h.closed = true
	h.fs.unlock(h)
	return nil
}

func (h *file) Name() string { return h.name }

// Lock takes the inode's exclusive lock for this handle, waiting while
// another handle holds it: each handle is an open file description of its
// own, so two handles of one file exclude each other as two opens of a real
// file do, and Close releases the lock. Locking again through the holder
// is a no-op, as flock(2) is.
func (h *file) Lock() error {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	for {
		if h.closed {
			return pathErr("flock", h.name, syscall.EBADF)
		}
		holder := h.fs.locks[h.n]
		if holder == nil || holder == h {
			break
		}
		h.fs.lockFreed().Wait()
	}
	if h.fs.locks == nil {
		h.fs.locks = map[*inode]*file{}
	}
	h.fs.locks[h.n] = h
	return nil
}
