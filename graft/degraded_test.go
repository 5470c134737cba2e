package graft_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/recovery"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// degradedHome is a home with a committed graft s → s.g2 and a review of
// s.g2, whose index/ is gone, so that recall has no seq marks (they live in
// index/ alone) and reads the logs from their start.
type degradedHome struct {
	*flowHome
	review string // a preparedId of s.g2
}

func newDegradedHome(t *testing.T, o graft.Options) *degradedHome {
	t.Helper()
	h := openFlowHome(t, o)
	h.create("s", workSession()...)
	h.commit(h.prepare("s", graft.PrepareOptions{}), "s.g2")
	h.appendEvents("s.g2", humanMsg("Carry on with the store tests."), assistantMsg("On it."))
	rv := h.prepare("s.g2", graft.PrepareOptions{})
	if err := os.RemoveAll(filepath.Join(h.home, "index")); err != nil {
		t.Fatal(err)
	}
	if notes := h.svc.TakeDegraded(); len(notes) != 0 {
		t.Fatalf("a healthy home degraded: %q", notes)
	}
	return &degradedHome{flowHome: h, review: rv.PreparedID}
}

func (h *degradedHome) catalogPath() string { return filepath.Join(h.home, catalog.FileName) }

// catalogDamage is one way catalog.db is found: each breaks the file (or
// holds it) and returns what every message about it must say.
type catalogDamage struct {
	name  string
	apply func(t *testing.T, h *degradedHome) string
}

var catalogDamages = []catalogDamage{
	{"truncated", func(t *testing.T, h *degradedHome) string {
		truncateIntoUsedPages(t, h.catalogPath())
		return "graft recover --rebuild-catalog"
	}},
	{"replaced by garbage", func(t *testing.T, h *degradedHome) string {
		b := make([]byte, 64<<10)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(h.catalogPath(), b, 0o600); err != nil {
			t.Fatal(err)
		}
		return "graft recover --rebuild-catalog"
	}},
	{"replaced by a directory", func(t *testing.T, h *degradedHome) string {
		if err := os.Remove(h.catalogPath()); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(h.catalogPath(), 0o700); err != nil {
			t.Fatal(err)
		}
		return "graft recover --rebuild-catalog"
	}},
	{"unreadable (EACCES injected)", func(t *testing.T, h *degradedHome) string {
		restore := catalog.InjectOpenFile(func(name string, flag int, perm os.FileMode) (*os.File, error) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
		})
		t.Cleanup(restore)
		return "permission denied"
	}},
	{"held by another process", func(t *testing.T, h *degradedHome) string {
		db, err := catalog.Open(h.home, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := db.Close(); err != nil {
				t.Error(err)
			}
		})
		h.svc.CatalogTimeout = 200 * time.Millisecond
		return "held by another process"
	}},
}

// degradedSays wants one note of the service that names catalog.db and
// says what to do (advice), and returns the notes.
func degradedSays(t *testing.T, h *degradedHome, what, advice string) {
	t.Helper()
	notes := h.svc.TakeDegraded()
	joined := strings.Join(notes, "\n")
	if len(notes) == 0 || !strings.Contains(joined, "catalog.db") || !strings.Contains(joined, advice) || !strings.Contains(joined, "log") {
		t.Fatalf("%s: the service noted %q, want it to say it read the logs instead of catalog.db, and %q", what, notes, advice)
	}
}

