package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/renameio/v2"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// faultFS wraps the real filesystem: it fails chosen operations and records
// directory fsyncs.
type faultFS struct {
	vfs.FS
	readDirErr error
	openErr    map[string]error // by base name
	syncDirErr error
	writeErr   error
	syncedDirs []string
}

func (f *faultFS) ReadDir(dir string) ([]os.DirEntry, error) {
	if f.readDirErr != nil {
		return nil, &os.PathError{Op: "readdirent", Path: dir, Err: f.readDirErr}
	}
	return f.FS.ReadDir(dir)
}

func (f *faultFS) Open(name string) (vfs.File, error) {
	if err := f.openErr[filepath.Base(name)]; err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return f.FS.Open(name)
}

func (f *faultFS) SyncDir(dir string) error {
	if f.syncDirErr != nil {
		return f.syncDirErr
	}
	f.syncedDirs = append(f.syncedDirs, dir)
	return f.FS.SyncDir(dir)
}

func (f *faultFS) WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	if f.writeErr != nil {
		return &os.PathError{Op: "write", Path: name, Err: f.writeErr}
	}
	return f.FS.WriteFileAtomic(name, data, perm)
}

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 890_000_000, time.UTC)

func openAt(t *testing.T, fsys vfs.FS, now time.Time) (*Journal, string) {
	t.Helper()
	home := t.TempDir()
	j, err := Open(fsys, home)
	if err != nil {
		t.Fatalf("Open(%s): %v", home, err)
	}
	j.Now = func() time.Time { return now }
	return j, home
}

func record(txn string) Record {
	return Record{
		Txn: txn, Kind: KindGraft, State: Preparing,
		Source: "src", Target: "dst", PreparedID: "prep-1",
		TapeHash: "graft-tape-v1:abc", TapeEvents: 3, TapeDigest: "sha256:def",
		TargetBytes: 1234, BoundarySeq: 42, Generation: 2,
	}
}

