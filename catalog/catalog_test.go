package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/internal/helperproc"
	"github.com/graft-project/graft/session"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// newHome returns a graft home whose catalog, if a test created one, is
// checked for bbolt consistency after the test (as bbolt's own tests do).
func newHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Cleanup(func() {
		path := filepath.Join(home, FileName)
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if err != nil {
			t.Errorf("consistency check: %v", err)
			return
		}
		if !fi.Mode().IsRegular() {
			return // a planted symlink the test made Open refuse
		}
		b, err := bolt.Open(path, FileMode, &bolt.Options{Timeout: time.Second, ReadOnly: true})
		if err != nil {
			t.Errorf("consistency check: opening %s: %v", path, err)
			return
		}
		if err := b.View(func(tx *bolt.Tx) error {
			var errs []error
			for err := range tx.Check() {
				errs = append(errs, err)
			}
			return errors.Join(errs...)
		}); err != nil {
			t.Errorf("consistency check of %s: %v", path, err)
		}
		if err := b.Close(); err != nil {
			t.Errorf("consistency check: closing %s: %v", path, err)
		}
	})
	return home
}

func open(t *testing.T, home string) *DB {
	t.Helper()
	db, err := Open(home, time.Second)
	if err != nil {
		t.Fatalf("Open(%s): %v", home, err)
	}
	return db
}

