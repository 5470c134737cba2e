package catalog

import (
	"errors"
	"fmt"
	"runtime/debug"
	"time"
)

// Backend is where a catalog's buckets live: catalog.db (Open) or another
// store (OpenBackend). The catalog's logic runs over it, and its buckets,
// keys and values are the same on every backend (doc.go).
type Backend interface {
	// View runs fn in a read transaction: every read sees one consistent state.
	View(fn func(Tx) error) error
	// Update runs fn in a read-write transaction: all of fn's writes land, or none.
	Update(fn func(Tx) error) error
	Close() error
	// Name names the store in messages (the file path, or etcd://…/prefix).
	Name() string
}

// Tx is one transaction on a Backend. Values returned are the caller's (copies).
// Writes in a View transaction fail. A value given to Put must not be changed
// before the transaction ends.
type Tx interface {
	Get(bucket, key string) ([]byte, error) // nil, nil when absent
	Put(bucket, key string, value []byte) error
	Delete(bucket, key string) error
	// Each calls fn for every key of bucket starting with prefix, in key order.
	// fn must not write to the transaction.
	Each(bucket, prefix string, fn func(key string, value []byte) error) error
	// Clear empties bucket.
	Clear(bucket string) error
}

// readier is a Backend that must be set up before use (bbolt: its buckets
// exist): until ready, the catalog's first open writes the format mark in
// an Update, in which the backend sets itself up. A Backend without it is
// ready once its format mark is there.
type readier interface{ ready() (bool, error) }

// pageCounter is a Backend that counts its page writes (bbolt), for
// WriteStats.
type pageCounter interface{ pageWrites() int64 }

// OpenBackend returns a DB over b: it creates the format mark on first use and
// refuses another format (ErrFormat), as Open does for catalog.db. On an
// error it closes b. DB.Close closes b.
func OpenBackend(b Backend) (*DB, error) {
	if b == nil {
		return nil, fmt.Errorf("%w: opening a catalog on no backend", ErrInvalid)
	}
	return newDB(b)
}

// newDB initialises a DB over b, closing b when that fails.
func newDB(b Backend) (*DB, error) {
	db := &DB{b: b, name: b.Name()}
	if err := db.init(); err != nil {
		if cerr := b.Close(); cerr != nil {
			return nil, errors.Join(err, fmt.Errorf("catalog: closing %s: %w", db.name, cerr))
		}
		return nil, err
	}
	return db, nil
}

// init creates the format mark and checks it; a read transaction first
// spares the fsync of a write transaction on every open.
func (db *DB) init() (err error) {
	defer guard(db.name, &err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var mark []byte
	err = db.b.View(func(tx Tx) error {
		var err error
		mark, err = tx.Get(bucketMeta, FormatKey)
		return err
	})
	if err != nil {
		return err
	}
	ready := mark != nil
	if r, ok := db.b.(readier); ok {
		if ready, err = r.ready(); err != nil {
			return err
		}
	}
	if ready {
		return db.checkFormat(mark)
	}
	err = db.b.Update(func(tx Tx) error {
		v, err := tx.Get(bucketMeta, FormatKey)
		if err != nil {
			return err
		}
		if v != nil {
			return db.checkFormat(v)
		}
		// A new catalog: with no review yet, every review is indexed.
		empty := true
		err = tx.Each(bucketPrepared, "", func(string, []byte) error { empty = false; return errStop })
		if err != nil && err != errStop {
			return err
		}
		if empty {
			if err := tx.Put(bucketMeta, expiryIndexed, []byte("1")); err != nil {
				return err
			}
		}
		return tx.Put(bucketMeta, FormatKey, []byte(Format))
	})
	if err != nil {
		return fmt.Errorf("catalog: initialising %s: %w", db.name, err)
	}
	return nil
}

// Opener opens the catalog of one graft home for one operation.
type Opener interface {
	With(fn func(*DB) error) error // read-write
	View(fn func(*DB) error) error // read; may fall back to read-only like catalog.View
}

// Files is the file store's opener: catalog.db in home (With/View as the package functions).
func Files(home string, timeout time.Duration) Opener { return files{home: home, timeout: timeout} }

type files struct {
	home    string
	timeout time.Duration
}

func (f files) With(fn func(*DB) error) error { return With(f.home, f.timeout, fn) }
func (f files) View(fn func(*DB) error) error { return View(f.home, f.timeout, fn) }