// TestReadsDegradeToTheLogs: with catalog.db truncated, garbage, a
// directory, unreadable or held by another process, status, audit and the
// lineage still answer from the logs, and say that they did and what to
// do; recall, which reads index/ and the logs, never catalog.db, answers
// and has nothing to say; prepare (which must store its review there for commit) and
// show --prepared (whose review lives only there) fail with an error that
// names the catalog and what to do.
func TestReadsDegradeToTheLogs(t *testing.T) {
	for _, d := range catalogDamages {
		t.Run(d.name, func(t *testing.T) {
			h := newDegradedHome(t, graft.Options{})
			advice := d.apply(t, h)

			st, err := h.svc.Status()
			if err != nil {
				t.Fatalf("Status: %v", err)
			}
			if len(st.Sessions) != 2 || st.Sessions[0].ID != "s" || st.Sessions[0].Head != "s.g2" || st.Sessions[1].State != "active" {
				t.Fatalf("Status sessions from the logs: %+v", st.Sessions)
			}
			if !strings.Contains(st.CatalogError, "catalog.db") || !strings.Contains(st.CatalogError, advice) {
				t.Fatalf("Status.CatalogError %q, want the file and %q", st.CatalogError, advice)
			}
			degradedSays(t, h, "Status", advice)

			for _, q := range []struct {
				id  string
				seq int64
			}{{"s", 7}, {"s.g2", 1}, {"s.g2", 5}} {
				ev, path, err := h.svc.RecallWithPath(context.Background(), q.id, q.seq)
				if err != nil || ev.Seq != q.seq {
					t.Fatalf("Recall(%s, %d): %v, %v", q.id, q.seq, ev, err)
				}
				if path.Index != "" || !strings.Contains(path.FullScan, "no seq cache") {
					t.Fatalf("Recall(%s, %d) read from %+v, want the log from its start, saying why", q.id, q.seq, path)
				}
			}
			if notes := h.svc.TakeDegraded(); len(notes) != 0 {
				t.Fatalf("Recall reads index/ and the logs, never catalog.db, yet noted %q", notes)
			}

			rep, err := h.svc.Audit("s.g2")
			if err != nil || !rep.OK || len(rep.Constraints) == 0 {
				t.Fatalf("Audit: %+v, %v", rep, err)
			}
			degradedSays(t, h, "Audit", advice)

			l, err := h.svc.Lineage("s.g2")
			if err != nil || l.Root != "s" || l.Head != "s.g2" || len(l.Tree.Children) != 1 {
				t.Fatalf("Lineage: %+v, %v", l, err)
			}
			if p := strings.Join(l.Problems, "\n"); !strings.Contains(p, "catalog.db") || !strings.Contains(p, advice) {
				t.Fatalf("Lineage problems %q, want the catalog and %q", l.Problems, advice)
			}
			h.svc.TakeDegraded()

			_, err = h.svc.Prepare(context.Background(), "s.g2", graft.PrepareOptions{})
			if err == nil || !strings.Contains(err.Error(), "catalog.db") || !strings.Contains(err.Error(), advice) || !strings.Contains(err.Error(), "review") {
				t.Fatalf("Prepare with the catalog %s: %v, want an error naming the catalog, the review it must store and %q", d.name, err, advice)
			}
			if _, err := h.svc.PreparedReview(h.review); err == nil || !strings.Contains(err.Error(), "catalog.db") || !strings.Contains(err.Error(), advice) {
				t.Fatalf("PreparedReview with the catalog %s: %v, want an error naming the catalog and %q", d.name, err, advice)
			}
		})
	}
}

// A catalog the process may read but not write (EACCES on a read-write
// open, injected; the real ones, 0400 for a user who is not root and a
// read-only mount, run in cmd/graft): reads use it read-only and need not
// degrade; only storing the indexes does, and says so; prepare cannot
// store its review and says why.
func TestReadOnlyCatalogIsRead(t *testing.T) {
	h := newDegradedHome(t, graft.Options{})
	restore := catalog.InjectOpenFile(func(name string, flag int, perm os.FileMode) (*os.File, error) {
		if flag&(os.O_RDWR|os.O_WRONLY) != 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
		}
		return os.OpenFile(name, flag, perm)
	})
	t.Cleanup(restore)
	st, err := h.svc.Status()
	if err != nil || st.CatalogError != "" || len(st.Sessions) != 2 {
		t.Fatalf("Status of a read-only catalog: %+v, %v", st, err)
	}
	if notes := h.svc.TakeDegraded(); len(notes) != 0 {
		t.Fatalf("Status of a read-only catalog degraded: %q", notes)
	}
	if ev, path, err := h.svc.RecallWithPath(context.Background(), "s", 7); err != nil || ev.Seq != 7 {
		t.Fatalf("Recall beside a read-only catalog: %+v, %v", path, err)
	}
	// A session with no scan index yet: its fold stores one, which fails.
	h.create("t", workSession()...)
	if _, err := h.svc.Audit("t"); err != nil {
		t.Fatalf("Audit with a read-only catalog: %v", err)
	}
	if notes := strings.Join(h.svc.TakeDegraded(), "\n"); !strings.Contains(notes, "not stored") || !strings.Contains(notes, "permission denied") {
		t.Fatalf("Audit with a read-only catalog noted %q, want the indexes not stored, and why", notes)
	}
	if _, err := h.svc.PreparedReview(h.review); err != nil {
		t.Fatalf("PreparedReview from a read-only catalog: %v", err)
	}
	_, err = h.svc.Prepare(context.Background(), "s.g2", graft.PrepareOptions{})
	if err == nil || !strings.Contains(err.Error(), "catalog.db") || !strings.Contains(err.Error(), "writable") {
		t.Fatalf("Prepare with a read-only catalog: %v, want an error saying the catalog must be writable", err)
	}
	wantCode(t, err, "permission_denied", 20)
}

