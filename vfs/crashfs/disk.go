package crashfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// WriteTo writes the FS's live tree under dir on the real filesystem, FS
// path "/a/b" becoming dir/a/b, with the same modes (no umask) and symlinks
// as symlinks, so the real binary can run on a crash state. dir is created
// if missing; an entry that already exists there is an error, not merged.
// Nothing is fsynced: the copy is for a test run, not for keeping.
func (f *FS) WriteTo(dir string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("crashfs: WriteTo: %w", err)
	}
	return writeEntries(f.root, dir, "/")
}

// writeEntries writes n's children under real; a directory's mode is set
// after its children, so a read-only directory can still be filled.
func writeEntries(n *inode, real, p string) error {
	for _, name := range sortedNames(n.entries) {
		c := n.entries[name]
		dst := filepath.Join(real, name)
		cp := path.Join(p, name)
		switch {
		case c.isDir():
			if err := os.Mkdir(dst, 0o700); err != nil {
				return fmt.Errorf("crashfs: WriteTo: directory %s: %w", cp, err)
			}
			if err := writeEntries(c, dst, cp); err != nil {
				return err
			}
			if err := os.Chmod(dst, c.mode.Perm()); err != nil {
				return fmt.Errorf("crashfs: WriteTo: directory %s: %w", cp, err)
			}
		case c.isSymlink():
			if err := os.Symlink(c.target, dst); err != nil {
				return fmt.Errorf("crashfs: WriteTo: symlink %s: %w", cp, err)
			}
		default:
			if err := writeFile(dst, c.data, c.mode.Perm()); err != nil {
				return fmt.Errorf("crashfs: WriteTo: file %s: %w", cp, err)
			}
		}
	}
	return nil
}

func writeFile(name string, data []byte, perm fs.FileMode) error {
	out, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		return errors.Join(err, out.Close())
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(name, perm)
}

// LoadDir reads the tree under dir on the real filesystem into a new FS,
// dir becoming "/", fully durable: the start of a recording from a prepared
// home. Only directories, regular files and symlinks are accepted.
func LoadDir(dir string) (*FS, error) {
	f := New()
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("crashfs: LoadDir: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("crashfs: LoadDir: %s is not a directory", dir)
	}
	f.root.mode = fs.ModeDir | info.Mode().Perm()
	err = filepath.WalkDir(dir, func(real string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if real == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, real)
		if err != nil {
			return err
		}
		parent, err := f.resolve(filepath.Dir(rel), true)
		if err != nil {
			return fmt.Errorf("parent of %s: %w", real, err)
		}
		if parent.node == nil || !parent.node.isDir() {
			return fmt.Errorf("parent of %s was not loaded as a directory", real)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n := &inode{mode: info.Mode().Type() | info.Mode().Perm(), modTime: f.tick()}
		switch {
		case d.IsDir():
			n = newDir(info.Mode().Perm(), n.modTime)
		case d.Type()&fs.ModeSymlink != 0:
			if n.target, err = os.Readlink(real); err != nil {
				return err
			}
		case d.Type().IsRegular():
			if n.data, err = os.ReadFile(real); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s has file type %v; only directories, regular files and symlinks are loaded", real, info.Mode().Type())
		}
		parent.node.entries[d.Name()] = n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("crashfs: LoadDir %s: %w", dir, err)
	}
	syncAll(f.root, map[*inode]bool{})
	return f, nil
}

// String lists the live tree, one entry a line, sorted: mode, size or link
// target, path. For test failure messages.
func (f *FS) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	var walk func(n *inode, p string)
	walk = func(n *inode, p string) {
		for _, name := range sortedNames(n.entries) {
			c := n.entries[name]
			cp := path.Join(p, name)
			switch {
			case c.isDir():
				fmt.Fprintf(&b, "%s %s/\n", c.mode, cp)
				walk(c, cp)
			case c.isSymlink():
				fmt.Fprintf(&b, "%s %s -> %s\n", c.mode, cp, c.target)
			default:
				fmt.Fprintf(&b, "%s %s (%d bytes)\n", c.mode, cp, len(c.data))
			}
		}
	}
	walk(f.root, "/")
	return b.String()
}