func TestNewTxnID(t *testing.T) {
	shape := regexp.MustCompile(`^txn-20260304T050607\.890Z-[A-Z2-7]{10}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := NewTxnID(t0)
		if !shape.MatchString(id) {
			t.Fatalf("NewTxnID = %q, want shape %s", id, shape)
		}
		if err := session.ValidID(id); err != nil {
			t.Fatalf("NewTxnID = %q is not a valid session-style id: %v", id, err)
		}
		if seen[id] {
			t.Fatalf("NewTxnID repeated %q", id)
		}
		seen[id] = true
	}
	// A later time sorts later whatever the random suffix, across zones.
	earlier := NewTxnID(t0.In(time.FixedZone("east", 5*3600)))
	later := NewTxnID(t0.Add(time.Millisecond).In(time.FixedZone("west", -7*3600)))
	if !(earlier < later) {
		t.Fatalf("ids do not sort by time: %q !< %q", earlier, later)
	}
}

func TestValidate(t *testing.T) {
	good := record("txn-1")
	good.Version = RecordVersion
	good.Created = "2026-03-04T05:06:07Z"
	if err := good.Validate(); err != nil {
		t.Fatalf("valid record refused: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(*Record)
		want   string
	}{
		{"version 0", func(r *Record) { r.Version = 0 }, "version 0"},
		{"version 2", func(r *Record) { r.Version = 2 }, "version 2"},
		{"empty txn", func(r *Record) { r.Txn = "" }, "txn id"},
		{"dotdot txn", func(r *Record) { r.Txn = ".." }, "txn id"},
		{"slash txn", func(r *Record) { r.Txn = "a/b" }, "txn id"},
		{"nul txn", func(r *Record) { r.Txn = "a\x00b" }, "txn id"},
		{"kind", func(r *Record) { r.Kind = "merge" }, `unknown kind "merge"`},
		{"empty kind", func(r *Record) { r.Kind = "" }, "unknown kind"},
		{"state", func(r *Record) { r.State = "DONE" }, `unknown state "DONE"`},
		{"source", func(r *Record) { r.Source = "../etc" }, "source"},
		{"target", func(r *Record) { r.Target = "" }, "target"},
		{"same", func(r *Record) { r.Target = r.Source }, "both"},
		{"created", func(r *Record) { r.Created = "yesterday" }, "created"},
		{"updated", func(r *Record) { r.Updated = "2026-13-01" }, "updated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := good
			c.mutate(&r)
			err := r.Validate()
			if !errors.Is(err, ErrInvalidRecord) {
				t.Fatalf("Validate = %v, want ErrInvalidRecord", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate = %q, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	j, home := openAt(t, vfs.Default, t0)
	if got, want := j.Dir(), filepath.Join(home, ".txn"); got != want {
		t.Fatalf("Dir = %q, want %q", got, want)
	}
	fi, err := os.Stat(j.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf(".txn mode = %v, want 0700", fi.Mode().Perm())
	}
	in := record("txn-a")
	if err := j.Write(in); err != nil {
		t.Fatalf("Write: %v", err)
	}
	fi, err = os.Stat(j.Path("txn-a"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("record mode = %v, want 0600", fi.Mode().Perm())
	}
	got, err := j.Read("txn-a")
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	want := in
	want.Version = 1
	want.Created = "2026-03-04T05:06:07.89Z"
	want.Updated = want.Created
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Read = %+v\nwant   %+v", got, want)
	}

	// A rewrite keeps Created and moves Updated.
	j.Now = func() time.Time { return t0.Add(time.Hour) }
	got.State = TargetFlushed
	if err := j.Write(got); err != nil {
		t.Fatalf("second Write: %v", err)
	}
	again, err := j.Read("txn-a")
	if err != nil {
		t.Fatal(err)
	}
	if again.State != TargetFlushed || again.Created != want.Created || again.Updated != "2026-03-04T06:06:07.89Z" {
		t.Fatalf("after rewrite: state %s created %s updated %s", again.State, again.Created, again.Updated)
	}
}

func TestWriteRefusesInvalidRecord(t *testing.T) {
	j, _ := openAt(t, vfs.Default, t0)
	r := record("txn-a")
	r.State = "DONE"
	if err := j.Write(r); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("Write(invalid) = %v, want ErrInvalidRecord", err)
	}
	ents, err := os.ReadDir(j.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Fatalf("an invalid record left %d entries in .txn", len(ents))
	}
}

func TestWriteReportsFilesystemError(t *testing.T) {
	fsys := &faultFS{FS: vfs.Default, writeErr: syscall.ENOSPC}
	j, _ := openAt(t, fsys, t0)
	err := j.Write(record("txn-a"))
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "txn-a.json") {
		t.Fatalf("Write on a full disk = %v, want ENOSPC naming the record", err)
	}
}

func TestReadNotFound(t *testing.T) {
	j, _ := openAt(t, vfs.Default, t0)
	_, err := j.Read("txn-missing")
	if !errors.Is(err, ErrNotFound) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read(missing) = %v, want ErrNotFound and fs.ErrNotExist", err)
	}
	if _, err := j.Read("../x"); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("Read(../x) = %v, want an invalid id error", err)
	}
}

func validJSON(t *testing.T, r Record) string {
	t.Helper()
	r.Version = 1
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadCorrupt(t *testing.T) {
	j, _ := openAt(t, vfs.Default, t0)
	cases := []struct {
		name, content, want string
	}{
		{"empty", "", "EOF"},
		{"not json", "PREPARING\n", "invalid character"},
		{"torn", validJSON(t, record("txn-c"))[:40], "unexpected EOF"},
		{"unknown field", strings.Replace(validJSON(t, record("txn-c")), `{`, `{"extra":1,`, 1), `unknown field "extra"`},
		{"trailing", validJSON(t, record("txn-c")) + "{}", "data after the record"},
		{"trailing garbage", validJSON(t, record("txn-c")) + "xx", "data after the record"},
		{"other txn", validJSON(t, record("txn-other")), `names txn "txn-other"`},
		{"bad state", strings.Replace(validJSON(t, record("txn-c")), "PREPARING", "DONE", 1), "unknown state"},
		{"too large", strings.Repeat(" ", MaxRecordBytes+1), "larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := j.Path("txn-c")
			if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := j.Read("txn-c")
			var ce *CorruptRecordError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCorruptRecord) {
				t.Fatalf("Read = %v, want *CorruptRecordError", err)
			}
			if ce.Path != path || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Read = %q (path %q), want path %q and %q", err, ce.Path, path, c.want)
			}
		})
	}
	t.Run("symlink", func(t *testing.T) {
		target := filepath.Join(t.TempDir(), "elsewhere.json")
		if err := os.WriteFile(target, []byte(validJSON(t, record("txn-s"))), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, j.Path("txn-s")); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Read("txn-s"); !errors.Is(err, ErrCorruptRecord) || !errors.Is(err, syscall.ELOOP) {
			t.Fatalf("Read(symlink) = %v, want a corrupt record refusing the symlink", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		if err := os.Mkdir(j.Path("txn-d"), 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Read("txn-d"); !errors.Is(err, ErrCorruptRecord) {
			t.Fatalf("Read(directory) = %v, want a corrupt record", err)
		}
	})
}

func TestRemove(t *testing.T) {
	fsys := &faultFS{FS: vfs.Default}
	j, _ := openAt(t, fsys, t0)
	if err := j.Write(record("txn-a")); err != nil {
		t.Fatal(err)
	}
	fsys.syncedDirs = nil
	if err := j.Remove("txn-a"); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := os.Lstat(j.Path("txn-a")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("record still there after Remove: %v", err)
	}
	if !reflect.DeepEqual(fsys.syncedDirs, []string{j.Dir()}) {
		t.Fatalf("Remove fsynced %q, want exactly the journal directory", fsys.syncedDirs)
	}
	err := j.Remove("txn-a")
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Remove = %v, want an error wrapping fs.ErrNotExist", err)
	}
}

func TestRemoveReportsDirSyncFailure(t *testing.T) {
	fsys := &faultFS{FS: vfs.Default}
	j, _ := openAt(t, fsys, t0)
	if err := j.Write(record("txn-a")); err != nil {
		t.Fatal(err)
	}
	fsys.syncDirErr = syscall.EIO
	if err := j.Remove("txn-a"); !errors.Is(err, syscall.EIO) {
		t.Fatalf("Remove with a failing directory fsync = %v, want EIO", err)
	}
}

func TestScan(t *testing.T) {
	fsys := &faultFS{FS: vfs.Default}
	j, _ := openAt(t, fsys, t0)
	for _, txn := range []string{"txn-c", "txn-a", "txn-b"} {
		if err := j.Write(record(txn)); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, content string, age time.Duration) string {
		t.Helper()
		path := filepath.Join(j.Dir(), name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		mt := t0.Add(-age)
		if err := os.Chtimes(path, mt, mt); err != nil {
			t.Fatal(err)
		}
		return path
	}
	corrupt := write("txn-bad.json", "{", 0)
	stray := write("notes.txt", "hello", 0)
	badName := write("..json", "{}", time.Hour)
	oldTemp := write(".txn-a.json123456789", "{", 2*DefaultTempGrace)
	freshTemp := write(".txn-b.json987", "{", DefaultTempGrace/2)
	if err := os.Mkdir(filepath.Join(j.Dir(), ".txn-d.json55"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A temp file renameio itself named, left behind as a crash would.
	pending, err := renameio.TempFile(j.Dir(), j.Path("txn-e"))
	if err != nil {
		t.Fatal(err)
	}
	realTemp := pending.Name()
	if err := pending.Close(); err != nil {
		t.Fatal(err)
	}
	old := t0.Add(-2 * DefaultTempGrace)
	if err := os.Chtimes(realTemp, old, old); err != nil {
		t.Fatal(err)
	}

	fsys.syncedDirs = nil
	res, err := j.Scan()
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	var txns []string
	for _, r := range res.Records {
		txns = append(txns, r.Txn)
	}
	if !reflect.DeepEqual(txns, []string{"txn-a", "txn-b", "txn-c"}) {
		t.Fatalf("records = %q, want sorted txn-a, txn-b, txn-c", txns)
	}
	var corruptPaths []string
	for _, c := range res.Corrupt {
		corruptPaths = append(corruptPaths, c.Path)
		if c.Err == nil {
			t.Errorf("corrupt entry %s has no error", c.Path)
		}
	}
	wantCorrupt := []string{badName, filepath.Join(j.Dir(), ".txn-d.json55"), stray, corrupt}
	sort.Strings(wantCorrupt)
	if !reflect.DeepEqual(corruptPaths, wantCorrupt) {
		t.Fatalf("corrupt = %q\nwant      %q", corruptPaths, wantCorrupt)
	}
	wantSwept := []string{oldTemp, realTemp}
	sort.Strings(wantSwept)
	if !reflect.DeepEqual(res.Swept, wantSwept) {
		t.Fatalf("swept = %q, want %q", res.Swept, wantSwept)
	}
	if !reflect.DeepEqual(res.FreshTemps, []string{freshTemp}) {
		t.Fatalf("fresh temps = %q, want %q", res.FreshTemps, freshTemp)
	}
	if !reflect.DeepEqual(fsys.syncedDirs, []string{j.Dir()}) {
		t.Fatalf("sweep fsynced %q, want the journal directory once", fsys.syncedDirs)
	}
	for _, p := range wantSwept {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("swept %s still exists: %v", p, err)
		}
	}
	for _, p := range append(wantCorrupt, freshTemp) {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("evidence %s was not left in place: %v", p, err)
		}
	}

	// The second scan sweeps nothing and fsyncs nothing.
	fsys.syncedDirs = nil
	again, err := j.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Swept) != 0 || len(fsys.syncedDirs) != 0 || len(again.Records) != 3 || len(again.Corrupt) != 4 {
		t.Fatalf("second scan: %d swept, %d dir fsyncs, %d records, %d corrupt", len(again.Swept), len(fsys.syncedDirs), len(again.Records), len(again.Corrupt))
	}
	// Once the grace passes the fresh temp is a leftover too.
	j.Now = func() time.Time { return t0.Add(DefaultTempGrace) }
	later, err := j.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(later.Swept, []string{freshTemp}) || len(later.FreshTemps) != 0 {
		t.Fatalf("after the grace: swept %q fresh %q, want %q swept", later.Swept, later.FreshTemps, freshTemp)
	}
}

func TestScanEmpty(t *testing.T) {
	j, _ := openAt(t, vfs.Default, t0)
	res, err := j.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records)+len(res.Corrupt)+len(res.Swept)+len(res.FreshTemps) != 0 {
		t.Fatalf("empty journal scanned as %+v", res)
	}
}

// The original plugin's P0: a failed listing must never read as "nothing to
// recover".
func TestScanUnreadableDirIsAnError(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EACCES, syscall.EIO, syscall.ENOTDIR} {
		t.Run(errno.Error(), func(t *testing.T) {
			fsys := &faultFS{FS: vfs.Default}
			j, _ := openAt(t, fsys, t0)
			if err := j.Write(record("txn-a")); err != nil {
				t.Fatal(err)
			}
			fsys.readDirErr = errno
			res, err := j.Scan()
			if !errors.Is(err, ErrUnreadableDir) || !errors.Is(err, errno) {
				t.Fatalf("Scan = %v, want ErrUnreadableDir wrapping %v", err, errno)
			}
			if !strings.Contains(err.Error(), j.Dir()) {
				t.Fatalf("Scan error %q does not name %s", err, j.Dir())
			}
			if res.Records != nil || res.Corrupt != nil || res.Swept != nil {
				t.Fatalf("a failed scan returned results: %+v", res)
			}
		})
	}
}

func TestScanUnreadableDirChmod(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: chmod 000 does not stop root from reading; the injected EACCES case covers this")
	}
	j, _ := openAt(t, vfs.Default, t0)
	if err := j.Write(record("txn-a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(j.Dir(), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.Chmod(j.Dir(), 0o700); err != nil {
			t.Errorf("restoring mode of %s: %v", j.Dir(), err)
		}
	})
	if _, err := j.Scan(); !errors.Is(err, ErrUnreadableDir) || !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("Scan of a mode-000 directory = %v, want ErrUnreadableDir wrapping EACCES", err)
	}
}

func TestScanDirGoneOrReplaced(t *testing.T) {
	j, _ := openAt(t, vfs.Default, t0)
	if err := os.Remove(j.Dir()); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Scan(); !errors.Is(err, ErrUnreadableDir) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Scan of a removed directory = %v, want ErrUnreadableDir", err)
	}
	if err := os.WriteFile(j.Dir(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Scan(); !errors.Is(err, ErrUnreadableDir) || !errors.Is(err, syscall.ENOTDIR) {
		t.Fatalf("Scan of a file in place of the directory = %v, want ErrUnreadableDir wrapping ENOTDIR", err)
	}
}

func TestScanRecordReadErrorIsAnError(t *testing.T) {
	fsys := &faultFS{FS: vfs.Default}
	j, _ := openAt(t, fsys, t0)
	for _, txn := range []string{"txn-a", "txn-b"} {
		if err := j.Write(record(txn)); err != nil {
			t.Fatal(err)
		}
	}
	fsys.openErr = map[string]error{"txn-b.json": syscall.EIO}
	_, err := j.Scan()
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "txn-b.json") {
		t.Fatalf("Scan with an unreadable record = %v, want EIO naming txn-b.json", err)
	}
}

func TestScanReportsSweepSyncFailure(t *testing.T) {
	fsys := &faultFS{FS: vfs.Default}
	j, _ := openAt(t, fsys, t0)
	path := filepath.Join(j.Dir(), ".txn-a.json1")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := t0.Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	fsys.syncDirErr = syscall.EIO
	if _, err := j.Scan(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("Scan with a failing directory fsync after a sweep = %v, want EIO", err)
	}
}

func TestOpenRefusesNonDirectory(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".txn"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(vfs.Default, home); err == nil || !strings.Contains(err.Error(), ".txn") {
		t.Fatalf("Open with a file at .txn = %v, want an error naming it", err)
	}
	home2 := t.TempDir()
	real := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(home2, ".txn")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(vfs.Default, home2); !errors.Is(err, ErrUnreadableDir) {
		t.Fatalf("Open with a symlink at .txn = %v, want it refused", err)
	}
}

// FuzzParse: parse never panics, and whatever it accepts is valid and
// survives a write/read round trip unchanged.
func FuzzParse(f *testing.F) {
	r := record("txn-f")
	r.Version = 1
	r.Created = "2026-03-04T05:06:07Z"
	b, err := json.Marshal(r)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	withSum, err := Encode(r, t0) // a record as Write stores it: with its checksum
	if err != nil {
		f.Fatal(err)
	}
	f.Add(withSum)
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`{"version":1,"txn":"txn-f","kind":"revert","state":"COLD_VERIFIED","source":"a","target":"b","created":"2026-01-01T00:00:00Z","updated":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parse(data, "txn-f")
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("parse accepted an invalid record: %v", err)
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := parse(again, "txn-f")
		if err != nil || !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, r, r2)
		}
	})
}

