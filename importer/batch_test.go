package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// withFS runs the import through a store on fsys (the same home).
func (f *fixture) withFS(fsys vfs.FS) func(*Options) {
	return func(o *Options) {
		st, err := session.OpenStore(fsys, f.home)
		if err != nil {
			f.t.Fatal(err)
		}
		st.Now = f.st.Now
		o.Store = st
	}
}

// tornAt is the offsets a batch's write is failed at: none of it, one byte,
// the first line but its '\n', the first line whole, one byte more, half,
// all but the last byte.
func tornAt(first, size int) []int {
	return []int{0, 1, first - 1, first, first + 1, size / 2, size - 1}
}

// TestFailedBatchKeepsNoPartialEvents (issue 19, finding 2): an import
// that appends to its session in batches, on a disk that fills in the
// middle of the third batch, keeps the first two batches (and the cursor
// after them) and no event of the third; the next run imports the rest
// once.
func TestFailedBatchKeepsNoPartialEvents(t *testing.T) {
	var lines strings.Builder
	for i := range 6 {
		lines.WriteString("line" + strconv.Itoa(i) + "|second part of line " + strconv.Itoa(i) + "\n")
	}
	one := newFixture(t)
	one.write("a\n" + lines.String())
	one.mustRun("one")
	want := texts(one.events("one"))
	// The third batch is line 3 of the appended part: two events, seqs 6, 7.
	var first, size int
	for k, ev := range one.events("one")[5:7] {
		b, err := session.Encode(&ev)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			first = len(b)
		}
		size += len(b)
	}
	for _, k := range tornAt(first, size) {
		t.Run(fmt.Sprintf("ENOSPC after %d of %d bytes", k, size), func(t *testing.T) {
			f := newFixture(t)
			f.write("a\n")
			f.mustRun("s")
			f.appendSrc(lines.String())
			fault := errorfs.OnKind(errorfs.OpWrite, "s.jsonl", 3, syscall.ENOSPC).TornWriteAfter(k)
			_, err := f.run("s", func(o *Options) { o.BatchBytes = 1 }, f.withFS(errorfs.Wrap(vfs.Default, fault)))
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("import = %v, want ENOSPC (%s)", err, fault)
			}
			evs, res, err := f.st.ReadAll("s")
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != 5 || res.Torn != nil {
				t.Fatalf("after the failed third batch the session holds %d events (torn tail %+v), want the 5 of the batches before it: %s", len(evs), res.Torn, texts(evs))
			}
			cur, err := LoadCursor(vfs.Default, f.home, "s")
			if err != nil || cur.LastSeq != 5 {
				t.Fatalf("cursor %+v, %v: want it after the second batch (seq 5)", cur, err)
			}
			if sum := f.mustRun("s"); sum.Appended != 8 || sum.Verified != 0 {
				t.Fatalf("the next run appended %d and verified %d, want 8 appended", sum.Appended, sum.Verified)
			}
			if got := texts(f.events("s")); got != want {
				t.Fatalf("after the retry:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestFailedFirstImportLeavesNoSession: the first import of a transcript
// creates its session; a disk that fills while it is written leaves no
// session and no cursor (nothing of the run is kept), and the next run
// imports it whole.
func TestFailedFirstImportLeavesNoSession(t *testing.T) {
	content := "a\nb|c\nd\ne|f|g\n"
	one := newFixture(t)
	one.write(content)
	one.mustRun("one")
	evs := one.events("one")
	raw, err := os.ReadFile(one.st.Path("one"))
	if err != nil {
		t.Fatal(err)
	}
	first := bytes.IndexByte(raw, '\n') + 1
	for _, k := range tornAt(first, len(raw)) {
		t.Run(fmt.Sprintf("ENOSPC after %d of %d bytes", k, len(raw)), func(t *testing.T) {
			f := newFixture(t)
			f.write(content)
			fault := errorfs.OnKind(errorfs.OpWrite, "s.jsonl", 1, syscall.ENOSPC).TornWriteAfter(k)
			_, err := f.run("s", f.withFS(errorfs.Wrap(vfs.Default, fault)))
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("import = %v, want ENOSPC (%s)", err, fault)
			}
			if _, err := os.Lstat(f.st.Path("s")); !errors.Is(err, fs.ErrNotExist) {
				b, _ := os.ReadFile(f.st.Path("s"))
				t.Fatalf("the failed first import left a session (%v): %q", err, b)
			}
			if _, err := LoadCursor(vfs.Default, f.home, "s"); !errors.Is(err, ErrNoCursor) {
				t.Fatalf("cursor after a failed first import: %v, want none", err)
			}
			if sum := f.mustRun("s"); sum.Appended != len(evs) {
				t.Fatalf("the next run appended %d events, want %d", sum.Appended, len(evs))
			}
			if a, b := f.events("s"), evs; !reflect.DeepEqual(texts(a), texts(b)) {
				t.Fatalf("after the retry:\n got %s\nwant %s", texts(a), texts(b))
			}
		})
	}
}
