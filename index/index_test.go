package index_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

func TestTailCheck(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 1024) // 16 KiB
	r := bytes.NewReader(data)
	check := func(b []byte, off int64) string {
		t.Helper()
		c, err := index.TailCheck(bytes.NewReader(b), off)
		if err != nil {
			t.Fatalf("TailCheck(%d): %v", off, err)
		}
		return c
	}
	base := check(data, 10000)
	if again, err := index.TailCheck(r, 10000); err != nil || again != base {
		t.Fatalf("TailCheck is not deterministic: %q, %v vs %q", again, err, base)
	}
	if !strings.HasPrefix(base, "tail-v1:") || len(base) != len("tail-v1:")+64 {
		t.Fatalf("TailCheck = %q, want tail-v1:<sha256 hex>", base)
	}
	inWindow := bytes.Clone(data)
	inWindow[10000-1] ^= 1
	if check(inWindow, 10000) == base {
		t.Fatal("a changed byte just before the offset kept the check")
	}
	inWindow = bytes.Clone(data)
	inWindow[10000-index.TailCheckBytes] ^= 1
	if check(inWindow, 10000) == base {
		t.Fatal("a changed byte at the start of the window kept the check")
	}
	after := bytes.Clone(data)
	after[10000] ^= 1
	if check(after, 10000) != base {
		t.Fatal("a byte after the offset changed the check: an appended tail would invalidate the index")
	}
	if check(data, 10001) == base {
		t.Fatal("another offset gave the same check")
	}
	if check(data, 0) == check(data, 1) {
		t.Fatal("offsets 0 and 1 gave the same check")
	}
	if check(data, int64(len(data))) == "" {
		t.Fatal("empty check at the end of the file")
	}
	if _, err := index.TailCheck(r, int64(len(data))+1); err == nil {
		t.Fatal("TailCheck past the end of the file succeeded")
	}
	if _, err := index.TailCheck(r, -1); !errors.Is(err, index.ErrInvalid) {
		t.Fatalf("TailCheck(-1) = %v", err)
	}
}