func ExampleNewTxnID() {
	id := NewTxnID(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	fmt.Println(id[:len("txn-20260102T030405.000Z")])
	// Output: txn-20260102T030405.000Z
}

// A record whose file fails to close is an error naming it: Read does not
// hand out a record its caller cannot tell was read cleanly.
func TestReadReportsCloseError(t *testing.T) {
	j, home := openAt(t, vfs.Default, t0)
	if err := j.Write(record("txn-a")); err != nil {
		t.Fatal(err)
	}
	fault := errorfs.OnKind(errorfs.OpClose, "txn-a.json", 1, syscall.EIO)
	jf, err := Open(errorfs.Wrap(vfs.Default, fault), home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jf.Read("txn-a"); !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "txn-a.json") {
		t.Fatalf("Read with a failing close = %v, want EIO naming txn-a.json", err)
	}
}

// COMMITTED is an etcd store's state: the file journal neither
// writes nor reads it.
func TestFileJournalRefusesCommitted(t *testing.T) {
	j, err := Open(vfs.Default, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := Record{Txn: "txn-1", Kind: KindGraft, State: Committed, Source: "a", Target: "b"}
	if err := j.Write(r); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("Write(COMMITTED) = %v, want ErrInvalidRecord", err)
	}
	data, err := Encode(r, time.Now())
	if err != nil {
		t.Fatalf("Encode(COMMITTED) = %v, want it valid for an etcd store", err)
	}
	if err := os.WriteFile(j.Path("txn-1"), data, FileMode); err != nil {
		t.Fatal(err)
	}
	var ce *CorruptRecordError
	if _, err := j.Read("txn-1"); !errors.As(err, &ce) {
		t.Fatalf("Read of a COMMITTED file = %v, want a CorruptRecordError", err)
	}
	if got, err := Decode(data, "txn-1"); err != nil || got.State != Committed {
		t.Fatalf("Decode = %+v, %v", got, err)
	}
}