func closeDB(t *testing.T, db *DB) {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestOpenCreatesFileAndBuckets(t *testing.T) {
	home := filepath.Join(newHome(t), "nested", "home")
	db := open(t, home)
	defer closeDB(t, db)
	fi, err := os.Stat(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	if db.Path() != filepath.Join(home, "catalog.db") || fi.Mode().Perm() != FileMode {
		t.Fatalf("catalog at %s mode %v, want %s mode %v", db.Path(), fi.Mode().Perm(), filepath.Join(home, "catalog.db"), FileMode)
	}
	err = db.b.(*boltBackend).db.View(func(tx *bolt.Tx) error {
		for _, name := range []string{"prepared", "lineage", "leftovers", "scanindex", "seqindex", "meta"} {
			if tx.Bucket([]byte(name)) == nil {
				return fmt.Errorf("bucket %q missing", name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	v, ok, err := db.GetMeta(FormatKey)
	if err != nil || !ok || string(v) != Format {
		t.Fatalf("format mark = %q, %v, %v; want %q", v, ok, err, Format)
	}
}

func TestOpenRefuses(t *testing.T) {
	t.Run("zero timeout", func(t *testing.T) {
		if _, err := Open(newHome(t), 0); !errors.Is(err, ErrInvalid) {
			t.Fatalf("Open with timeout 0 = %v, want ErrInvalid (bbolt would wait forever)", err)
		}
	})
	t.Run("symlink", func(t *testing.T) {
		home := newHome(t)
		elsewhere := filepath.Join(t.TempDir(), "other.db")
		if err := os.Symlink(elsewhere, filepath.Join(home, FileName)); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(home, time.Second); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("Open through a symlink = %v, want it refused", err)
		}
		if _, err := os.Lstat(elsewhere); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the symlink's target was created: %v", err)
		}
	})
	t.Run("other format", func(t *testing.T) {
		home := newHome(t)
		closeDB(t, open(t, home))
		b, err := bolt.Open(filepath.Join(home, FileName), FileMode, &bolt.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Update(func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("meta")).Put([]byte(FormatKey), []byte("graft-catalog-v9"))
		}); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(home, time.Second); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "graft-catalog-v9") {
			t.Fatalf("Open of another format = %v, want ErrFormat naming it", err)
		}
		// The refused open released the file.
		b, err = bolt.Open(filepath.Join(home, FileName), FileMode, &bolt.Options{Timeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatalf("catalog still locked after a refused Open: %v", err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestSecondOpenIsBusyWithinTimeout(t *testing.T) {
	home := newHome(t)
	holder := open(t, home)
	const timeout = 300 * time.Millisecond
	start := time.Now()
	db, err := Open(home, timeout)
	elapsed := time.Since(start)
	if !errors.Is(err, ErrBusy) || !errors.Is(err, berrors.ErrTimeout) || db != nil {
		t.Fatalf("second Open = %v, %v; want ErrBusy", db, err)
	}
	if !strings.Contains(err.Error(), holder.Path()) {
		t.Fatalf("busy error %q does not name %s", err, holder.Path())
	}
	if elapsed < timeout-60*time.Millisecond || elapsed > timeout+2*time.Second {
		t.Fatalf("busy after %v, want about the %v timeout", elapsed, timeout)
	}
	closeDB(t, holder)
	closeDB(t, open(t, home))
}

func TestOpenWaitsForRelease(t *testing.T) {
	home := newHome(t)
	holder := open(t, home)
	released := make(chan error, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		released <- holder.Close()
	}()
	db, err := Open(home, 5*time.Second)
	if err != nil {
		t.Fatalf("Open while the holder releases within the timeout: %v", err)
	}
	closeDB(t, db)
	if err := <-released; err != nil {
		t.Fatalf("holder Close: %v", err)
	}
}

func TestWithClosesWhateverFnReturns(t *testing.T) {
	home := newHome(t)
	boom := errors.New("boom")
	err := With(home, time.Second, func(db *DB) error {
		if err := db.PutMeta("k", []byte("v")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("With = %v, want fn's error", err)
	}
	// Released: a short timeout is enough.
	err = With(home, 100*time.Millisecond, func(db *DB) error {
		v, ok, err := db.GetMeta("k")
		if err != nil || !ok || string(v) != "v" {
			return fmt.Errorf("GetMeta = %q, %v, %v", v, ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("With after With: %v", err)
	}
}

const envHelperHome = "GRAFT_CATALOG_HELPER_HOME"

// TestHelperProcess is not a test: it is a child that holds the catalog
// open, prints "open", and closes it when stdin closes.
func TestHelperProcess(t *testing.T) {
	home := os.Getenv(envHelperHome)
	if home == "" {
		t.Skip("helper child only")
	}
	err := With(home, time.Second, func(*DB) error {
		fmt.Println("open")
		_, err := io.Copy(io.Discard, os.Stdin)
		return err
	})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

func TestBusyAcrossProcesses(t *testing.T) {
	home := newHome(t)
	c := helperproc.Start(t, envHelperHome+"="+home)
	if line := c.Line(t); line != "open" {
		t.Fatalf("helper said %q; want open", line)
	}
	if _, err := Open(home, 200*time.Millisecond); !errors.Is(err, ErrBusy) {
		t.Fatalf("Open while another process holds the catalog = %v, want ErrBusy", err)
	}
	if err := c.Stdin.Close(); err != nil {
		t.Fatal(err)
	}
	c.Wait(t)
	closeDB(t, open(t, home))
}

func prepared(id string) Prepared {
	return Prepared{
		ID: id, Source: "src", Tier: "A", RecentTurns: 2, AutoTier: true, Budget: 16000, AllowReslice: true,
		BoundarySeq: 40, LastSeq: 52, Generation: 1,
		PrefixHash: "graft-prefix-v1:aa", TapeHash: "graft-tape-v1:bb", TapeChars: 900, CarryoverChars: 277,
		Review:  json.RawMessage(`{"goal":"ship it","tape":"[graft:tape ...]"}`),
		Created: t0, Expires: t0.Add(24 * time.Hour),
	}
}

func TestNewPreparedID(t *testing.T) {
	shape := regexp.MustCompile(`^prep-20260304T050607\.000Z-[A-Z2-7]{10}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := NewPreparedID(t0)
		if !shape.MatchString(id) || session.ValidID(id) != nil || seen[id] {
			t.Fatalf("NewPreparedID = %q: want shape %s, a valid id, never repeated", id, shape)
		}
		seen[id] = true
	}
	if a, b := NewPreparedID(t0), NewPreparedID(t0.Add(time.Millisecond)); !(a < b) {
		t.Fatalf("ids do not sort by time: %q !< %q", a, b)
	}
}

func TestPreparedRoundTripAndCopy(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		in := prepared("prep-1")
		if err := db.PutPrepared(in); err != nil {
			t.Fatal(err)
		}
		got, err := db.GetPrepared("prep-1", t0)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, in) {
			t.Fatalf("GetPrepared = %+v\nwant %+v", got, in)
		}
		// The returned bytes belong to the caller.
		got.Review[2] = 'X'
		again, err := db.PeekPrepared("prep-1")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Review, in.Review) {
			t.Fatalf("changing a returned review changed the stored one: %s", again.Review)
		}
		noReview := prepared("prep-2")
		noReview.Review = nil
		if err := db.PutPrepared(noReview); err != nil {
			t.Fatal(err)
		}
		if got, err := db.PeekPrepared("prep-2"); err != nil || !reflect.DeepEqual(got, noReview) {
			t.Fatalf("review-less prepared = %+v, %v", got, err)
		}
	})
}

func TestPutPreparedRefusesInvalid(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		cases := map[string]func(*Prepared){
			"id":         func(p *Prepared) { p.ID = "../x" },
			"empty id":   func(p *Prepared) { p.ID = "" },
			"source":     func(p *Prepared) { p.Source = "a/b" },
			"no expiry":  func(p *Prepared) { p.Expires = time.Time{} },
			"usedBy":     func(p *Prepared) { p.UsedBy = "txn/1" },
			"bad review": func(p *Prepared) { p.Review = json.RawMessage(`{"unclosed":`) },
		}
		for name, mutate := range cases {
			p := prepared("prep-1")
			mutate(&p)
			if err := db.PutPrepared(p); err == nil {
				t.Errorf("%s: PutPrepared accepted %+v", name, p)
			}
		}
		if _, err := db.PeekPrepared("prep-1"); !errors.Is(err, ErrUnknownPrepared) {
			t.Fatalf("a refused prepared was stored: %v", err)
		}
	})
}

func TestGetPreparedRefusals(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		p := prepared("prep-1")
		if err := db.PutPrepared(p); err != nil {
			t.Fatal(err)
		}

		_, err := db.GetPrepared("prep-nope", t0)
		var unknown *UnknownPreparedError
		if !errors.As(err, &unknown) || !errors.Is(err, ErrUnknownPrepared) || unknown.ID != "prep-nope" || !strings.Contains(err.Error(), "prep-nope") {
			t.Fatalf("unknown id: %v", err)
		}
		if _, err := db.PeekPrepared("prep-nope"); !errors.Is(err, ErrUnknownPrepared) {
			t.Fatalf("PeekPrepared of an unknown id: %v", err)
		}

		if _, err := db.GetPrepared("prep-1", p.Expires.Add(-time.Nanosecond)); err != nil {
			t.Fatalf("one nanosecond before expiry: %v", err)
		}
		for _, now := range []time.Time{p.Expires, p.Expires.Add(time.Hour)} {
			_, err := db.GetPrepared("prep-1", now)
			var expired *ExpiredPreparedError
			if !errors.As(err, &expired) || !errors.Is(err, ErrExpiredPrepared) || expired.ID != "prep-1" || !expired.Expires.Equal(p.Expires) {
				t.Fatalf("at %v: %v, want *ExpiredPreparedError", now, err)
			}
			if errors.Is(err, ErrUsedPrepared) || errors.Is(err, ErrUnknownPrepared) {
				t.Fatalf("expired error matches another sentinel: %v", err)
			}
		}
		if peek, err := db.PeekPrepared("prep-1"); err != nil || peek.ID != "prep-1" {
			t.Fatalf("PeekPrepared of an expired review: %+v, %v", peek, err)
		}

		if err := db.MarkPreparedUsed("prep-1", "txn-7"); err != nil {
			t.Fatal(err)
		}
		for _, now := range []time.Time{t0, p.Expires.Add(time.Hour)} {
			_, err := db.GetPrepared("prep-1", now)
			var used *UsedPreparedError
			if !errors.As(err, &used) || !errors.Is(err, ErrUsedPrepared) || used.Txn != "txn-7" || !strings.Contains(err.Error(), "prep-1") || !strings.Contains(err.Error(), "txn-7") {
				t.Fatalf("used review at %v: %v, want *UsedPreparedError naming prep-1 and txn-7", now, err)
			}
		}
		if peek, err := db.PeekPrepared("prep-1"); err != nil || peek.UsedBy != "txn-7" {
			t.Fatalf("PeekPrepared of a used review: %+v, %v", peek, err)
		}
	})
}

func TestMarkPreparedUsed(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		if err := db.MarkPreparedUsed("prep-nope", "txn-1"); !errors.Is(err, ErrUnknownPrepared) {
			t.Fatalf("marking an unknown review: %v", err)
		}
		if err := db.PutPrepared(prepared("prep-1")); err != nil {
			t.Fatal(err)
		}
		if err := db.MarkPreparedUsed("prep-1", "../txn"); !errors.Is(err, ErrInvalid) {
			t.Fatalf("marking with an invalid txn: %v", err)
		}
		if err := db.MarkPreparedUsed("prep-1", "txn-1"); err != nil {
			t.Fatal(err)
		}
		if err := db.MarkPreparedUsed("prep-1", "txn-1"); err != nil {
			t.Fatalf("marking again with the same txn: %v", err)
		}
		if err := db.MarkPreparedUsed("prep-1", "txn-2"); !errors.Is(err, ErrUsedPrepared) || !strings.Contains(err.Error(), "txn-1") {
			t.Fatalf("marking with another txn: %v, want ErrUsedPrepared naming txn-1", err)
		}
		if p, err := db.PeekPrepared("prep-1"); err != nil || p.UsedBy != "txn-1" {
			t.Fatalf("after marks: %+v, %v", p, err)
		}
	})
}

func TestPurgeExpired(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		now := t0.Add(48 * time.Hour)
		put := func(id string, expires time.Time, usedBy string) {
			p := prepared(id)
			p.Expires, p.UsedBy = expires, usedBy
			if err := db.PutPrepared(p); err != nil {
				t.Fatal(err)
			}
		}
		put("prep-old", now.Add(-time.Hour), "")
		put("prep-boundary", now, "")
		put("prep-used-old", now.Add(-time.Minute), "txn-1")
		put("prep-live", now.Add(time.Nanosecond), "")
		put("prep-used-live", now.Add(time.Hour), "txn-2")
		n, err := db.PurgeExpired(now)
		if err != nil || n != 3 {
			t.Fatalf("PurgeExpired = %d, %v; want 3", n, err)
		}
		for _, id := range []string{"prep-old", "prep-boundary", "prep-used-old"} {
			if _, err := db.PeekPrepared(id); !errors.Is(err, ErrUnknownPrepared) {
				t.Errorf("%s survived the purge: %v", id, err)
			}
		}
		for _, id := range []string{"prep-live", "prep-used-live"} {
			if _, err := db.PeekPrepared(id); err != nil {
				t.Errorf("%s was purged: %v", id, err)
			}
		}
		if n, err := db.PurgeExpired(now); err != nil || n != 0 {
			t.Fatalf("second PurgeExpired = %d, %v; want 0", n, err)
		}
	})
}

// A purge reads the expired reviews alone, through the expiry index: a
// live review whose record is damaged is not read (PurgeExpiredFull, which
// reads every review, names it); a review whose expiry changed is purged
// at its new time, not its old one.
func TestPurgeExpiredReadsOnlyTheExpired(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		now := t0.Add(48 * time.Hour)
		for id, at := range map[string]time.Time{"prep-old": now.Add(-time.Hour), "prep-moved": now.Add(-time.Hour), "prep-live": now.Add(time.Hour)} {
			p := prepared(id)
			p.Expires = at
			if err := db.PutReview(p, nil); err != nil {
				t.Fatal(err)
			}
		}
		moved := prepared("prep-moved")
		moved.Expires = now.Add(2 * time.Hour)
		if err := db.PutReview(moved, nil); err != nil {
			t.Fatal(err)
		}
		plant(t, db, bucketPrepared, "prep-live", `{"id": "prep-live", "damaged": tru`)
		if n, err := db.PurgeExpired(now); err != nil || n != 1 {
			t.Fatalf("PurgeExpired = %d, %v; want 1, nil (the damaged live review is not read)", n, err)
		}
		if _, err := db.PeekPrepared("prep-old"); !errors.Is(err, ErrUnknownPrepared) {
			t.Errorf("prep-old survived the purge: %v", err)
		}
		if _, err := db.PeekPrepared("prep-moved"); err != nil {
			t.Errorf("prep-moved, whose expiry moved past now, was purged: %v", err)
		}
		if n, err := db.PurgeExpired(now.Add(3 * time.Hour)); err != nil || n != 2 {
			t.Fatalf("PurgeExpired 3 hours on = %d, %v; want 2 (prep-moved and the damaged prep-live, by their keys)", n, err)
		}
		plant(t, db, bucketPrepared, "prep-bad", `{"id": "prep-bad", "damaged": tru`)
		if _, err := db.PurgeExpiredFull(now); !errors.Is(err, ErrCorruptValue) || !strings.Contains(err.Error(), "prep-bad") {
			t.Fatalf("PurgeExpiredFull over a damaged review: %v, want ErrCorruptValue naming prep-bad", err)
		}
	})
}

// A purge that finds nothing expired writes nothing: no write
// transaction, whose commit would cost an fsync on every prepare.
func TestPurgeOfNothingWritesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		now := t0.Add(48 * time.Hour)
		p := prepared("prep-live")
		p.Expires = now.Add(time.Hour)
		if err := db.PutReview(p, nil); err != nil {
			t.Fatal(err)
		}
		before := writeTxns.Load()
		if n, err := db.PurgeExpired(now); err != nil || n != 0 {
			t.Fatalf("PurgeExpired = %d, %v; want 0", n, err)
		}
		if w := writeTxns.Load() - before; w != 0 {
			t.Fatalf("a purge of nothing ran %d write transactions, want 0", w)
		}
	})
}

// A purge deletes every expired review, purgeBatch of them a write
// transaction, the oldest first.
func TestPurgeExpiredInBatches(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		now := t0.Add(48 * time.Hour)
		for k := range purgeBatch + 5 {
			p := prepared(fmt.Sprintf("prep-%02d", k))
			p.Expires = now.Add(-time.Duration(purgeBatch+5-k) * time.Minute) // prep-00 expired first
			if err := db.PutReview(p, nil); err != nil {
				t.Fatal(err)
			}
		}
		before := writeTxns.Load()
		if n, err := db.PurgeExpired(now); err != nil || n != purgeBatch+5 {
			t.Fatalf("PurgeExpired = %d, %v; want %d", n, err, purgeBatch+5)
		}
		if w := writeTxns.Load() - before; w != 2 {
			t.Fatalf("the purge of %d reviews ran %d write transactions, want 2", purgeBatch+5, w)
		}
	})
}

// Reviews without an expiry key (a catalog from before the index, or an
// older graft's review stored since): the first purge of an unmarked
// catalog reads them all, and graft recover's full purge always does; a
// key whose review an older graft purged goes uncounted; a key of another
// shape stops the purge naming it.
func TestPurgeExpiredOfReviewsWithoutKeys(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		now := t0.Add(48 * time.Hour)
		older := func(id string, expires time.Time) { // as a graft before the index stored it
			p := prepared(id)
			p.Expires = expires
			raw, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			plant(t, db, bucketPrepared, id, string(raw))
		}
		if mark, _, err := db.GetMeta(expiryIndexed); err != nil || string(mark) != "1" {
			t.Fatalf("a new catalog is not marked indexed: %q, %v", mark, err)
		}
		if err := db.update("unmark", func(tx Tx) error { return tx.Delete(bucketMeta, expiryIndexed) }); err != nil {
			t.Fatal(err)
		}
		older("prep-a", now.Add(-time.Hour))
		older("prep-b", now.Add(time.Hour))
		if n, err := db.PurgeExpired(now); err != nil || n != 1 {
			t.Fatalf("the first purge of an unmarked catalog = %d, %v; want 1", n, err)
		}
		older("prep-c", now.Add(-time.Minute)) // an older graft beside this one
		if n, err := db.PurgeExpired(now); err != nil || n != 0 {
			t.Fatalf("an indexed purge = %d, %v; want 0 (prep-c has no key)", n, err)
		}
		if n, err := db.PurgeExpiredFull(now); err != nil || n != 1 {
			t.Fatalf("the full purge = %d, %v; want 1 (prep-c)", n, err)
		}
		if n, err := db.PurgeExpired(now.Add(2 * time.Hour)); err != nil || n != 1 {
			t.Fatalf("prep-b, indexed by the full purges, at its expiry = %d, %v; want 1", n, err)
		}
		plant(t, db, bucketPreparedExpiry, expiryKey(now, "prep-gone"), "prep-gone")
		if n, err := db.PurgeExpired(now); err != nil || n != 0 {
			t.Fatalf("a key without its review = %d, %v; want 0", n, err)
		}
		if n := countKeys(t, db, bucketPreparedExpiry); n != 0 {
			t.Fatalf("%d keys left in %s, want 0", n, bucketPreparedExpiry)
		}
		plant(t, db, bucketPreparedExpiry, "2026-03-04/prep-x", "prep-x")
		if _, err := db.PurgeExpired(now); !errors.Is(err, ErrCorruptValue) || !strings.Contains(err.Error(), "2026-03-04/prep-x") {
			t.Fatalf("a key of another shape: %v, want ErrCorruptValue naming it", err)
		}
	})
}

func countKeys(t *testing.T, db *DB, bucket string) int {
	t.Helper()
	n := 0
	err := db.view("counting", func(tx Tx) error {
		return tx.Each(bucket, "", func(string, []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLineage(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		if _, ok, err := db.GetNode("g1"); ok || err != nil {
			t.Fatalf("GetNode of a missing node = %v, %v", ok, err)
		}
		b := Node{Session: "g2-b", Parent: "g1", Generation: 2, Boundary: 40, Txn: "txn-b", TapeHash: "h-b", Committed: t0}
		a := Node{Session: "g2-a", Parent: "g1", Generation: 2, Boundary: 60, Txn: "txn-a", TapeHash: "h-a", Committed: t0.Add(time.Hour), Reverted: true}
		for _, n := range []Node{b, a, b} {
			if err := db.PutNode(n); err != nil {
				t.Fatal(err)
			}
		}
		parent, ok, err := db.GetNode("g1")
		want := Node{Session: "g1", Generation: 1, Children: []string{"g2-a", "g2-b"}}
		if err != nil || !ok || !reflect.DeepEqual(parent, want) {
			t.Fatalf("created parent = %+v, %v, %v\nwant %+v", parent, ok, err, want)
		}
		// A later upsert of the parent with its own data keeps its children.
		if err := db.PutNode(Node{Session: "g1", Generation: 1, Committed: t0.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if err := db.PutNode(Node{Session: "g3", Parent: "g2-b", Generation: 3, Txn: "txn-c", Committed: t0.Add(2 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		nodes, err := db.Nodes()
		if err != nil {
			t.Fatal(err)
		}
		b.Children = []string{"g3"}
		wantNodes := []Node{
			{Session: "g1", Generation: 1, Children: []string{"g2-a", "g2-b"}, Committed: t0.Add(-time.Hour)},
			a, b,
			{Session: "g3", Parent: "g2-b", Generation: 3, Txn: "txn-c", Committed: t0.Add(2 * time.Hour)},
		}
		if !reflect.DeepEqual(nodes, wantNodes) {
			t.Fatalf("Nodes =\n%+v\nwant\n%+v", nodes, wantNodes)
		}
	})
}

func TestPutNodeRefusesInvalid(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		for name, n := range map[string]Node{
			"session":        {Session: "", Generation: 1},
			"generation 0":   {Session: "s", Generation: 0},
			"parent id":      {Session: "s", Parent: "..", Generation: 2},
			"own parent":     {Session: "s", Parent: "s", Generation: 2},
			"child of gen 1": {Session: "s", Parent: "p", Generation: 1},
			"child id":       {Session: "s", Generation: 1, Children: []string{"a/b"}},
			"txn":            {Session: "s", Generation: 1, Txn: "t x"},
		} {
			if err := db.PutNode(n); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: PutNode(%+v) = %v, want ErrInvalid", name, n, err)
			}
		}
		if nodes, err := db.Nodes(); err != nil || len(nodes) != 0 {
			t.Fatalf("refused nodes were stored: %+v, %v", nodes, err)
		}
	})
}

func TestLeftovers(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		add := func(l Leftover) {
			t.Helper()
			if err := db.AddLeftover(l); err != nil {
				t.Fatal(err)
			}
		}
		first := Leftover{Source: "a", Target: "a-g2", Txn: "txn-2", State: "PREPARING", Reason: "crashed before the commit point", Recorded: t0}
		add(first)
		again := first
		again.Reason, again.Recorded = "second scan", t0.Add(time.Hour)
		add(again)
		add(Leftover{Source: "a", Target: "a-g2b", Txn: "txn-1", State: "TARGET_FLUSHED", Recorded: t0})
		add(Leftover{Source: "a.b", Target: "x", Txn: "txn-9", State: "COLD_VERIFIED", Recorded: t0})
		add(Leftover{Source: "ab", Target: "y", Txn: "txn-0", State: "PREPARING", Recorded: t0})

		got, err := db.Leftovers("a")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Txn != "txn-1" || !reflect.DeepEqual(got[1], first) {
			t.Fatalf("Leftovers(a) = %+v; want txn-1 then the first record of txn-2", got)
		}
		all, err := db.AllLeftovers()
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, l := range all {
			keys = append(keys, l.Source+"/"+l.Txn)
		}
		if want := []string{"a/txn-1", "a/txn-2", "a.b/txn-9", "ab/txn-0"}; !reflect.DeepEqual(keys, want) {
			t.Fatalf("AllLeftovers = %q, want %q", keys, want)
		}
		if none, err := db.Leftovers("zzz"); err != nil || len(none) != 0 {
			t.Fatalf("Leftovers of a clean source = %+v, %v", none, err)
		}
		if _, err := db.Leftovers("../a"); !errors.Is(err, ErrInvalid) {
			t.Fatalf("Leftovers(../a) = %v, want ErrInvalid", err)
		}
		if err := db.AddLeftover(Leftover{Source: "a", Target: "", Txn: "txn-3"}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("AddLeftover without target = %v, want ErrInvalid", err)
		}
	})
}

// scanIndexMagic starts a stored scan index (index/doc.go).
const scanIndexMagic = "graft-scanindex-v3\n"

// framed is a scan index value of rest (its header line and state) under
// the magic and a checksum that matches.
func framed(rest string) string {
	sum := sha256.Sum256([]byte(rest))
	return scanIndexMagic + "sha256:" + hex.EncodeToString(sum[:]) + "\n" + rest
}

func TestScanIndex(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		if _, ok, err := db.GetScanIndex("s"); ok || err != nil {
			t.Fatalf("missing scan index: %v, %v", ok, err)
		}
		// The state is stored as its bytes: newlines, NULs and the magic itself
		// inside it come back unchanged.
		in := index.ScanIndex{Session: "s", Dev: 2049, Ino: 123456, Offset: 1 << 33, Line: 99, NextSeq: 100, Check: "tail-v1:ab",
			State: append([]byte{0, 1, '\n', 2, 255, '\n'}, scanIndexMagic+"{\"x\":1}\n"...)}
		if err := db.PutScanIndex(in); err != nil {
			t.Fatal(err)
		}
		got, ok, err := db.GetScanIndex("s")
		if err != nil || !ok || !reflect.DeepEqual(got, in) {
			t.Fatalf("GetScanIndex = %+v, %v, %v", got, ok, err)
		}
		put := func(value string) {
			t.Helper()
			plant(t, db, bucketScanIndex, "s", value)
		}
		// A version-1 value (one JSON object, base64 state) reads as none: the
		// caller folds the log and stores a new one.
		put(`{"session":"s","dev":1,"ino":2,"offset":10,"line":2,"nextSeq":3,"check":"tail-v1:c","state":"AAE="}`)
		if got, ok, err := db.GetScanIndex("s"); ok || err != nil {
			t.Fatalf("version-1 scan index: %+v, %v, %v; want none", got, ok, err)
		}
		// Version 2 had no checksum: none too.
		put("graft-scanindex-v2\n" + `{"session":"s","dev":1,"ino":2,"offset":10,"line":2,"nextSeq":3,"check":"tail-v1:c"}` + "\nstate")
		if got, ok, err := db.GetScanIndex("s"); ok || err != nil {
			t.Fatalf("version-2 scan index: %+v, %v, %v; want none", got, ok, err)
		}
		for name, value := range map[string]string{
			"no magic":            "garbage",
			"no checksum line":    scanIndexMagic + `{"session":"s"}`,
			"no header line":      framed(`{"session":"s"}`),
			"bad header":          framed("{not json}\nstate"),
			"unknown field":       framed(`{"session":"s","extra":1}` + "\nstate"),
			"two values":          framed(`{"session":"s"}{}` + "\nstate"),
			"checksum of another": strings.Replace(framed(`{"session":"s"}`+"\nstate"), "state", "stat3", 1),
			"magic of another":    "graft-scanindex-v4\n{}\n",
		} {
			put(value)
			var ce *CorruptValueError
			if _, ok, err := db.GetScanIndex("s"); ok || !errors.As(err, &ce) || ce.Bucket != bucketScanIndex {
				t.Errorf("%s: GetScanIndex = %v, %v; want a CorruptValueError naming %s", name, ok, err, bucketScanIndex)
			}
		}
		for name, ix := range map[string]index.ScanIndex{
			"session":  {Session: "", Check: "c"},
			"negative": {Session: "s", Offset: -1, Check: "c"},
			"no check": {Session: "s", Offset: 10},
		} {
			if err := db.PutScanIndex(ix); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: PutScanIndex = %v, want ErrInvalid", name, err)
			}
		}
	})
}

// Seq marks live in index/<id>.seq alone: a value an older build left in
// bucket seqindex is read by nothing and dropped when the session's scan
// index is stored again.
func TestPutScanIndexDropsTheOldSeqIndex(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		for _, id := range []string{"s", "t"} {
			plant(t, db, bucketSeqIndex, id, `{"dev":7,"ino":8,"marks":[{"seq":1,"offset":0,"line":1}]}`)
		}
		if err := db.PutScanIndex(index.ScanIndex{Session: "s", Offset: 1, Line: 2, NextSeq: 2, Check: "tail-v1:x", State: []byte("state")}); err != nil {
			t.Fatal(err)
		}
		if s, t2 := hasSeqIndex(t, db, "s"), hasSeqIndex(t, db, "t"); s || !t2 {
			t.Fatalf("after the scan index of s: old seq index of s %v (want dropped), of t %v (want kept)", s, t2)
		}
	})
}

// hasSeqIndex reports whether bucket seqindex holds a value for id.
func hasSeqIndex(t *testing.T, db *DB, id string) bool {
	t.Helper()
	var ok bool
	err := db.view("test", func(tx Tx) error {
		v, err := tx.Get(bucketSeqIndex, id)
		ok = v != nil
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestMeta(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		if _, ok, err := db.GetMeta("last-recovery"); ok || err != nil {
			t.Fatalf("missing meta: %v, %v", ok, err)
		}
		in := []byte(`{"scanned":3}`)
		if err := db.PutMeta("last-recovery", in); err != nil {
			t.Fatal(err)
		}
		in[2] = 'X' // the caller's buffer is not the stored value
		got, ok, err := db.GetMeta("last-recovery")
		if err != nil || !ok || string(got) != `{"scanned":3}` {
			t.Fatalf("GetMeta = %q, %v, %v", got, ok, err)
		}
		if err := db.PutMeta("empty", []byte{}); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := db.GetMeta("empty"); err != nil || !ok || len(got) != 0 {
			t.Fatalf("empty meta value = %q, %v, %v; want found and empty", got, ok, err)
		}
		for _, key := range []string{"", FormatKey, "catalog.other"} {
			if err := db.PutMeta(key, []byte("x")); !errors.Is(err, ErrInvalid) {
				t.Errorf("PutMeta(%q) = %v, want ErrInvalid", key, err)
			}
		}
	})
}

// fill stores one value of every kind.
func fill(t *testing.T, db *DB) {
	t.Helper()
	for _, err := range []error{
		db.PutPrepared(prepared("prep-1")),
		db.PutNode(Node{Session: "g2", Parent: "g1", Generation: 2, Txn: "txn-1", Committed: t0}),
		db.AddLeftover(Leftover{Source: "g1", Target: "g2x", Txn: "txn-0", State: "PREPARING", Recorded: t0}),
		db.PutScanIndex(index.ScanIndex{Session: "g1", Offset: 10, Line: 2, NextSeq: 3, Check: "tail-v1:c", State: []byte("snap")}),
		db.update("planting an old seq index", func(tx Tx) error {
			return tx.Put(bucketSeqIndex, "g1", []byte(`{"dev":1,"ino":2,"marks":[]}`))
		}),
		db.PutMeta("last-recovery", []byte("ok")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

type snapshot struct {
	prepared  Prepared
	nodes     []Node
	leftovers []Leftover
	scan      index.ScanIndex
	scanOK    bool
	seqOK     bool
	meta      []byte
}

func read(t *testing.T, db *DB) snapshot {
	t.Helper()
	var s snapshot
	var err error
	if s.prepared, err = db.PeekPrepared("prep-1"); err != nil {
		t.Fatal(err)
	}
	if s.nodes, err = db.Nodes(); err != nil {
		t.Fatal(err)
	}
	if s.leftovers, err = db.AllLeftovers(); err != nil {
		t.Fatal(err)
	}
	if s.scan, s.scanOK, err = db.GetScanIndex("g1"); err != nil {
		t.Fatal(err)
	}
	s.seqOK = hasSeqIndex(t, db, "g1")
	if s.meta, _, err = db.GetMeta("last-recovery"); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestValuesSurviveReopen(t *testing.T) {
	eachStore(t, func(t *testing.T, reopen func() *DB) {
		db := reopen()
		fill(t, db)
		before := read(t, db)
		closeDB(t, db)
		db = reopen()
		defer closeDB(t, db)
		after := read(t, db)
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("after reopen:\n%+v\nwant\n%+v", after, before)
		}
		if len(after.nodes) != 2 || len(after.leftovers) != 1 || !after.scanOK || !after.seqOK || string(after.meta) != "ok" {
			t.Fatalf("fill did not store everything: %+v", after)
		}
	})
}

func TestClearDerivedKeepsPreparedAndMeta(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		fill(t, db)
		before := read(t, db)
		if err := db.ClearDerived(); err != nil {
			t.Fatal(err)
		}
		after := read(t, db)
		if !reflect.DeepEqual(after.prepared, before.prepared) || string(after.meta) != "ok" {
			t.Fatalf("ClearDerived lost prepared or meta: %+v", after)
		}
		if len(after.nodes) != 0 || len(after.leftovers) != 0 || after.scanOK || after.seqOK {
			t.Fatalf("ClearDerived kept derived values: %+v", after)
		}
		if v, ok, err := db.GetMeta(FormatKey); err != nil || !ok || string(v) != Format {
			t.Fatalf("format mark after ClearDerived: %q, %v, %v", v, ok, err)
		}
		// The buckets are usable again.
		fill(t, db)
	})
}

func TestCorruptValueNamesBucketAndKey(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		fill(t, db)
		plant(t, db, "lineage", "g1", `{"session":"g1","generation":"one"}`)
		_, _, err := db.GetNode("g1")
		var ce *CorruptValueError
		if !errors.As(err, &ce) || !errors.Is(err, ErrCorruptValue) || ce.Bucket != "lineage" || ce.Key != "g1" {
			t.Fatalf("GetNode of a corrupt value = %v", err)
		}
		if _, err := db.Nodes(); !errors.Is(err, ErrCorruptValue) {
			t.Fatalf("Nodes with a corrupt value = %v", err)
		}
		if err := db.PutNode(Node{Session: "g3", Parent: "g1", Generation: 2}); !errors.Is(err, ErrCorruptValue) {
			t.Fatalf("PutNode under a corrupt parent = %v, want the corruption reported", err)
		}
	})
}

// The doc's rule: a value with an unknown field or with anything after it
// is corrupt, named by bucket and key, never half-read.
func TestCorruptValueShapes(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{"unknown field", `{"session":"g1","generation":1,"colour":"red"}`},
		{"a second value", `{"session":"g1","generation":1} {"session":"g1","generation":1}`},
		{"a stray closing brace", `{"session":"g1","generation":1}}`},
		{"a stray closing bracket", `{"session":"g1","generation":1}]`},
		{"not JSON", `session=g1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			eachBackend(t, func(t *testing.T, db *DB) {
				plant(t, db, "lineage", "g1", c.value)
				_, _, err := db.GetNode("g1")
				var ce *CorruptValueError
				if !errors.As(err, &ce) || ce.Bucket != "lineage" || ce.Key != "g1" || ce.Path != db.Path() {
					t.Fatalf("GetNode of %s = %v, want a CorruptValueError naming %s, lineage/g1", c.value, err, db.Path())
				}
			})
		})
	}
}

func TestRecordCommitWritesLineageAndUsedInOneGo(t *testing.T) {
	eachStore(t, func(t *testing.T, reopen func() *DB) {
		recordCommitInOneGo(t, reopen)
	})
}

func recordCommitInOneGo(t *testing.T, reopen func() *DB) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	err := withDB(reopen, func(db *DB) error {
		if err := db.PutPrepared(Prepared{ID: "p1", Source: "s", Created: now, Expires: now.Add(time.Hour)}); err != nil {
			return err
		}
		if err := db.RecordCommit(Node{Session: "s.g2", Parent: "s", Generation: 2, Txn: "t1"}, "p1", "t1"); err != nil {
			return err
		}
		// A purged review is not an error; a review used by another txn is.
		if err := db.RecordCommit(Node{Session: "s.g3", Parent: "s", Generation: 2, Txn: "t2"}, "gone", "t2"); err != nil {
			return fmt.Errorf("unknown review: %w", err)
		}
		if err := db.RecordCommit(Node{Session: "s.g4", Parent: "s", Generation: 2, Txn: "t3"}, "p1", "t3"); !errors.Is(err, ErrUsedPrepared) {
			return fmt.Errorf("review used by t1, recorded for t3: %v, want ErrUsedPrepared", err)
		}
		if _, ok, _ := db.GetNode("s.g4"); ok {
			return errors.New("a refused RecordCommit still wrote its lineage node")
		}
		n, ok, err := db.GetNode("s")
		if err != nil || !ok || !slices.Equal(n.Children, []string{"s.g2", "s.g3"}) {
			return fmt.Errorf("parent node %+v %v %v, want children s.g2 s.g3", n, ok, err)
		}
		_, err = db.GetPrepared("p1", now)
		if !errors.Is(err, ErrUsedPrepared) {
			return fmt.Errorf("p1 after RecordCommit: %v, want used", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Each write transaction counts once, with its page writes (at least a
// data page and the meta page); reads count nothing.
func TestWriteStats(t *testing.T) {
	db := open(t, newHome(t))
	defer closeDB(t, db)
	before := ReadWriteStats()
	if err := db.PutScanIndex(index.ScanIndex{Session: "s", Offset: 1, Line: 2, NextSeq: 2, Check: "tail-v1:x", State: []byte("state")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.GetScanIndex("s"); err != nil {
		t.Fatal(err)
	}
	d := ReadWriteStats()
	if d.Txns-before.Txns != 1 || d.PageWrites-before.PageWrites < 2 {
		t.Fatalf("one put and one get counted %d transactions, %d page writes; want 1 and ≥ 2", d.Txns-before.Txns, d.PageWrites-before.PageWrites)
	}
}

// A sealed review is stored with its tape in one transaction; the tape
// goes with the review when it expires, and a review stored again
// without a seal loses it.
func TestSealedReviewKeepsItsTape(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		p := prepared("prep-sealed")
		p.Seal = &index.Seal{Dev: 1, Ino: 2, End: 300, LastSeq: 9, Check: "tail-v1:ab", Info: json.RawMessage(`{"id":"src"}`)}
		tape := []byte(`{"text":"[graft:tape 1] x"}`)
		if err := db.PutReview(p, nil); !errors.Is(err, ErrInvalid) {
			t.Fatalf("a sealed review without its tape: %v, want ErrInvalid", err)
		}
		unsealed := prepared("prep-plain")
		if err := db.PutReview(unsealed, tape); !errors.Is(err, ErrInvalid) {
			t.Fatalf("a tape without a seal: %v, want ErrInvalid", err)
		}
		if err := db.PutReview(p, tape); err != nil {
			t.Fatal(err)
		}
		got, err := db.PeekPrepared(p.ID)
		if err != nil || !reflect.DeepEqual(got.Seal, p.Seal) {
			t.Fatalf("PeekPrepared seal %+v, %v; want %+v", got.Seal, err, p.Seal)
		}
		if b, ok, err := db.PreparedTape(p.ID); err != nil || !ok || string(b) != string(tape) {
			t.Fatalf("PreparedTape = %q, %v, %v", b, ok, err)
		}
		if _, ok, err := db.PreparedTape("prep-none"); ok || err != nil {
			t.Fatalf("PreparedTape of an unknown review: %v, %v", ok, err)
		}
		// Stored again with its seal: the tape stays; without: it goes.
		if err := db.PutPrepared(p); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := db.PreparedTape(p.ID); !ok || err != nil {
			t.Fatalf("a sealed review stored again lost its tape: %v, %v", ok, err)
		}
		p2 := p
		p2.Seal = nil
		if err := db.PutPrepared(p2); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := db.PreparedTape(p.ID); ok || err != nil {
			t.Fatalf("an unsealed review kept a tape: %v, %v", ok, err)
		}
		// Expired: the review and its tape go.
		if err := db.PutReview(p, tape); err != nil {
			t.Fatal(err)
		}
		if n, err := db.PurgeExpired(p.Expires); n != 1 || err != nil {
			t.Fatalf("PurgeExpired = %d, %v", n, err)
		}
		if _, ok, err := db.PreparedTape(p.ID); ok || err != nil {
			t.Fatalf("an expired review's tape survived: %v, %v", ok, err)
		}
	})
}
