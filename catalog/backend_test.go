package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// memBackend is a Backend in memory, the contract in its simplest form: an
// Update works on a copy of every bucket and swaps it in only when fn
// succeeds; values go in and come out as copies; a transaction is unusable
// once its function returned. Backends opened with reopen share one store,
// as two opens of one catalog.db or one etcd prefix do.
type memBackend struct {
	name   string
	store  *memStore
	mu     sync.Mutex
	closed bool
}

type memStore struct {
	mu      sync.RWMutex
	buckets map[string]map[string][]byte
}

func newMemBackend(name string) *memBackend {
	return &memBackend{name: name, store: &memStore{buckets: map[string]map[string][]byte{}}}
}

// reopen is another backend on the same store.
func (m *memBackend) reopen() *memBackend { return &memBackend{name: m.name, store: m.store} }

var errMemClosed = errors.New("memory backend closed")

func (m *memBackend) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

func (m *memBackend) Name() string { return m.name }

func (m *memBackend) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errMemClosed
	}
	m.closed = true
	return nil
}

func (m *memBackend) View(fn func(Tx) error) error {
	if m.isClosed() {
		return errMemClosed
	}
	m.store.mu.RLock()
	defer m.store.mu.RUnlock()
	tx := &memTx{buckets: m.store.buckets}
	defer func() { tx.done = true }()
	return fn(tx)
}

func (m *memBackend) Update(fn func(Tx) error) error {
	if m.isClosed() {
		return errMemClosed
	}
	m.store.mu.Lock()
	defer m.store.mu.Unlock()
	work := make(map[string]map[string][]byte, len(m.store.buckets))
	for name, b := range m.store.buckets {
		work[name] = maps.Clone(b) // values are never changed in place
	}
	tx := &memTx{buckets: work, writable: true}
	defer func() { tx.done = true }()
	if err := fn(tx); err != nil {
		return err // work is dropped: nothing of fn's lands
	}
	m.store.buckets = work
	return nil
}

type memTx struct {
	buckets        map[string]map[string][]byte
	writable, done bool
}

func (tx *memTx) check(bucket string, write bool) error {
	switch {
	case tx.done:
		return errors.New("transaction used after it ended")
	case write && !tx.writable:
		return errors.New("write in a read transaction")
	case !slices.Contains(allBuckets, bucket):
		return fmt.Errorf("no bucket %q", bucket)
	}
	return nil
}

func (tx *memTx) Get(bucket, key string) ([]byte, error) {
	if err := tx.check(bucket, false); err != nil {
		return nil, err
	}
	return bytes.Clone(tx.buckets[bucket][key]), nil
}

func (tx *memTx) Put(bucket, key string, value []byte) error {
	if err := tx.check(bucket, true); err != nil {
		return err
	}
	if tx.buckets[bucket] == nil {
		tx.buckets[bucket] = map[string][]byte{}
	}
	tx.buckets[bucket][key] = append([]byte{}, value...) // never nil: present
	return nil
}

func (tx *memTx) Delete(bucket, key string) error {
	if err := tx.check(bucket, true); err != nil {
		return err
	}
	delete(tx.buckets[bucket], key)
	return nil
}

func (tx *memTx) Each(bucket, prefix string, fn func(key string, value []byte) error) error {
	if err := tx.check(bucket, false); err != nil {
		return err
	}
	b := tx.buckets[bucket]
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		if err := fn(k, bytes.Clone(b[k])); err != nil {
			return err
		}
	}
	return nil
}

func (tx *memTx) Clear(bucket string) error {
	if err := tx.check(bucket, true); err != nil {
		return err
	}
	delete(tx.buckets, bucket)
	return nil
}

// backends are the stores the catalog's behaviour tests run on: store
// returns a function that opens one fresh store, again on each call.
var backends = []struct {
	name  string
	store func(t *testing.T) (reopen func() (*DB, error))
}{
	{"bolt", func(t *testing.T) func() (*DB, error) {
		home := newHome(t)
		return func() (*DB, error) { return Open(home, time.Second) }
	}},
	{"memory", func(t *testing.T) func() (*DB, error) {
		m := newMemBackend("memory://" + t.Name())
		return func() (*DB, error) { return OpenBackend(m.reopen()) }
	}},
}