func TestFileIdentity(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte("a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	dev, ino, ok := index.FileIdentity(fi)
	if !ok || ino == 0 {
		t.Fatalf("FileIdentity = %d, %d, %v", dev, ino, ok)
	}
	// A rewrite by copy and rename is another file.
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte("a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	fi2, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	dev2, ino2, ok := index.FileIdentity(fi2)
	if !ok || (dev2 == dev && ino2 == ino) {
		t.Fatalf("rewritten file kept its identity %d/%d", dev2, ino2)
	}
}

// The tail checks are the formats' own: a scan index or seal written by an
// earlier build, and a state checkpoint written by session before this
// package, still check out.
func TestTailChecksAreTheStoredFormats(t *testing.T) {
	data := bytes.Repeat([]byte("line of a log\n"), 1000)
	sum := func(label string, off int64) string {
		h := sha256.New()
		h.Write([]byte(label + "\x00" + strconv.FormatInt(off, 10) + "\x00"))
		h.Write(data[max(0, off-4096):off])
		return hex.EncodeToString(h.Sum(nil))
	}
	for _, off := range []int64{0, 14, 4096, 7000} {
		got, err := index.TailCheck(bytes.NewReader(data), off)
		if err != nil || got != "tail-v1:"+sum("tail-v1", off) {
			t.Fatalf("TailCheck(%d) = %q, %v; want tail-v1:%s", off, got, err, sum("tail-v1", off))
		}
	}
	home, log := logFile(t, data)
	dev, ino := identity(t, log)
	if err := index.NewWriter(vfs.Default, home).WriteState("s", bytes.NewReader(data), dev, ino, 7000, 501, json.RawMessage(`{"id":"s"}`)); err != nil {
		t.Fatal(err)
	}
	st := readState(t, home)
	if st.Tail != sum("state-tail-v1", 7000) {
		t.Fatalf("the checkpoint's tail %q, want the bare hex of state-tail-v1 %q", st.Tail, sum("state-tail-v1", 7000))
	}
}

// logFile writes data as the log of session s in a new home.
func logFile(t *testing.T, data []byte) (home, path string) {
	t.Helper()
	home = t.TempDir()
	path = filepath.Join(home, "sessions", "s.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return home, path
}

func identity(t *testing.T, path string) (dev, ino uint64) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	dev, ino, ok := index.FileIdentity(fi)
	if !ok {
		t.Skip("no file identity on this platform")
	}
	return dev, ino
}

func readState(t *testing.T, home string) index.State {
	t.Helper()
	raw, err := os.ReadFile(index.StatePath(home, "s"))
	if err != nil {
		t.Fatal(err)
	}
	var st index.State
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func marks(n int) []index.SeqMark {
	var out []index.SeqMark
	for k := range n {
		seq := int64(k*index.MarkEvery + 1)
		out = append(out, index.SeqMark{Seq: seq, Offset: 100 * (seq - 1), Line: int(seq)})
	}
	return out
}

// The seq file round-trips its marks, and is not used for another file,
// another K, a cut or grown file, or a record that is not its mark.
func TestSeqFile(t *testing.T) {
	home := t.TempDir()
	w := index.NewWriter(vfs.Default, home)
	in := marks(5)
	if err := w.WriteSeq("s", 7, 8, in); err != nil {
		t.Fatal(err)
	}
	got, reason, err := index.LoadSeq(vfs.Default, home, "s", 7, 8)
	if err != nil || reason != "" || !reflect.DeepEqual(got, in) {
		t.Fatalf("LoadSeq = %+v, %q, %v", got, reason, err)
	}
	for _, c := range []struct {
		seq  int64
		want int64
	}{{1, 1}, {64, 1}, {65, 65}, {300, 257}, {100000, 257}} {
		m, reason, err := index.FindMark(vfs.Default, home, "s", c.seq, 7, 8)
		if err != nil || reason != "" || m.Seq != c.want {
			t.Fatalf("FindMark(%d) = %+v, %q, %v; want mark seq %d", c.seq, m, reason, err, c.want)
		}
	}
	if _, reason, _ := index.LoadSeq(vfs.Default, home, "s", 7, 9); !strings.Contains(reason, "another file") {
		t.Fatalf("another inode: %q", reason)
	}
	if _, reason, _ := index.LoadSeq(vfs.Default, home, "t", 7, 8); reason != "no seq cache" {
		t.Fatalf("no file: %q", reason)
	}
	if err := w.WriteSeq("s", 7, 8, []index.SeqMark{in[0], in[2]}); err == nil {
		t.Fatal("marks with a gap were written")
	}
	path := index.SeqPath(home, "s")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		data   []byte
		reason string
	}{
		"another K":      {func() []byte { b := bytes.Clone(raw); b[32] = 32; return b }(), "a mark every 32 events"},
		"cut":            {raw[:len(raw)-1], "its header says 5 records"},
		"grown":          {append(bytes.Clone(raw), 0), "its header says 5 records"},
		"another magic":  {append([]byte("graft-seqidx-v2\n"), raw[16:]...), "no graft-seqidx-v1 header"},
		"a record moved": {func() []byte { b := bytes.Clone(raw); b[56+24] ^= 0x40; return b }(), "record 1 of the seq cache is not mark 1"},
		"a header only":  {raw[:40], "shorter than its header"},
	} {
		if err := os.WriteFile(path, c.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, reason, err := index.LoadSeq(vfs.Default, home, "s", 7, 8); got != nil || err != nil || !strings.Contains(reason, c.reason) {
			t.Errorf("%s: LoadSeq = %d marks, %q, %v; want %q", name, len(got), reason, err, c.reason)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	done := make(chan string, 1)
	go func() {
		_, reason, _ := index.LoadSeq(vfs.Default, home, "s", 7, 8)
		done <- reason
	}()
	select {
	case reason := <-done:
		if !strings.Contains(reason, "not a regular file") {
			t.Fatalf("a FIFO: %q", reason)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO in place of the seq file blocked")
	}
}

// Extend keeps the marks before the fold's start and appends the fold's;
// marks that do not continue into the fold's are dropped.
func TestExtend(t *testing.T) {
	all := marks(6)
	if got := index.Extend(nil, 0, 0, all); !reflect.DeepEqual(got, all) {
		t.Fatalf("a fold from the start: %+v", got)
	}
	// The fold started at seq 200 (byte 19900): marks 1, 65, 129, 193 came
	// before it, and it read 257 and 321.
	got := index.Extend(all, 19900, 200, all[4:])
	if !reflect.DeepEqual(got, all) {
		t.Fatalf("extended: %+v", got)
	}
	if got := index.Extend(all[:2], 19900, 200, all[4:]); !reflect.DeepEqual(got, all[4:]) {
		t.Fatalf("a missing mark between: %+v, want the fold's alone", got)
	}
	if got := index.Extend(nil, 19900, 200, all[4:]); !reflect.DeepEqual(got, all[4:]) {
		t.Fatalf("no previous marks: %+v", got)
	}
}

// The state checkpoint is used while it fits its log, and says why not
// otherwise; a checkpoint that is not a regular file is not opened.
func TestStateChecks(t *testing.T) {
	data := bytes.Repeat([]byte("{\"seq\":1}\n"), 1000)
	home, log := logFile(t, data)
	dev, ino := identity(t, log)
	read := func(f []byte, dev, ino uint64) (*index.State, string, error) {
		return index.ReadState(vfs.Default, home, "s", bytes.NewReader(f), dev, ino, int64(len(f)))
	}
	if st, reason, err := read(data, dev, ino); st != nil || reason != "" || err != nil {
		t.Fatalf("no checkpoint: %+v, %q, %v", st, reason, err)
	}
	if err := index.NewWriter(vfs.Default, home).WriteState("s", bytes.NewReader(data), dev, ino, 5000, 501, json.RawMessage(`{"id":"s"}`)); err != nil {
		t.Fatal(err)
	}
	st, reason, err := read(data, dev, ino)
	if err != nil || reason != "" || st == nil || st.Offset != 5000 || st.Line != 501 || string(st.Info) != `{"id":"s"}` {
		t.Fatalf("ReadState = %+v, %q, %v", st, reason, err)
	}
	grown := append(bytes.Clone(data), "{\"seq\":2}\n"...)
	if st, _, _ := read(grown, dev, ino); st == nil {
		t.Fatal("a grown log does not fit its checkpoint")
	}
	edited := bytes.Clone(data)
	edited[4999-5] = 'X'
	for name, c := range map[string]struct {
		log      []byte
		dev, ino uint64
		reason   string
	}{
		"another file": {data, dev, ino + 1, "another file"},
		"shorter":      {data[:4990], dev, ino, "shorter than its offset"},
		"rewritten":    {edited, dev, ino, "bytes before its offset changed"},
	} {
		if st, reason, err := read(c.log, c.dev, c.ino); st != nil || err != nil || reason != c.reason && !strings.Contains(reason, c.reason) {
			t.Errorf("%s: %+v, %q, %v; want %q", name, st, reason, err, c.reason)
		}
	}
	path := index.StatePath(home, "s")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Version 1 had no checksum: read as none, as another version is.
	v1 := strings.Replace(strings.Replace(string(good), `"v":2`, `"v":1`, 1), `,"sum":`, `,"x":`, 1)
	for name, content := range map[string]string{"garbage": "{not json", "version 1": v1, "version 3": `{"v":3}`} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if st, reason, err := read(data, dev, ino); st != nil || err != nil || !strings.Contains(reason, "does not decode as version 2") {
			t.Errorf("%s: %+v, %q, %v", name, st, reason, err)
		}
	}
	// A damaged byte that still decodes is not trusted.
	damaged := strings.Replace(string(good), `"id":"s"`, `"id":"t"`, 1)
	if damaged == string(good) {
		t.Fatalf("no info in %s", good)
	}
	if err := os.WriteFile(path, []byte(damaged), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, reason, err := read(data, dev, ino); st != nil || err != nil || !strings.Contains(reason, "checksum does not match") {
		t.Errorf("damaged: %+v, %q, %v", st, reason, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if st, reason, err := read(data, dev, ino); st != nil || err != nil || !strings.Contains(reason, "not a regular file") {
		t.Fatalf("a directory in place of the checkpoint: %+v, %q, %v", st, reason, err)
	}
}

// The scan index value: the state is kept as its bytes; a value of
// version 1 is none; anything else that is not one is an error.
func TestScanIndexValue(t *testing.T) {
	in := index.ScanIndex{Session: "s", Dev: 1, Ino: 2, Offset: 10, Line: 2, NextSeq: 3, Check: "tail-v1:c",
		State: []byte("graft-scanindex-v2\n{}\n\x00\xff")}
	raw, err := in.Encode()
	if err != nil {
		t.Fatal(err)
	}
	head := "{\"session\":\"s\",\"dev\":1,\"ino\":2,\"offset\":10,\"line\":2,\"nextSeq\":3,\"check\":\"tail-v1:c\"}\n"
	sum := sha256.Sum256(append([]byte(head), in.State...))
	if string(raw) != "graft-scanindex-v3\nsha256:"+hex.EncodeToString(sum[:])+"\n"+head+string(in.State) {
		t.Fatalf("encoded %q", raw)
	}
	out, ok, err := index.DecodeScanIndex(raw)
	if err != nil || !ok || !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip: %+v, %v, %v", out, ok, err)
	}
	if _, ok, err := index.DecodeScanIndex([]byte(`{"session":"s"}`)); ok || err != nil {
		t.Fatalf("version 1: %v, %v", ok, err)
	}
	// Version 2 had no checksum: none, a new one is built.
	if _, ok, err := index.DecodeScanIndex([]byte("graft-scanindex-v2\n" + head + "state")); ok || err != nil {
		t.Fatalf("version 2: %v, %v", ok, err)
	}
	// Any byte of a value changed: its checksum does not match.
	for i := range raw {
		bad := bytes.Clone(raw)
		bad[i] ^= 0x20
		if out, ok, err := index.DecodeScanIndex(bad); ok || err == nil {
			t.Fatalf("byte %d of %q changed (%q) decoded: %+v", i, raw, bad[i], out)
		}
	}
	if _, ok, err := index.DecodeScanIndex(nil); ok || err != nil {
		t.Fatalf("none: %v, %v", ok, err)
	}
	for _, bad := range []string{"garbage", "graft-scanindex-v3\n{\"session\":\"s\"}", "graft-scanindex-v3\nsha256:00\n{\"x\":1}\n"} {
		if _, ok, err := index.DecodeScanIndex([]byte(bad)); ok || err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
	state, err := index.EncodeScanState([]byte(`{"v":1}`), []byte("tape\nbytes"))
	if err != nil {
		t.Fatal(err)
	}
	info, tape, reason := index.DecodeScanState(state)
	if reason != "" || string(info) != `{"v":1}` || string(tape) != "tape\nbytes" {
		t.Fatalf("state round trip: %q %q %q", info, tape, reason)
	}
	if _, err := index.EncodeScanState([]byte("a\nb"), nil); err == nil {
		t.Fatal("an info snapshot with a newline was framed")
	}
	if _, _, reason := index.DecodeScanState([]byte(`{"v":1,"tape":{}}`)); !strings.Contains(reason, "not graft-scanstate-v2") {
		t.Fatalf("a version-1 state: %q", reason)
	}

	data := bytes.Repeat([]byte("x\n"), 3000)
	check, err := index.TailCheck(bytes.NewReader(data), 5000)
	if err != nil {
		t.Fatal(err)
	}
	ix := index.ScanIndex{Session: "s", Dev: 1, Ino: 2, Offset: 5000, Check: check}
	fits := func(ix index.ScanIndex, data []byte, dev, ino uint64, have bool) string {
		t.Helper()
		reason, err := ix.Fits(bytes.NewReader(data), "s", int64(len(data)), dev, ino, have)
		if err != nil {
			t.Fatal(err)
		}
		return reason
	}
	edited := bytes.Clone(data)
	edited[4000] = 'y'
	other := ix
	other.Session = "t"
	for name, c := range map[string]struct{ got, want string }{
		"fits":          {fits(ix, data, 1, 2, true), ""},
		"no identity":   {fits(ix, data, 1, 2, false), "no file identity"},
		"another file":  {fits(ix, data, 1, 3, true), "another file now"},
		"truncated":     {fits(ix, data[:4999], 1, 2, true), "truncated"},
		"other session": {fits(other, data, 1, 2, true), `names session "t"`},
		"rewritten":     {fits(ix, edited, 1, 2, true), "changed: rewritten"},
	} {
		if c.want == "" && c.got != "" || !strings.Contains(c.got, c.want) {
			t.Errorf("%s: %q, want %q", name, c.got, c.want)
		}
	}
}

// A seal holds while the log is the very bytes sealed: not one appended.
func TestSealHolds(t *testing.T) {
	data := bytes.Repeat([]byte("{\"seq\":1}\n"), 100)
	_, log := logFile(t, data)
	dev, ino := identity(t, log)
	seal, err := index.NewSeal(bytes.NewReader(data), dev, ino, int64(len(data)), 100)
	if err != nil {
		t.Fatal(err)
	}
	holds := func() bool {
		t.Helper()
		f, err := os.Open(log)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		ok, err := seal.Holds(f, fi)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !holds() {
		t.Fatal("the sealed log does not hold")
	}
	if err := os.WriteFile(log, append(bytes.Clone(data), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if holds() {
		t.Fatal("a log one byte longer holds")
	}
	edited := bytes.Clone(data)
	edited[len(edited)-3] = '2'
	if err := os.WriteFile(log, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	if holds() {
		t.Fatal("a log rewritten in its last line holds")
	}
}

type tapeLike struct {
	Text   string
	Events []string
}

// A sealed tape round-trips; one written before the framing moved here
// (the gob of a type named sealedTape) still decodes: gob matches fields by
// name, not the type's.
func TestSealedTape(t *testing.T) {
	in := &tapeLike{Text: "tape", Events: []string{"a", "b"}}
	raw, err := index.EncodeSealedTape(in, [32]byte{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	out, digest, ok := index.DecodeSealedTape[tapeLike](raw)
	if !ok || !reflect.DeepEqual(out, in) || digest != [32]byte{1, 2} {
		t.Fatalf("round trip: %+v %v %v", out, digest, ok)
	}
	type sealedTape struct {
		Tape   *tapeLike
		Digest [32]byte
	}
	var old bytes.Buffer
	old.WriteString("graft-sealedtape-v1\n")
	if err := gob.NewEncoder(&old).Encode(sealedTape{Tape: in, Digest: [32]byte{3}}); err != nil {
		t.Fatal(err)
	}
	out, digest, ok = index.DecodeSealedTape[tapeLike](old.Bytes())
	if !ok || !reflect.DeepEqual(out, in) || digest != [32]byte{3} {
		t.Fatalf("a tape sealed by an earlier build: %+v %v %v", out, digest, ok)
	}
	for name, bad := range map[string][]byte{
		"another magic": append([]byte("graft-sealedtape-v9\n"), raw[len("graft-sealedtape-v1\n"):]...),
		"cut":           raw[:len(raw)-3],
	} {
		if _, _, ok := index.DecodeSealedTape[tapeLike](bad); ok {
			t.Errorf("%s decoded", name)
		}
	}
}

// The sweep: temp files that interrupted writes left in index/ (this
// writer's <name>.tmp-*, and renameio's .<id>.state<digits> of earlier
// builds) are removed when a writer opens the directory, before its first
// write, once they are older than TempGrace; a younger one may be another
// process's write in flight and stays, as do the index files themselves.
func TestWriterSweepsTheTempFilesOfInterruptedWritesWhenItOpensTheDirectory(t *testing.T) {
	home := t.TempDir()
	dir := index.Dir(home)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * index.TempGrace)
	plant := func(name string, mtime time.Time) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("half a write"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	// A write interrupted for real: killed between its temp file and its
	// rename (the rename and the removal of the temp file fail).
	inj := &faults{}
	broken := errorfs.Wrap(vfs.Default, inj)
	inj.add(errorfs.OnKind(errorfs.OpRename, "x.seq.tmp-", 1, syscall.EIO), errorfs.OnKind(errorfs.OpRemove, "x.seq.tmp-", 1, syscall.EIO))
	if err := index.NewWriter(broken, home).WriteSeq("x", 1, 2, marks(2)); err == nil {
		t.Fatal("the interrupted write succeeded")
	}
	interrupted := temps(t, dir, "x.seq.tmp-")
	if len(interrupted) != 1 {
		t.Fatalf("the interrupted write left %q", interrupted)
	}
	past := time.Now().Add(-2 * index.TempGrace)
	if err := os.Chtimes(filepath.Join(dir, interrupted[0]), past, past); err != nil {
		t.Fatal(err)
	}

	// Left by interrupted writes (like the real one above).
	plant("s.seq.tmp-ABCDEFGH", old)
	plant("t.state.tmp-23456789", old)
	plant(".t.state1234567", old)
	// Another process's write in flight.
	plant("u.seq.tmp-QRSTUVWX", time.Now())
	// Not temp files.
	plant("v.seq", old)
	plant("v.state", old)
	plant("w.seq.tmp-", old)

	w := index.NewWriter(vfs.Default, home)
	if got := w.Swept(); len(got) != 0 {
		t.Fatalf("a writer swept before opening the directory: %q", got)
	}
	if err := w.WriteSeq("s", 1, 2, marks(3)); err != nil {
		t.Fatal(err)
	}
	want := []string{".t.state1234567", interrupted[0], "s.seq.tmp-ABCDEFGH", "t.state.tmp-23456789"}
	slices.Sort(want)
	got := w.Swept()
	slices.Sort(got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("swept %q, want %q", got, want)
	}
	left := names(t, dir)
	for _, name := range []string{"s.seq", "u.seq.tmp-QRSTUVWX", "v.seq", "v.state", "w.seq.tmp-"} {
		if !slices.Contains(left, name) {
			t.Errorf("%s is gone", name)
		}
	}
	for _, name := range want {
		if slices.Contains(left, name) {
			t.Errorf("%s was not swept", name)
		}
	}
	if m, _, err := index.LoadSeq(vfs.Default, home, "s", 1, 2); len(m) != 3 || err != nil {
		t.Fatalf("the write after the sweep: %d marks, %v", len(m), err)
	}

	// The writer sweeps once, when it opens the directory; the next writer
	// sweeps again.
	plant("y.seq.tmp-ABCDEFGH", old)
	if err := w.WriteState("s", bytes.NewReader([]byte("{}\n")), 1, 2, 3, 2, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names(t, dir), "y.seq.tmp-ABCDEFGH") {
		t.Fatal("an open writer swept again")
	}
	w2 := index.NewWriter(vfs.Default, home)
	if err := w2.WriteSeq("s", 1, 2, marks(1)); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names(t, dir), "y.seq.tmp-ABCDEFGH") || !reflect.DeepEqual(w2.Swept(), []string{"y.seq.tmp-ABCDEFGH"}) {
		t.Fatalf("a new writer did not sweep: swept %q", w2.Swept())
	}
	if tmp := temps(t, dir, "s."); len(tmp) != 0 {
		t.Fatalf("the writes left %q", tmp)
	}
}

// A write that fails before its rename removes its temp file, and a
// directory that cannot be listed fails the write (the caller reports its
// index as not stored).
func TestWriterFailures(t *testing.T) {
	home := t.TempDir()
	fault := errorfs.OnKind(errorfs.OpWrite, ".tmp-", 1, syscall.ENOSPC)
	err := index.NewWriter(errorfs.Wrap(vfs.Default, fault), home).WriteSeq("s", 1, 2, marks(2))
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "the seq cache") {
		t.Fatalf("a write that failed: %v", err)
	}
	if left := names(t, index.Dir(home)); len(left) != 0 {
		t.Fatalf("a failed write left %q", left)
	}
	fault = errorfs.OnKind(errorfs.OpReadDir, index.DirName, 1, syscall.EIO)
	err = index.NewWriter(errorfs.Wrap(vfs.Default, fault), home).WriteSeq("s", 1, 2, marks(2))
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "sweep") {
		t.Fatalf("a directory that cannot be listed: %v", err)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func temps(t *testing.T, dir, prefix string) []string {
	t.Helper()
	var out []string
	for _, n := range names(t, dir) {
		if strings.HasPrefix(n, prefix) && index.IsTemp(n) {
			out = append(out, n)
		}
	}
	return out
}

// faults fires each of its faults.
type faults struct{ list []*errorfs.Fault }

func (f *faults) add(fs ...*errorfs.Fault) { f.list = append(f.list, fs...) }

func (f *faults) MaybeError(op errorfs.Op) error {
	for _, x := range f.list {
		if err := x.MaybeError(op); err != nil {
			return err
		}
	}
	return nil
}