// Derived caches that cannot be written or read never fail prepare or
// recall: the log is read instead, and the review's warnings (or the
// service's notes) say so.
func TestPrepareAndRecallSurviveBrokenCaches(t *testing.T) {
	t.Run("index/ not writable", func(t *testing.T) {
		fault := errorfs.OnKind(errorfs.OpCreate, string(filepath.Separator)+"index"+string(filepath.Separator), 1, syscall.EACCES)
		h := openFlowHome(t, graft.Options{FS: errorfs.Wrap(vfs.Default, fault)})
		h.create("s", workSession()...)
		rv := h.prepare("s", graft.PrepareOptions{})
		if _, fired := fault.Fired(); !fired {
			t.Fatal("the fault never fired")
		}
		if w := strings.Join(rv.Warnings, "\n"); !strings.Contains(w, "seq cache") || !strings.Contains(w, "EACCES") {
			t.Fatalf("review warnings %q, want the seq cache not written, and why", rv.Warnings)
		}
		if _, err := h.svc.Recall("s", 3); err != nil {
			t.Fatalf("Recall without a seq cache: %v", err)
		}
	})
	t.Run("index/<id>.seq not readable", func(t *testing.T) {
		fault := errorfs.OnKind(errorfs.OpOpen, "s.seq", 1, syscall.EACCES)
		inj := &onAfter{fault: fault}
		h := openFlowHome(t, graft.Options{FS: errorfs.Wrap(vfs.Default, inj)})
		h.create("s", workSession()...)
		h.prepare("s", graft.PrepareOptions{})
		h.svc.TakeDegraded()
		inj.armed = true
		ev, path, err := h.svc.RecallWithPath(context.Background(), "s", 3)
		if err != nil || ev.Seq != 3 {
			t.Fatalf("Recall with an unreadable seq cache: %v, %v", ev, err)
		}
		if _, fired := fault.Fired(); !fired {
			t.Fatal("the fault never fired")
		}
		if path.Index != "" || !strings.Contains(path.FullScan, "could not be read") {
			t.Fatalf("Recall with an unreadable seq cache read %+v, want the log from its start, saying why", path)
		}
		if notes := strings.Join(h.svc.TakeDegraded(), "\n"); !strings.Contains(notes, "s.seq") || !strings.Contains(notes, "EACCES") {
			t.Fatalf("notes %q, want the unreadable cache named", notes)
		}
	})
	t.Run("scan index in the catalog does not decode", func(t *testing.T) {
		h := openFlowHome(t, graft.Options{})
		h.create("s", workSession()...)
		h.prepare("s", graft.PrepareOptions{})
		b, err := bolt.Open(filepath.Join(h.home, catalog.FileName), 0o600, &bolt.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		err = b.Update(func(tx *bolt.Tx) error {
			rest := "{\"session\":\"s\",\"bogus\":1}\nstate"
			sum := sha256.Sum256([]byte(rest))
			return tx.Bucket([]byte("scanindex")).Put([]byte("s"), []byte("graft-scanindex-v3\nsha256:"+hex.EncodeToString(sum[:])+"\n"+rest))
		})
		if err := errors.Join(err, b.Close()); err != nil {
			t.Fatal(err)
		}
		rv := h.prepare("s", graft.PrepareOptions{})
		if w := strings.Join(rv.Warnings, "\n"); !strings.Contains(w, "scan index of s was not used") || !strings.Contains(w, "corrupt value") {
			t.Fatalf("review warnings %q, want the scan index not used, and why", rv.Warnings)
		}
	})
}

// onAfter is a Fault that only counts once armed.
type onAfter struct {
	fault *errorfs.Fault
	armed bool
}

func (o *onAfter) MaybeError(op errorfs.Op) error {
	if !o.armed {
		return nil
	}
	return o.fault.MaybeError(op)
}

// TestRebuildMovesADamagedCatalogAside: recover --rebuild-catalog moves a
// damaged catalog aside (kept, never deleted) and derives a new one from
// the logs; a healthy one is rebuilt in place.
func TestRebuildMovesADamagedCatalogAside(t *testing.T) {
	for _, d := range catalogDamages[:3] {
		t.Run(d.name, func(t *testing.T) {
			h := newDegradedHome(t, graft.Options{})
			d.apply(t, h)
			fi, err := os.Lstat(h.catalogPath())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := recovery.Rebuild(h.svc.Env()); !errors.Is(err, catalog.ErrCorrupt) {
				t.Fatalf("Rebuild over a damaged catalog: %v, want ErrCorrupt", err)
			}
			moved, err := h.svc.MoveAsideDamagedCatalog()
			if err != nil || !strings.HasPrefix(filepath.Base(moved), "catalog.db.corrupt-") {
				t.Fatalf("MoveAsideDamagedCatalog: %q, %v", moved, err)
			}
			if evidence, err := os.Lstat(moved); err != nil || !os.SameFile(fi, evidence) {
				t.Fatalf("the damaged catalog was not kept as evidence: %v", err)
			}
			rb, err := recovery.Rebuild(h.svc.Env())
			if err != nil || rb.Nodes != 1 {
				t.Fatalf("Rebuild after the move: %+v, %v", rb, err)
			}
			st, err := h.svc.Status()
			if err != nil || st.CatalogError != "" {
				t.Fatalf("Status after the rebuild: %+v, %v", st, err)
			}
			if l, err := h.svc.Lineage("s"); err != nil || len(l.Problems) != 0 {
				t.Fatalf("Lineage after the rebuild: %+v, %v", l, err)
			}
			h.prepare("s.g2", graft.PrepareOptions{})
		})
	}
	t.Run("healthy", func(t *testing.T) {
		h := newDegradedHome(t, graft.Options{})
		if moved, err := h.svc.MoveAsideDamagedCatalog(); moved != "" || err != nil {
			t.Fatalf("MoveAsideDamagedCatalog of a healthy catalog: %q, %v", moved, err)
		}
		if _, err := os.Stat(h.catalogPath()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestOpenWithADamagedCatalog: the start-up recovery scan that swept a
// temp file must remember its report in the catalog; when it cannot, the
// service still opens (every command runs the scan first) and says so.
func TestOpenWithADamagedCatalog(t *testing.T) {
	h := newDegradedHome(t, graft.Options{})
	catalogDamages[0].apply(t, h)
	tmp := filepath.Join(h.home, ".txn", ".t-old.json123")
	if err := os.WriteFile(tmp, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(tmp, old, old); err != nil {
		t.Fatal(err)
	}
	svc, err := graft.Open(h.home, graft.Options{})
	if err != nil {
		t.Fatalf("Open with a damaged catalog and a temp file to sweep: %v", err)
	}
	if svc.Startup == nil || len(svc.Startup.Swept) != 1 {
		t.Fatalf("the start-up scan: %+v", svc.Startup)
	}
	if notes := strings.Join(svc.TakeDegraded(), "\n"); !strings.Contains(notes, "recovery report") || !strings.Contains(notes, "graft recover --rebuild-catalog") {
		t.Fatalf("notes %q, want the unremembered report and the repair", notes)
	}
}

// truncateIntoUsedPages cuts catalog.db one page short of the pages its
// newest meta page says are in use (bbolt's file may be longer than that:
// cutting its free tail would damage nothing).
func truncateIntoUsedPages(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	meta := func(off int) (pageSize, pgid, txid uint64) {
		m := b[off+16:]
		ne := binary.NativeEndian
		return uint64(ne.Uint32(m[8:])), ne.Uint64(m[40:]), ne.Uint64(m[48:])
	}
	ps, pgid, txid := meta(0)
	if _, pgid1, txid1 := meta(int(ps)); txid1 > txid {
		pgid = pgid1
	}
	if err := os.Truncate(path, int64((pgid-1)*ps)); err != nil {
		t.Fatal(err)
	}
}