// eachStore runs test on a fresh store of every backend; reopen opens it
// (again).
func eachStore(t *testing.T, test func(t *testing.T, reopen func() *DB)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			open := b.store(t)
			test(t, func() *DB {
				t.Helper()
				db, err := open()
				if err != nil {
					t.Fatalf("opening the %s catalog: %v", b.name, err)
				}
				return db
			})
		})
	}
}

// eachBackend runs test on an open catalog of every backend, closed after.
func eachBackend(t *testing.T, test func(t *testing.T, db *DB)) {
	t.Helper()
	eachStore(t, func(t *testing.T, reopen func() *DB) {
		db := reopen()
		defer closeDB(t, db)
		test(t, db)
	})
}

// withDB is With over reopen.
func withDB(reopen func() *DB, fn func(*DB) error) error {
	db := reopen()
	err := fn(db)
	return errors.Join(err, db.Close())
}

// plant stores raw bytes under bucket/key, as a damaged or older value.
func plant(t *testing.T, db *DB, bucket, key, value string) {
	t.Helper()
	if err := db.update("test", func(tx Tx) error { return tx.Put(bucket, key, []byte(value)) }); err != nil {
		t.Fatal(err)
	}
}

// OpenBackend writes the format mark on a new store, keeps it across
// opens, refuses another format (closing the backend), and DB.Close closes
// the backend.
func TestOpenBackendFormatMark(t *testing.T) {
	if _, err := OpenBackend(nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("OpenBackend(nil) = %v, want ErrInvalid", err)
	}
	m := newMemBackend("memory://format")
	db, err := OpenBackend(m)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := db.GetMeta(FormatKey); err != nil || !ok || string(v) != Format {
		t.Fatalf("format mark = %q, %v, %v; want %q", v, ok, err, Format)
	}
	closeDB(t, db)
	if !m.isClosed() {
		t.Fatal("DB.Close did not close the backend")
	}
	again := m.reopen()
	db, err = OpenBackend(again)
	if err != nil {
		t.Fatalf("second open: %v", err)
	}
	closeDB(t, db)

	other := m.reopen()
	if err := other.Update(func(tx Tx) error { return tx.Put(bucketMeta, FormatKey, []byte("graft-catalog-v9")) }); err != nil {
		t.Fatal(err)
	}
	db, err = OpenBackend(other)
	if !errors.Is(err, ErrFormat) || db != nil || !strings.Contains(err.Error(), "graft-catalog-v9") || !strings.Contains(err.Error(), "memory://format") {
		t.Fatalf("OpenBackend of another format = %v, %v; want ErrFormat naming it and the store", db, err)
	}
	if !other.isClosed() {
		t.Fatal("a refused OpenBackend left the backend open")
	}
}

// Errors name the store: the operation's and a corrupt value's.
func TestErrorsNameTheStore(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		plant(t, db, bucketPrepared, "prep-1", "{")
		_, err := db.PeekPrepared("prep-1")
		var ce *CorruptValueError
		if !errors.As(err, &ce) || ce.Path != db.Path() || !strings.Contains(err.Error(), "reading prepared prep-1 in "+db.Path()) {
			t.Fatalf("PeekPrepared of a corrupt value = %v, want it naming %s", err, db.Path())
		}
	})
}

// A read-only DB refuses writes whatever its backend.
func TestReadOnlyRefusesWrites(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ro := &DB{b: db.b, name: db.name, readOnly: true}
		if err := ro.PutMeta("x", []byte("y")); err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Fatalf("a write through a read-only DB: %v", err)
		}
		if _, ok, err := ro.GetMeta(FormatKey); !ok || err != nil {
			t.Fatalf("a read through a read-only DB: %v, %v", ok, err)
		}
	})
}

// Files is With and View on catalog.db in the home.
func TestFilesOpener(t *testing.T) {
	home := newHome(t)
	var o Opener = Files(home, time.Second)
	if err := o.With(func(db *DB) error { return db.PutMeta("k", []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	err := o.View(func(db *DB) error {
		if v, ok, err := db.GetMeta("k"); err != nil || !ok || string(v) != "v" || !strings.HasSuffix(db.Path(), FileName) {
			return fmt.Errorf("GetMeta = %q, %v, %v in %s", v, ok, err, db.Path())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Released after each: a short timeout is enough.
	if err := With(home, 100*time.Millisecond, func(*DB) error { return nil }); err != nil {
		t.Fatal(err)
	}
}
