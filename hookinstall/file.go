package hookinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/graft-project/graft/vfs"
)

// fsys is the filesystem the backup and the new file are written through.
var fsys vfs.FS = vfs.Default

// BackupSuffix is appended to a settings file's name for its backup; when
// that name is taken, ".1", ".2", … follow it. A backup is never
// overwritten.
const BackupSuffix = ".graft-backup"

// resolve makes path absolute and follows a symlink in its last element, so
// a settings file kept elsewhere (a dotfiles checkout) is edited where it
// lives instead of being replaced by a regular file.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	fi, err := os.Lstat(abs)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return abs, nil
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%s is a symlink graft cannot follow: %w", abs, err)
	}
	return real, nil
}

// edit reads the settings file, lets change edit it, and when change
// reports a change writes the backup and then the new file.
func edit(host Host, path, command string, change func(*settings, *Result) bool) (Result, error) {
	return editFile(host, path, command, false, change)
}

// editFile is edit; with restore (uninstall), when graft's backup of the
// file holds the same settings as the edited ones, to the byte once
// compacted, the backup's own bytes are written: a file graft only
// installed into and uninstalled from comes back exactly as it was, its
// indentation and spacing included.
func editFile(host Host, path, command string, restore bool, change func(*settings, *Result) bool) (Result, error) {
	file, err := resolve(path)
	if err != nil {
		return Result{}, err
	}
	r := newResult(host, file, command)
	// One graft edit of the directory at a time: eight installs at once
	// must leave one backup, and the later ones find graft's hooks there.
	unlock, err := lockDir(filepath.Dir(file))
	if err != nil {
		return r, err
	}
	defer unlock()
	data, perm, exists, err := readFile(file)
	if err != nil {
		return r, err
	}
	s, err := parseSettings(host, file, data)
	if err != nil {
		return r, err
	}
	if !change(s, &r) {
		return r, nil
	}
	if exists && perm&0o222 == 0 {
		// Made read-only by its owner: an atomic rename would replace it
		// whatever its mode (issue 24, item 3).
		return r, fmt.Errorf("%s is read-only (mode %04o): graft does not replace it; make it writable (chmod u+w) or add graft's hooks by hand", file, perm)
	}
	out, err := s.render()
	if err != nil {
		return r, err
	}
	if restore {
		if orig, ok, err := sameAsBackup(file, out); err != nil {
			return r, err
		} else if ok {
			out = orig
		}
	}
	if r.Backup, err = writeEdited(file, data, out, perm, exists); err != nil {
		return r, err
	}
	r.Created = !exists
	r.Changed = true
	return r, nil
}

// writeEdited replaces file, read as data (exists false: missing) with
// mode perm, by out: a backup of data first (its path returned), or the
// directory made; then, unless the file changed since it was read (the
// host may have rewritten it meanwhile: its change must not be lost under
// graft's), out written atomically with the file's mode (a new file 0600).
func writeEdited(file string, data, out []byte, perm os.FileMode, exists bool) (string, error) {
	var bk string
	if exists {
		var err error
		if bk, err = backup(file, data, perm); err != nil {
			return "", err
		}
	} else {
		perm = 0o600
		if err := vfs.MkdirAllDurable(fsys, filepath.Dir(file), 0o700); err != nil {
			return "", fmt.Errorf("create the directory of %s: %w", file, err)
		}
	}
	now, _, nowExists, err := readFile(file)
	if err != nil {
		return bk, err
	}
	if nowExists != exists || !bytes.Equal(now, data) {
		return bk, fmt.Errorf("%s changed while graft was editing it; nothing written, run the command again", file)
	}
	if err := fsys.WriteFileAtomic(file, out, perm); err != nil {
		return bk, fmt.Errorf("write %s: %w", file, err)
	}
	return bk, nil
}

// readFile returns a settings file's bytes and mode; a missing file is
// exists == false.
func readFile(file string) (data []byte, perm os.FileMode, exists bool, err error) {
	fi, err := os.Stat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s is not a regular file", file)
	}
	data, err = os.ReadFile(file)
	if err != nil {
		return nil, 0, false, err
	}
	return data, fi.Mode().Perm(), true, nil
}

