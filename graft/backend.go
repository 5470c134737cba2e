package graft

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/etcdstore"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
)

// backend is the store a service runs on: the files of its home, or an
// etcd store shared by workers on several machines (docs/DESIGN.md §10).
// The rest of the service asks it, never which one it is.
type backend interface {
	// Backend holds the transactions' locks and commit point.
	txn.Backend
	// setting is the store as a setting names it: "file" or the URL.
	setting() string
	// journal is where the records of transactions in flight live.
	journal() txn.RecordStore
	// catalog opens the catalog, waiting up to wait where the store has
	// a file lock to wait for.
	catalog(wait time.Duration) catalog.Opener
	// catalogFile is catalog.db's path on the file store ("" on etcd,
	// whose catalog is keys).
	catalogFile() string
	// hasCatalog: the store holds a catalog (a fresh home's has none yet,
	// and a read must not create one).
	hasCatalog() bool
	// bindings are the host bindings.
	bindings() hosts.Bindings
	// lockLog makes the session store's writers hold the same lock as a
	// transaction of the log (nothing to do on the file store, whose
	// session store takes the flocks itself).
	lockLog(st *session.Store)
	// close releases what the store holds (etcd: the lease).
	close() error
}

// fileStore is the file store of a home.
type fileStore struct {
	txn.FileBackend
	fs   vfs.FS
	home string
	jrnl *journal.Journal
}

func openFileStore(fsys vfs.FS, home string) (*fileStore, error) {
	j, err := journal.Open(fsys, home)
	if err != nil {
		return nil, err
	}
	return &fileStore{FileBackend: txn.FileBackend{Home: home}, fs: fsys, home: home, jrnl: j}, nil
}

func (f *fileStore) setting() string          { return "file" }
func (f *fileStore) journal() txn.RecordStore { return f.jrnl }
func (f *fileStore) catalog(wait time.Duration) catalog.Opener {
	return catalog.Files(f.home, wait)
}
func (f *fileStore) catalogFile() string { return filepath.Join(f.home, catalog.FileName) }
func (f *fileStore) hasCatalog() bool {
	_, err := os.Lstat(f.catalogFile())
	return !errors.Is(err, os.ErrNotExist)
}
func (f *fileStore) bindings() hosts.Bindings  { return hosts.Files(f.fs, f.home) }
func (f *fileStore) lockLog(st *session.Store) {}
func (f *fileStore) close() error              { return nil }

// etcdBackend is an etcd store (package etcdstore).
type etcdBackend struct {
	*etcdstore.Store
	jrnl *etcdstore.Journal
}

func newEtcdBackend(s *etcdstore.Store, now func() time.Time) *etcdBackend {
	j := s.Journal()
	j.Now = now
	return &etcdBackend{Store: s, jrnl: j}
}

func (e *etcdBackend) setting() string                      { return e.Config().URL() }
func (e *etcdBackend) journal() txn.RecordStore             { return e.jrnl }
func (e *etcdBackend) catalog(time.Duration) catalog.Opener { return e.Catalog() }
func (e *etcdBackend) catalogFile() string                  { return "" }
func (e *etcdBackend) hasCatalog() bool                     { return true }
func (e *etcdBackend) bindings() hosts.Bindings             { return e.Bindings() }
func (e *etcdBackend) close() error                         { return e.Close() }

// lockLog: every writer of a log (import, hooks, gen, append) holds the
// same lease-bound lock as a graft of it, on any machine.
func (e *etcdBackend) lockLog(st *session.Store) {
	st.Locker = func(id string, wait time.Duration) (session.Unlocker, error) {
		return e.WaitLock(id, wait, 20*time.Millisecond)
	}
}
