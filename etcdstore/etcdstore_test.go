package etcdstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/etcdstore"
	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/catalogtest"
	"github.com/graft-project/graft/internal/etcdtest"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
)

// cluster is one single-member cluster for the package's tests; each test
// takes its own prefix.
var (
	clusterOnce sync.Once
	cluster     *etcdtest.Cluster
	clusterErr  error
	clusterDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		cluster.Close()
	}
	if clusterDir != "" {
		os.RemoveAll(clusterDir)
	}
	os.Exit(code)
}

func open(t *testing.T, prefix string) *etcdstore.Store {
	t.Helper()
	clusterOnce.Do(func() {
		clusterDir, clusterErr = os.MkdirTemp("", "etcdstore-test-")
		if clusterErr == nil {
			cluster, clusterErr = etcdtest.Start(clusterDir, 1)
		}
	})
	if clusterErr != nil {
		t.Fatalf("starting the cluster: %v", clusterErr)
	}
	cfg, err := etcdstore.ParseURL(cluster.URL(prefix) + "?lease=2s&timeout=3s")
	if err != nil {
		t.Fatal(err)
	}
	s, err := etcdstore.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestLocksAreExclusiveAndDieWithTheLease(t *testing.T) {
	a, b := open(t, "locks"), open(t, "locks")
	la, err := a.TryLock("s1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.TryLock("s1"); !errors.Is(err, txn.ErrLocked) {
		t.Fatalf("second worker TryLock = %v, want ErrLocked", err)
	}
	if _, err := a.TryLock("s1"); !errors.Is(err, txn.ErrLocked) {
		t.Fatalf("same worker TryLock again = %v, want ErrLocked", err)
	}
	if _, err := b.TryLock("../x"); err == nil {
		t.Fatal("TryLock took an invalid name")
	}
	if err := la.Unlock(); err != nil {
		t.Fatal(err)
	}
	lb, err := b.TryLock("s1")
	if err != nil {
		t.Fatalf("after Unlock: %v", err)
	}
	// The lease's end releases it: a worker that dies holds nothing.
	cli, err := cluster.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Revoke(context.Background(), b.Lease()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.TryLock("s1"); err != nil {
		t.Fatalf("after b's lease was revoked: %v", err)
	}
	if err := lb.Unlock(); err != nil {
		t.Fatalf("Unlock of a lock whose lease is gone: %v", err)
	}
	start := time.Now()
	l, err := b.WaitLock("s1", 300*time.Millisecond, 20*time.Millisecond)
	if !errors.Is(err, txn.ErrLocked) || l != nil {
		t.Fatalf("WaitLock of a held lock = %v, %v", l, err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 3*time.Second {
		t.Errorf("WaitLock gave up after %v, want about 300ms", d)
	}
}

func record(txnID string, state journal.State) journal.Record {
	return journal.Record{Txn: txnID, Kind: journal.KindGraft, State: state, Source: "src", Target: "tgt", TapeHash: "h", TapeEvents: 2, TargetBytes: 10, TapeDigest: "sha256:x", BoundarySeq: 5, Generation: 2}
}

func lockPair(t *testing.T, s *etcdstore.Store) {
	t.Helper()
	for _, n := range []string{"tgt", "src"} {
		if _, err := s.TryLock(n); err != nil {
			t.Fatal(err)
		}
	}
}

func TestJournalWritesAreFencedOnTheLocks(t *testing.T) {
	a, b := open(t, "fence"), open(t, "fence")
	j := a.Journal()
	if err := j.Write(record("txn-1", journal.Preparing)); !errors.Is(err, etcdstore.ErrFenced) {
		t.Fatalf("Write without the locks = %v, want ErrFenced", err)
	}
	lockPair(t, a)
	if err := j.Write(record("txn-1", journal.Preparing)); err != nil {
		t.Fatal(err)
	}
	if err := j.Write(record("txn-1", journal.Committed)); !errors.Is(err, journal.ErrInvalidRecord) {
		t.Fatalf("Write(COMMITTED) = %v, want ErrInvalidRecord: only Decide writes it", err)
	}
	if err := j.Write(record("txn-1", journal.ColdVerified)); err != nil {
		t.Fatal(err)
	}
	// The worker is paused past its lease: another takes the locks.
	cli, err := cluster.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Revoke(context.Background(), a.Lease()); err != nil {
		t.Fatal(err)
	}
	lockPair(t, b)
	if decided, err := a.Decide(record("txn-1", journal.ColdVerified)); decided || !errors.Is(err, etcdstore.ErrFenced) {
		t.Fatalf("Decide after the lease expired = %v, want ErrFenced", err)
	}
	if err := j.Write(record("txn-1", journal.TargetFlushed)); !errors.Is(err, etcdstore.ErrFenced) {
		t.Fatalf("Write after the lease expired = %v, want ErrFenced", err)
	}
	if err := j.Remove("txn-1"); !errors.Is(err, etcdstore.ErrFenced) {
		t.Fatalf("Remove after the lease expired = %v, want ErrFenced", err)
	}
	got, err := b.Journal().Read("txn-1")
	if err != nil || got.State != journal.ColdVerified {
		t.Fatalf("the record after the fenced writes = %+v, %v; want COLD_VERIFIED", got, err)
	}
	// The new holder decides; the record says COMMITTED.
	if decided, err := b.Decide(got); err != nil || !decided {
		t.Fatal(err)
	}
	if got, err = b.Journal().Read("txn-1"); err != nil || got.State != journal.Committed {
		t.Fatalf("after Decide = %+v, %v", got, err)
	}
	if decided, err := b.Decide(got); err != nil || !decided {
		t.Fatalf("Decide again = %v, want nil (idempotent)", err)
	}
	scan, err := b.Journal().Scan()
	if err != nil || len(scan.Records) != 1 || scan.Records[0].Txn != "txn-1" {
		t.Fatalf("Scan = %+v, %v", scan, err)
	}
	if err := b.Journal().Remove("txn-1"); err != nil {
		t.Fatal(err)
	}
	if err := b.Journal().Remove("txn-1"); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("Remove of a removed record = %v, want ErrNotFound", err)
	}
	if _, err := b.Journal().Read("txn-1"); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("Read after Remove = %v", err)
	}
}

func TestCorruptRecordIsReportedAndKept(t *testing.T) {
	s := open(t, "corrupt")
	cli := s.Client()
	if _, err := cli.Put(context.Background(), s.Config().Prefix+"/txn/txn-bad", "{not json"); err != nil {
		t.Fatal(err)
	}
	scan, err := s.Journal().Scan()
	if err != nil {
		t.Fatal(err)
	}
	if len(scan.Records) != 0 || len(scan.Corrupt) != 1 || !strings.HasSuffix(scan.Corrupt[0].Path, "/txn/txn-bad") {
		t.Fatalf("Scan = %+v", scan)
	}
	var ce *journal.CorruptRecordError
	if _, err := s.Journal().Read("txn-bad"); !errors.As(err, &ce) {
		t.Fatalf("Read = %v, want CorruptRecordError", err)
	}
	if resp, err := cli.Get(context.Background(), s.Config().Prefix+"/txn/txn-bad"); err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("the corrupt record was not kept: %v", err)
	}
}

func TestCatalogOnEtcd(t *testing.T) {
	s := open(t, "catalog")
	c := s.Catalog()
	now := time.Now().UTC().Truncate(time.Second)
	err := c.With(func(db *catalog.DB) error {
		if err := db.PutNode(catalog.Node{Session: "a", Generation: 1, Committed: now}); err != nil {
			return err
		}
		if err := db.PutNode(catalog.Node{Session: "b", Parent: "a", Generation: 2, Txn: "txn-1", Committed: now}); err != nil {
			return err
		}
		if err := db.AddLeftover(catalog.Leftover{Source: "a", Target: "c", Txn: "txn-0", State: "PREPARING", Reason: "crash", Recorded: now}); err != nil {
			return err
		}
		return db.PutMeta("last-recovery", []byte(`{"x":1}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	err = c.View(func(db *catalog.DB) error {
		nodes, err := db.Nodes()
		if err != nil {
			return err
		}
		if len(nodes) != 2 || nodes[0].Session != "a" || nodes[1].Parent != "a" {
			return fmt.Errorf("Nodes = %+v", nodes)
		}
		if n, ok, err := db.GetNode("a"); err != nil || !ok || len(n.Children) != 1 || n.Children[0] != "b" {
			return fmt.Errorf("GetNode(a) = %+v, %v, %v: want child b", n, ok, err)
		}
		lo, err := db.Leftovers("a")
		if err != nil || len(lo) != 1 || lo[0].Target != "c" {
			return fmt.Errorf("Leftovers = %+v, %v", lo, err)
		}
		if v, ok, err := db.GetMeta("last-recovery"); err != nil || !ok || string(v) != `{"x":1}` {
			return fmt.Errorf("GetMeta = %q, %v, %v", v, ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.With(func(db *catalog.DB) error { return db.ClearDerived() }); err != nil {
		t.Fatal(err)
	}
	err = c.View(func(db *catalog.DB) error {
		nodes, err := db.Nodes()
		if err != nil || len(nodes) != 0 {
			return fmt.Errorf("Nodes after ClearDerived = %+v, %v", nodes, err)
		}
		if _, ok, err := db.GetMeta("last-recovery"); err != nil || !ok {
			return fmt.Errorf("ClearDerived dropped meta: %v, %v", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Two workers updating the catalog at once lose nothing: each update
// commits only if what it read is unchanged, else runs again.
// A purge lists a range and deletes in one update: on etcd its compare on
// the listed range must be one etcd has (it once was "<=", which the
// client refuses with a panic). Both purges, the indexed one and graft
// recover's full one, delete the expired reviews and keep the live.
func TestPurgeOnEtcd(t *testing.T) {
	s := open(t, "purge")
	c := s.Catalog()
	now := time.Now().UTC().Truncate(time.Second)
	review := func(id string, expires time.Time) catalog.Prepared {
		return catalog.Prepared{ID: id, Source: "src", Budget: 16000, Review: json.RawMessage(`{}`), Created: now.Add(-time.Hour), Expires: expires}
	}
	err := c.With(func(db *catalog.DB) error {
		for _, p := range []catalog.Prepared{review("prep-old", now.Add(-time.Minute)), review("prep-old2", now.Add(-time.Second)), review("prep-live", now.Add(time.Hour))} {
			if err := db.PutReview(p, nil); err != nil {
				return err
			}
		}
		if n, err := db.PurgeExpired(now); err != nil || n != 2 {
			return fmt.Errorf("PurgeExpired = %d, %v; want 2", n, err)
		}
		if err := db.PutReview(review("prep-old3", now.Add(-time.Second)), nil); err != nil {
			return err
		}
		if n, err := db.PurgeExpiredFull(now); err != nil || n != 1 {
			return fmt.Errorf("PurgeExpiredFull = %d, %v; want 1", n, err)
		}
		if _, err := db.PeekPrepared("prep-live"); err != nil {
			return fmt.Errorf("the live review was purged: %w", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A request the cluster answers with a refusal (here: larger than its
// request limit) is ErrRefused naming etcd's reason, not ErrUnavailable:
// the cluster is up, a retry would be refused again, and nothing was
// written.
func TestARefusedRequestIsNotUnavailability(t *testing.T) {
	s := open(t, "refused")
	big := bytes.Repeat([]byte("x"), 1800<<10) // etcd refuses requests past 1.5 MiB by default (the client, past 2 MiB)
	err := s.Catalog().With(func(db *catalog.DB) error { return db.PutMeta("big", big) })
	if !errors.Is(err, etcdstore.ErrRefused) || errors.Is(err, etcdstore.ErrUnavailable) || !strings.Contains(err.Error(), "request is too large") {
		t.Fatalf("a request past etcd's limit: %v; want ErrRefused naming etcd's reason, not ErrUnavailable", err)
	}
	err = s.Catalog().View(func(db *catalog.DB) error {
		if _, ok, err := db.GetMeta("big"); err != nil || ok {
			return fmt.Errorf("after the refusal: GetMeta = %v, %v; want absent", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("the store after a refusal: %v", err)
	}
}

// The catalog's Backend contract (internal/catalogtest) on etcd: what the
// catalog relies on of bbolt holds on the cluster too (a range listed then
// written, puts into a cleared bucket).
func TestCatalogBackendContractOnEtcd(t *testing.T) {
	s := open(t, "contract")
	catalogtest.BackendContract(t, s.CatalogBackend(), catalogtest.Buckets{Main: "leftovers", Other: "meta", Absent: "lineage"})
}

// Many reviews expired at once (a home idle past the reviews' day): the
// purge takes them all, purgeBatch a transaction, none too large for etcd
// (a transaction that compared every review it read failed for good).
func TestPurgeOfManyExpiredOnEtcd(t *testing.T) {
	s := open(t, "purge-many")
	now := time.Now().UTC().Truncate(time.Second)
	const n = 150
	err := s.Catalog().With(func(db *catalog.DB) error {
		for k := range n {
			p := catalog.Prepared{ID: fmt.Sprintf("prep-%03d", k), Source: "src", Budget: 16000, Review: json.RawMessage(`{}`), Created: now.Add(-25 * time.Hour), Expires: now.Add(-time.Hour)}
			if err := db.PutReview(p, nil); err != nil {
				return err
			}
		}
		if got, err := db.PurgeExpired(now); err != nil || got != n {
			return fmt.Errorf("PurgeExpired = %d, %v; want %d", got, err, n)
		}
		// graft recover's full purge takes them all at once, in as many
		// etcd transactions as its deletes need, and indexes the live.
		for k := range n + 5 {
			expires := now.Add(-time.Hour)
			if k >= n {
				expires = now.Add(time.Hour)
			}
			p := catalog.Prepared{ID: fmt.Sprintf("prep-full-%03d", k), Source: "src", Budget: 16000, Review: json.RawMessage(`{}`), Created: now.Add(-25 * time.Hour), Expires: expires}
			if err := db.PutReview(p, nil); err != nil {
				return err
			}
		}
		if got, err := db.PurgeExpiredFull(now); err != nil || got != n {
			return fmt.Errorf("PurgeExpiredFull = %d, %v; want %d", got, err, n)
		}
		if got, err := db.PurgeExpired(now.Add(2 * time.Hour)); err != nil || got != 5 {
			return fmt.Errorf("the live five at their expiry = %d, %v; want 5", got, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCatalogUpdatesOfTwoWorkers(t *testing.T) {
	a, b := open(t, "catalog2"), open(t, "catalog2")
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for w, s := range []*etcdstore.Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				errs <- s.Catalog().With(func(db *catalog.DB) error {
					return db.AddLeftover(catalog.Leftover{Source: "s", Target: fmt.Sprintf("t%d", w), Txn: fmt.Sprintf("txn-%d-%02d", w, i), State: "PREPARING", Reason: "x", Recorded: time.Now().UTC()})
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n int
	err := a.Catalog().View(func(db *catalog.DB) error {
		lo, err := db.Leftovers("s")
		n = len(lo)
		return err
	})
	if err != nil || n != 40 {
		t.Fatalf("leftovers = %d, %v; want 40", n, err)
	}
}

// Read-modify-write of one key by two workers at once: every child lands in
// the parent's node (an update that lost the race ran again).
func TestCatalogConflictingUpdatesLoseNothing(t *testing.T) {
	a, b := open(t, "catalog3"), open(t, "catalog3")
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for w, s := range []*etcdstore.Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				errs <- s.Catalog().With(func(db *catalog.DB) error {
					return db.PutNode(catalog.Node{Session: fmt.Sprintf("c%d-%02d", w, i), Parent: "p", Generation: 2, Committed: time.Now().UTC()})
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n catalog.Node
	err := b.Catalog().View(func(db *catalog.DB) error {
		var err error
		n, _, err = db.GetNode("p")
		return err
	})
	if err != nil || len(n.Children) != 40 {
		t.Fatalf("the parent has %d children, %v; want 40 (an update was lost)", len(n.Children), err)
	}
}

func TestUnreachableClusterIsABoundedError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	cfg, err := etcdstore.ParseURL("etcd://" + addr + "/p?timeout=500ms")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s, err := etcdstore.Open(cfg)
	if !errors.Is(err, etcdstore.ErrUnavailable) || s != nil {
		t.Fatalf("Open = %v, %v; want ErrUnavailable", s, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Open took %v to fail, want about 500ms", d)
	}
	if !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "majority") {
		t.Errorf("the error does not name the endpoint and what to do: %v", err)
	}
}

func TestFormatOfThePrefix(t *testing.T) {
	s := open(t, "format")
	if _, err := s.Client().Put(context.Background(), "/format2/format", "something-else"); err != nil {
		t.Fatal(err)
	}
	cfg := s.Config()
	cfg.Prefix = "/format2"
	if _, err := etcdstore.Open(cfg); !errors.Is(err, etcdstore.ErrFormat) {
		t.Fatalf("Open of a prefix of another format = %v, want ErrFormat", err)
	}
}

func TestHomeClaims(t *testing.T) {
	cfg, err := etcdstore.ParseURL("etcd://127.0.0.1:2379/team")
	if err != nil {
		t.Fatal(err)
	}
	fsys := vfs.Default

	fresh := t.TempDir()
	if err := etcdstore.ClaimHome(fsys, fresh, cfg); err != nil {
		t.Fatal(err)
	}
	if err := etcdstore.ClaimHome(fsys, fresh, cfg); err != nil {
		t.Fatalf("claiming again: %v", err)
	}
	if err := etcdstore.CheckFileHome(fsys, fresh); !errors.Is(err, etcdstore.ErrHome) || !strings.Contains(err.Error(), "--store") {
		t.Fatalf("CheckFileHome of an etcd home = %v, want ErrHome naming --store", err)
	}
	other := cfg
	other.Prefix = "/other"
	if err := etcdstore.ClaimHome(fsys, fresh, other); !errors.Is(err, etcdstore.ErrHome) || !strings.Contains(err.Error(), "/team") {
		t.Fatalf("ClaimHome for another prefix = %v, want ErrHome naming /team", err)
	}

	// An empty or foreign marker is no binding to trust: refused, named.
	emptyMarker := t.TempDir()
	if err := os.WriteFile(filepath.Join(emptyMarker, etcdstore.MarkerName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := etcdstore.CheckFileHome(fsys, emptyMarker); !errors.Is(err, etcdstore.ErrHome) || !strings.Contains(err.Error(), etcdstore.MarkerName) {
		t.Fatalf("CheckFileHome with an empty marker = %v, want ErrHome naming it", err)
	}

	withCatalog := t.TempDir()
	if err := os.WriteFile(filepath.Join(withCatalog, catalog.FileName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := etcdstore.ClaimHome(fsys, withCatalog, cfg); !errors.Is(err, etcdstore.ErrHome) || !strings.Contains(err.Error(), "catalog.db") {
		t.Fatalf("ClaimHome of a file-store home = %v, want ErrHome naming catalog.db", err)
	}
	withRecord := t.TempDir()
	if err := os.MkdirAll(filepath.Join(withRecord, journal.DirName), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(withRecord, journal.DirName, "txn-1.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := etcdstore.ClaimHome(fsys, withRecord, cfg); !errors.Is(err, etcdstore.ErrHome) || !strings.Contains(err.Error(), "txn-1.json") {
		t.Fatalf("ClaimHome of a home with a record in .txn/ = %v", err)
	}
	if err := etcdstore.CheckFileHome(fsys, withRecord); err != nil {
		t.Fatalf("CheckFileHome of a file-store home = %v", err)
	}
	if _, err := os.Stat(filepath.Join(withRecord, etcdstore.MarkerName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused claim marked the home: %v", err)
	}
}

// A service on the etcd store runs the whole graft: prepare on one worker,
// commit on another, revert; the home gets no catalog.db and no .txn/.
func TestServiceOnEtcd(t *testing.T) {
	open(t, "svc") // starts the cluster
	home := t.TempDir()
	url := cluster.URL("svc") + "?lease=2s&timeout=3s"
	w1, err := graft.Open(home, graft.Options{Store: url})
	if err != nil {
		t.Fatal(err)
	}
	defer w1.Close()
	w2, err := graft.Open(home, graft.Options{Store: url})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if _, err := w1.Generate("src", gen.Options{Turns: 6, Events: 200, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rev, err := w1.Prepare(ctx, "src", graft.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := w2.Commit(ctx, rev.PreparedID, rev.TapeHash, "tgt")
	if err != nil {
		t.Fatalf("commit on the other worker: %v", err)
	}
	if len(res.Notes) > 0 {
		t.Logf("notes: %v", res.Notes)
	}
	if _, err := w1.Commit(ctx, rev.PreparedID, rev.TapeHash, "tgt2"); !errors.Is(err, catalog.ErrUsedPrepared) && !errors.Is(err, txn.ErrAlreadyGrafted) {
		t.Fatalf("a second commit of the review = %v, want used_prepared or already_grafted", err)
	}
	st, err := w1.Status()
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, ss := range st.Sessions {
		states[ss.ID] = ss.State
	}
	if states["src"] != "retired" || states["tgt"] != "active" || len(st.Pending) != 0 {
		t.Fatalf("status = %v, pending %v", states, st.Pending)
	}
	if !strings.HasPrefix(st.Store, "etcd://") || !strings.Contains(st.Store, "/svc?lease=2s") {
		t.Errorf("status says the store is %q, want this etcd URL", st.Store)
	}
	fileSvc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fst, err := fileSvc.Status()
	if err != nil {
		t.Fatal(err)
	}
	if fst.Store != "file" {
		t.Errorf("a file-store status says the store is %q, want file", fst.Store)
	}
	// The export's binding is on the cluster, seen by the other worker.
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	ex, err := w2.Export("tgt", hosts.ClaudeCode, t.TempDir())
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	all, err := w1.Bindings().List()
	if err != nil || len(all) != 1 || all[0].HostSessionID != ex.HostSessionID || all[0].Session != "tgt" {
		t.Fatalf("bindings seen by the other worker = %+v, %v; want the export's %s", all, err, ex.HostSessionID)
	}
	if _, err := os.Stat(filepath.Join(home, "hosts")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the etcd store wrote bindings in the home: %v", err)
	}
	if _, err := w1.Revert("tgt", false); err != nil {
		t.Fatalf("revert: %v", err)
	}
	if st, err = w2.Status(); err != nil {
		t.Fatal(err)
	}
	for _, ss := range st.Sessions {
		states[ss.ID] = ss.State
	}
	if states["src"] != "active" {
		t.Fatalf("after revert: %v", states)
	}
	for _, name := range []string{catalog.FileName, journal.DirName} {
		if _, err := os.Stat(filepath.Join(home, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the etcd store made %s in the home: %v", name, err)
		}
	}
	// The file store refuses the home now.
	if _, err := graft.Open(home, graft.Options{}); !errors.Is(err, etcdstore.ErrHome) {
		t.Fatalf("file store on an etcd home: %v", err)
	}
}

func TestBindingsOnEtcd(t *testing.T) {
	s := open(t, "bindings")
	b := s.Bindings()
	id := "0b6f3f0e-8f1c-4a8e-9a0e-2f7f2a6f1c11"
	if _, err := b.Load(hosts.Codex, id); !errors.Is(err, hosts.ErrNoBinding) {
		t.Fatalf("Load of none = %v, want ErrNoBinding", err)
	}
	if err := b.Save(&hosts.Binding{Host: hosts.Codex, HostSessionID: id, Session: "s1", Role: hosts.RoleExported}); err != nil {
		t.Fatal(err)
	}
	if err := b.Save(&hosts.Binding{Host: hosts.Codex, HostSessionID: "not-a-uuid", Session: "s1"}); err == nil {
		t.Fatal("Save took a bad host session id")
	}
	got, err := b.Load(hosts.Codex, id)
	if err != nil || got.Session != "s1" || got.Version != hosts.BindingVersion {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	// A value changed in etcd that still reads as a binding (another
	// session) is refused by its checksum, never followed.
	key := s.Config().Prefix + "/hosts/codex/" + id
	resp, err := s.Client().Get(context.Background(), key)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("get %s: %v", key, err)
	}
	changed := strings.Replace(string(resp.Kvs[0].Value), `"session": "s1"`, `"session": "s2"`, 1)
	if changed == string(resp.Kvs[0].Value) {
		t.Fatalf("no session in %s", resp.Kvs[0].Value)
	}
	if _, err := s.Client().Put(context.Background(), key, changed); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Load(hosts.Codex, id); !errors.Is(err, hosts.ErrBadBinding) || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("Load of a changed value = %+v, %v; want ErrBadBinding by its checksum", got, err)
	}
	if _, err := s.Client().Put(context.Background(), key, string(resp.Kvs[0].Value)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client().Put(context.Background(), s.Config().Prefix+"/hosts/codex/ffffffff-8f1c-4a8e-9a0e-2f7f2a6f1c11", "{"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.List(); !errors.Is(err, hosts.ErrBadBinding) || !strings.Contains(err.Error(), "ffffffff") {
		t.Fatalf("List with a damaged value = %v, want ErrBadBinding naming its key", err)
	}
}

// WaitLock takes a lock as soon as its holder releases it.
func TestWaitLockTakesAReleasedLock(t *testing.T) {
	a, b := open(t, "waitlock"), open(t, "waitlock")
	la, err := a.TryLock("w")
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		released <- la.Unlock()
	}()
	start := time.Now()
	lb, err := b.WaitLock("w", 5*time.Second, 20*time.Millisecond)
	if err != nil {
		t.Fatalf("WaitLock = %v", err)
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 3*time.Second {
		t.Errorf("WaitLock took %v; the holder released it after 300ms", d)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if _, err := a.TryLock("w"); !errors.Is(err, txn.ErrLocked) {
		t.Fatalf("after WaitLock, the lock is not b's: %v", err)
	}
	if err := lb.Unlock(); err != nil {
		t.Fatal(err)
	}
}

// Decided, then the graft/retired append fails (an event appended with no
// lock held moved the source's end): the commit is committed with a note,
// its COMMITTED record stays, and the next recovery appends the mark after
// that event, with a warning that the target lacks it.
func TestDecidedCommitWhoseRetireFailed(t *testing.T) {
	open(t, "decided") // starts the cluster
	home := t.TempDir()
	url := cluster.URL("decided") + "?lease=2s&timeout=3s"
	var w *graft.Service
	hook := func(p txn.Point) {
		if p != txn.CommitDecided {
			return
		}
		ev := session.Event{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "late"}
		st, err := session.OpenStore(vfs.Default, home)
		if err != nil {
			t.Errorf("opening the sessions behind the commit's back: %v", err)
			return
		}
		if _, err := st.Append("src", []session.Event{ev}); err != nil {
			t.Errorf("appending behind the commit's back: %v", err)
		}
	}
	w, err := graft.Open(home, graft.Options{Store: url, Hook: hook})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Generate("src", gen.Options{Turns: 6, Events: 200, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rev, err := w.Prepare(ctx, "src", graft.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Commit(ctx, rev.PreparedID, rev.TapeHash, "tgt")
	if err != nil {
		t.Fatalf("a decided commit whose append failed = %v, want committed with a note", err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "the next recovery scan appends it") {
		t.Fatalf("notes %q do not say the mark is left to recovery", res.Notes)
	}
	scan, err := open(t, "decided").Journal().Scan()
	if err != nil || len(scan.Records) != 1 || scan.Records[0].State != journal.Committed {
		t.Fatalf("records after the commit = %+v, %v; want one COMMITTED", scan.Records, err)
	}
	rep, err := w.Recover(ctx)
	if err != nil || rep.RolledForward != 1 {
		t.Fatalf("recovery = %+v, %v; want it rolled forward", rep, err)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "not in the target") {
		t.Errorf("recovery warnings %q: want the event the target lacks named", rep.Warnings)
	}
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info("src")
	if err != nil {
		t.Fatal(err)
	}
	if into, ok := info.RetiredInto(res.TxnID); !ok || into != "tgt" {
		t.Fatalf("the source is not retired into tgt after recovery (%q, %v)", into, ok)
	}
}
