package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/vfs"
)

const (
	// DirName is the journal directory inside a graft home.
	DirName = ".txn"
	// Ext is the extension of a record file.
	Ext = ".json"
	// DirMode and FileMode are the permissions of the directory and records.
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
	// MaxRecordBytes bounds what Read loads: a record is a few hundred bytes,
	// anything larger is not one of ours.
	MaxRecordBytes = 1 << 20
	// DefaultTempGrace is how old a temp file must be before Scan sweeps it:
	// a younger one may belong to a Write in flight in another process.
	DefaultTempGrace = time.Minute
)

// tempName matches renameio's temp files for a record: "." + base + digits.
var tempName = regexp.MustCompile(`^\.(.+\` + Ext + `)[0-9]+$`)

// Journal is the .txn directory of a graft home.
type Journal struct {
	fs  vfs.FS
	dir string
	// Now stamps Created and Updated and ages temp files; tests pin it.
	Now func() time.Time
	// TempGrace: temp files younger than this are reported in
	// ScanResult.FreshTemps instead of being swept.
	TempGrace time.Duration
}

// Open opens home/.txn, creating it (mode 0700) if missing. Every file
// operation of the journal goes through fsys.
func Open(fsys vfs.FS, home string) (*Journal, error) {
	dir := filepath.Join(home, DirName)
	if err := vfs.MkdirAllDurable(fsys, dir, DirMode); err != nil {
		return nil, fmt.Errorf("journal: creating %s: %w", dir, err)
	}
	fi, err := fsys.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("journal: checking %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%w %s: not a directory (mode %v)", ErrUnreadableDir, dir, fi.Mode())
	}
	return &Journal{fs: fsys, dir: dir, Now: time.Now, TempGrace: DefaultTempGrace}, nil
}

// Dir is the journal directory.
func (j *Journal) Dir() string { return j.dir }

// Path is the record file of txn; txn must be valid.
func (j *Journal) Path(txn string) string { return filepath.Join(j.dir, txn+Ext) }

// Write stores r atomically and durably (temp file, fsync, rename, fsync of
// the directory). It stamps Version when zero, Created when empty and
// Updated always, then validates.
func (j *Journal) Write(r Record) error {
	if r.State == Committed {
		return fmt.Errorf("%w %s: state %s is an etcd store's; the file store's commit point is the source's graft/retired", ErrInvalidRecord, r.Txn, r.State)
	}
	data, err := Encode(r, j.Now())
	if err != nil {
		return err
	}
	path := j.Path(r.Txn)
	if err := j.fs.WriteFileAtomic(path, data, FileMode); err != nil {
		return fmt.Errorf("journal: writing record %s: %w", path, err)
	}
	return nil
}

// Encode stamps r (Version when zero, Created when empty, Updated = now),
// validates it and returns its bytes: what Write stores in a file, and what
// an etcd store (package etcdstore) stores under its key.
func Encode(r Record, now time.Time) ([]byte, error) {
	ts := now.UTC().Format(time.RFC3339Nano)
	if r.Version == 0 {
		r.Version = RecordVersion
	}
	if r.Created == "" {
		r.Created = ts
	}
	r.Updated = ts
	if err := r.Validate(); err != nil {
		return nil, err
	}
	data, err := index.JSONWithSum(&r, &r.Sum, index.Indented)
	if err != nil {
		return nil, fmt.Errorf("journal: encoding record %s: %w", r.Txn, err)
	}
	return append(data, '\n'), nil
}

// Decode parses a record's bytes strictly, as Read does: unknown fields,
// trailing data, an invalid record or another txn than txn are errors.
func Decode(data []byte, txn string) (Record, error) {
	if len(data) > MaxRecordBytes {
		return Record{}, fmt.Errorf("larger than %d bytes", MaxRecordBytes)
	}
	return parse(data, txn)
}

// Read loads the record of txn: ErrNotFound when there is none, a
// *CorruptRecordError when it does not parse or validate.
func (j *Journal) Read(txn string) (Record, error) {
	if err := ValidTxnID(txn); err != nil {
		return Record{}, err
	}
	path := j.Path(txn)
	data, err := j.readFile(path)
	if err != nil {
		return Record{}, err
	}
	r, err := parse(data, txn)
	if err == nil && r.State == Committed {
		err = fmt.Errorf("state %s is written only by an etcd store, never in %s", r.State, DirName)
	}
	if err != nil {
		return Record{}, &CorruptRecordError{Path: path, Err: err}
	}
	return r, nil
}

func (j *Journal) readFile(path string) ([]byte, error) {
	f, err := j.fs.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotFound, path, err)
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, &CorruptRecordError{Path: path, Err: fmt.Errorf("a symlink; refused, not followed: %w", err)}
	}
	if err != nil {
		return nil, fmt.Errorf("journal: opening %s: %w", path, err)
	}
	data, err := readOpen(f, path)
	if cerr := f.Close(); cerr != nil {
		return nil, errors.Join(err, fmt.Errorf("journal: closing %s: %w", path, cerr))
	}
	return data, err
}

// readOpen reads the record file f opened at path, refusing what is not a
// regular file or is too large to be a record.
func readOpen(f vfs.File, path string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("journal: stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, &CorruptRecordError{Path: path, Err: fmt.Errorf("not a regular file (mode %v)", fi.Mode())}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxRecordBytes+1))
	if err != nil {
		return nil, fmt.Errorf("journal: reading %s: %w", path, err)
	}
	if len(data) > MaxRecordBytes {
		return nil, &CorruptRecordError{Path: path, Err: fmt.Errorf("larger than %d bytes", MaxRecordBytes)}
	}
	return data, nil
}

// parse decodes strictly: unknown fields, trailing data, an invalid record or
// a txn that does not match the file name are all corruption.
func parse(data []byte, txn string) (Record, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return Record{}, err
	}
	switch _, err := dec.Token(); {
	case err == io.EOF:
	case err != nil:
		return Record{}, fmt.Errorf("data after the record: %w", err)
	default:
		return Record{}, fmt.Errorf("data after the record")
	}
	if err := r.Validate(); err != nil {
		return Record{}, err
	}
	if r.Txn != txn {
		return Record{}, fmt.Errorf("record names txn %q but its file is %s%s", r.Txn, txn, Ext)
	}
	if r.Sum != "" && !index.SumHolds(&r, &r.Sum, index.Indented) {
		// A byte changed in a value decodes to other fields, which do not
		// hash to the sum (one changed in a name is an unknown field,
		// refused above).
		return Record{}, fmt.Errorf("its checksum does not match: it was changed or damaged since graft wrote it (it says %s %s: source %q, target %q, state %s), and recovery acts on no record it cannot trust", r.Kind, r.Txn, r.Source, r.Target, r.State)
	}
	return r, nil
}

// Remove deletes the record of txn and fsyncs the directory. Removing a
// missing record is an error (ErrNotFound, wrapping fs.ErrNotExist).
func (j *Journal) Remove(txn string) error {
	if err := ValidTxnID(txn); err != nil {
		return err
	}
	path := j.Path(txn)
	if err := j.fs.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: removing %s: %w", ErrNotFound, path, err)
		}
		return fmt.Errorf("journal: removing %s: %w", path, err)
	}
	if err := j.fs.SyncDir(j.dir); err != nil {
		return fmt.Errorf("journal: fsync directory %s after removing %s: %w", j.dir, path, err)
	}
	return nil
}

// ScanResult is what Scan found in the journal directory.
type ScanResult struct {
	// Records that parsed and validated, sorted by txn id.
	Records []Record
	// Corrupt record files (and anything else that is not a record or a
	// temp file), left in place as evidence.
	Corrupt []CorruptRecordError
	// Swept temp files that were removed.
	Swept []string
	// FreshTemps are temp files younger than TempGrace, left alone because
	// a Write in another process may still rename them.
	FreshTemps []string
}

// Scan lists the journal. A directory it cannot read is an error wrapping
// ErrUnreadableDir, never an empty result; a record it cannot read (I/O,
// permission) is an error naming the file. Leftover temp files older than
// TempGrace are removed and the directory fsynced.
func (j *Journal) Scan() (ScanResult, error) {
	var res ScanResult
	ents, err := j.fs.ReadDir(j.dir)
	if err != nil {
		return ScanResult{}, fmt.Errorf("%w %s: %w", ErrUnreadableDir, j.dir, err)
	}
	now := j.Now()
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(j.dir, name)
		if tempName.MatchString(name) {
			outcome, err := j.sweep(path, now)
			if err != nil {
				return ScanResult{}, err
			}
			switch outcome {
			case tempSwept:
				res.Swept = append(res.Swept, path)
			case tempFresh:
				res.FreshTemps = append(res.FreshTemps, path)
			case tempNotFile:
				res.Corrupt = append(res.Corrupt, CorruptRecordError{Path: path, Err: fmt.Errorf("named like a temp file but not a regular file")})
			}
			continue
		}
		txn, ok := strings.CutSuffix(name, Ext)
		if !ok || ValidTxnID(txn) != nil {
			res.Corrupt = append(res.Corrupt, CorruptRecordError{Path: path, Err: fmt.Errorf("%q is neither a record (<txn-id>%s) nor a temp file", name, Ext)})
			continue
		}
		r, err := j.Read(txn)
		var ce *CorruptRecordError
		switch {
		case errors.As(err, &ce):
			res.Corrupt = append(res.Corrupt, *ce)
		case errors.Is(err, ErrNotFound):
			// Removed by a transaction that finished between ReadDir and
			// Read: it is not in flight any more.
		case err != nil:
			return ScanResult{}, fmt.Errorf("journal: scanning %s: %w", j.dir, err)
		default:
			res.Records = append(res.Records, r)
		}
	}
	if len(res.Swept) > 0 {
		if err := j.fs.SyncDir(j.dir); err != nil {
			return ScanResult{}, fmt.Errorf("journal: fsync directory %s after sweeping temp files: %w", j.dir, err)
		}
	}
	sort.Slice(res.Records, func(a, b int) bool { return res.Records[a].Txn < res.Records[b].Txn })
	sort.Slice(res.Corrupt, func(a, b int) bool { return res.Corrupt[a].Path < res.Corrupt[b].Path })
	sort.Strings(res.Swept)
	sort.Strings(res.FreshTemps)
	return res, nil
}

type tempOutcome int

const (
	tempGone    tempOutcome = iota // renamed into place or removed meanwhile
	tempSwept                      // removed by this scan
	tempFresh                      // younger than TempGrace: left alone
	tempNotFile                    // a directory or symlink with a temp name
)

// sweep removes a regular temp file older than TempGrace.
func (j *Journal) sweep(path string, now time.Time) (tempOutcome, error) {
	fi, err := j.fs.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		// Renamed into place by a Write in flight: not a leftover.
		return tempGone, nil
	}
	if err != nil {
		return 0, fmt.Errorf("journal: stat temp file %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return tempNotFile, nil
	}
	if now.Sub(fi.ModTime()) < j.TempGrace {
		return tempFresh, nil
	}
	if err := j.fs.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return tempGone, nil
		}
		return 0, fmt.Errorf("journal: sweeping temp file %s: %w", path, err)
	}
	return tempSwept, nil
}