// backup copies data, the file's bytes, to the first free name of
// file.graft-backup, file.graft-backup.1, … with the file's mode, durably
// (file and directory fsynced) before the file itself is replaced.
func backup(file string, data []byte, perm os.FileMode) (string, error) {
	for n := 0; n < 10000; n++ {
		name := file + BackupSuffix
		if n > 0 {
			name += "." + strconv.Itoa(n)
		}
		f, err := fsys.Create(name, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", file, err)
		}
		_, werr := f.Write(data)
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = fsys.SyncDir(filepath.Dir(name))
		}
		if werr != nil {
			_ = fsys.Remove(name) // a partial backup would pass for a whole one
			return "", fmt.Errorf("back up %s to %s: %w (the settings file is unchanged)", file, name, werr)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: %s through %s.9999 all exist; remove old backups", file, file+BackupSuffix, file+BackupSuffix)
}

// lockDir takes an exclusive flock(2) on dir (advisory: graft's own
// installs and uninstalls wait for each other; the host does not take it)
// and returns its release. A directory that does not exist yet is not
// locked: nothing there to back up.
func lockDir(dir string) (func(), error) {
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s to lock it: %w", dir, err)
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		_ = d.Close() // the lock's error is the one to report
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() {
		// Closing the descriptor releases the lock; a read-only
		// descriptor of a directory has nothing to flush.
		_ = d.Close()
	}, nil
}

// sameAsBackup finds, newest first, a backup of file (file.graft-backup,
// .1, …) whose JSON, compacted, is out's (an empty or blank backup holds
// {}, as an empty settings file does): its bytes, and ok.
func sameAsBackup(file string, out []byte) ([]byte, bool, error) {
	bks, err := readBackups(file)
	if err != nil {
		return nil, false, err
	}
	data, ok := holding(bks, out)
	return data, ok, nil
}

// backedChoice returns the first of candidate(1) … candidate(n-1) whose
// rendering one of graft's backups of file holds (sameAsBackup), nil
// when none does; the backups are read once for all of them.
func backedChoice(file string, n int, candidate func(mask int) *settings) (*settings, error) {
	bks, err := readBackups(file)
	if err != nil {
		return nil, err
	}
	for mask := 1; mask < n; mask++ {
		k := candidate(mask)
		out, err := k.render()
		if err != nil {
			return nil, err
		}
		if _, ok := holding(bks, out); ok {
			return k, nil
		}
	}
	return nil, nil
}

// backupCopy is one of graft's backups of a settings file: its bytes and
// its JSON compacted (nil when it is not JSON).
type backupCopy struct{ data, compact []byte }

// readBackups reads graft's backups of file, newest first.
func readBackups(file string) ([]backupCopy, error) {
	names, err := filepath.Glob(file + BackupSuffix + "*")
	if err != nil {
		return nil, err
	}
	sort.Slice(names, func(i, j int) bool { return backupNumber(file, names[i]) > backupNumber(file, names[j]) })
	var bks []backupCopy
	for _, name := range names {
		if backupNumber(file, name) < 0 {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read the backup %s: %w", name, err)
		}
		settings := data
		if len(bytes.TrimSpace(data)) == 0 {
			settings = []byte("{}") // an empty file is taken as {}
		}
		bk := backupCopy{data: data}
		var c bytes.Buffer
		if json.Compact(&c, settings) == nil {
			bk.compact = c.Bytes()
		}
		bks = append(bks, bk)
	}
	return bks, nil
}

// holding is the bytes of the newest of bks whose JSON, compacted, is
// out's, and ok.
func holding(bks []backupCopy, out []byte) ([]byte, bool) {
	var want bytes.Buffer
	if json.Compact(&want, out) != nil {
		return nil, false
	}
	for _, bk := range bks {
		if bk.compact != nil && bytes.Equal(bk.compact, want.Bytes()) {
			return bk.data, true
		}
	}
	return nil, false
}

// backupNumber is n of file.graft-backup.n (0 for file.graft-backup), -1
// for another name.
func backupNumber(file, name string) int {
	rest, ok := strings.CutPrefix(name, file+BackupSuffix)
	if !ok {
		return -1
	}
	if rest == "" {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimPrefix(rest, "."))
	if err != nil || !strings.HasPrefix(rest, ".") || n <= 0 {
		return -1
	}
	return n
}
