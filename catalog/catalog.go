package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/graft-project/graft/index"
)

const (
	// FileName is the catalog inside a graft home.
	FileName = "catalog.db"
	// FileMode is the catalog's permissions; DirMode the home's if created.
	FileMode os.FileMode = 0o600
	DirMode  os.FileMode = 0o700
	// DefaultTimeout is how long Open waits for another process to close
	// the catalog.
	DefaultTimeout = 5 * time.Second
	// Format is the value of meta key FormatKey this package writes and reads.
	Format    = "graft-catalog-v1"
	FormatKey = "catalog.format"
)

// Bucket names (see doc.go).
const (
	bucketPrepared = "prepared"
	// bucketPreparedTape holds the tapes of sealed reviews (PutReview).
	bucketPreparedTape = "preparedtape"
	bucketLineage      = "lineage"
	bucketLeftovers    = "leftovers"
	bucketScanIndex    = "scanindex"
	// bucketSeqIndex held seq marks before they moved to index/<id>.seq
	// only: nothing reads it; PutScanIndex and ClearDerived empty it.
	bucketSeqIndex = "seqindex"
	bucketMeta     = "meta"
	// bucketOwed holds the exports committed handoffs owe their hosts (owed.go).
	bucketOwed = "owed"
	// bucketPreparedExpiry indexes the reviews by expiry (prepared.go), so
	// that a purge reads the expired ones alone.
	bucketPreparedExpiry = "preparedexpiry"
)

var (
	allBuckets = []string{bucketPrepared, bucketPreparedTape, bucketLineage, bucketLeftovers, bucketScanIndex, bucketSeqIndex, bucketMeta, bucketOwed, bucketPreparedExpiry}
	// laterBuckets came after catalogs were written without them: a
	// read-only open does not ask for them (it never writes, and only
	// writes read them).
	laterBuckets   = []string{bucketPreparedExpiry}
	derivedBuckets = []string{bucketLineage, bucketLeftovers, bucketScanIndex, bucketSeqIndex}
)

// DB is an open catalog over a Backend (catalog.db: Open; another store:
// OpenBackend). bbolt lets one process hold catalog.db at a time: keep it
// open for one operation (With), never for a server's life.
type DB struct {
	b Backend
	// name is b.Name(): the file, in every message.
	name string
	// readOnly: opened by View without write access; writes are refused.
	readOnly bool
}

// Open opens home/catalog.db, waiting up to timeout for another process to
// release it (then an error wrapping ErrBusy that names the file), and
// creates the buckets on first use. timeout must be positive: bbolt would
// wait forever on zero. A damaged file (not a regular file, no valid meta
// page, truncated below the pages its meta uses, or pages bbolt finds
// inconsistent) is an error matching ErrCorrupt (DamagedError) that says
// how to repair it; it is never opened in a way that can crash the
// process, and never changed.
func Open(home string, timeout time.Duration) (*DB, error) {
	path := filepath.Join(home, FileName)
	if timeout <= 0 {
		return nil, fmt.Errorf("%w: opening %s: timeout %v, want > 0", ErrInvalid, path, timeout)
	}
	if err := os.MkdirAll(home, DirMode); err != nil {
		return nil, fmt.Errorf("catalog: creating %s: %w", home, err)
	}
	if _, err := preCheck(path, timeout); err != nil && !NotWritable(err) {
		return nil, err
	}
	b, err := boltOpen(path, &bolt.Options{Timeout: timeout})
	if err != nil {
		return nil, openError(path, timeout, err)
	}
	return newDB(&boltBackend{db: b, path: path})
}

func (db *DB) checkFormat(v []byte) error {
	if string(v) != Format {
		return fmt.Errorf("%w: %s says %q, this build reads %q", ErrFormat, db.name, v, Format)
	}
	return nil
}

// With opens the catalog, runs fn and closes it, whatever fn returns.
func With(home string, timeout time.Duration, fn func(*DB) error) (err error) {
	db, err := Open(home, timeout)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	return fn(db)
}

// Close releases the catalog for other processes: it closes the backend.
func (db *DB) Close() error {
	if err := db.b.Close(); err != nil {
		return fmt.Errorf("catalog: closing %s: %w", db.name, err)
	}
	return nil
}

// Path is the catalog file (for another backend, its Name).
func (db *DB) Path() string { return db.name }

// view and update run fn in a transaction and name the operation and the
// store in any error.
// A damaged file can make bbolt panic inside a transaction (guard).
func (db *DB) view(op string, fn func(Tx) error) (err error) {
	defer guard(db.name, &err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	if err := db.b.View(fn); err != nil {
		return fmt.Errorf("catalog: %s in %s: %w", op, db.name, err)
	}
	return nil
}

func (db *DB) update(op string, fn func(Tx) error) (err error) {
	if db.readOnly {
		return fmt.Errorf("catalog: %s in %s: opened read-only (it cannot be written): %w", op, db.name, berrors.ErrDatabaseReadOnly)
	}
	defer guard(db.name, &err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	before := db.pageWrites()
	if err := db.b.Update(fn); err != nil {
		return fmt.Errorf("catalog: %s in %s: %w", op, db.name, err)
	}
	writeTxns.Add(1)
	pageWrites.Add(db.pageWrites() - before)
	return nil
}

// pageWrites is the backend's count of page writes (bbolt's on this
// handle), or 0 for a backend without pages.
func (db *DB) pageWrites() int64 {
	if c, ok := db.b.(pageCounter); ok {
		return c.pageWrites()
	}
	return 0
}

// The catalog's writes in this process, for the benchmarks' same-I/O
// baselines: a bbolt write transaction writes its dirty pages, fdatasyncs,
// writes the meta page and fdatasyncs again; none of that goes through
// vfs.FS.
var writeTxns, pageWrites atomic.Int64

// WriteStats counts the write transactions this process committed to
// catalogs (on catalog.db each with two fdatasyncs) and the page writes
// bbolt made for them, meta pages included (none on other backends).
type WriteStats struct {
	Txns, PageWrites int64
}

// ReadWriteStats returns the counts so far; subtract two readings to count
// one operation's.
func ReadWriteStats() WriteStats {
	return WriteStats{Txns: writeTxns.Load(), PageWrites: pageWrites.Load()}
}

// summed is a value the catalog stores with its checksum (doc.go,
// Checksums): putJSON ends its JSON with sum, decode checks and clears it.
type summed interface{ sumField() *string }

// putJSON stores v under key (with its checksum when v is summed).
func putJSON(tx Tx, bucket, key string, v any) error {
	var data []byte
	var err error
	if s, ok := v.(summed); ok {
		data, err = index.JSONWithSum(v, s.sumField(), json.Marshal)
	} else {
		data, err = json.Marshal(v)
	}
	if err != nil {
		return fmt.Errorf("encoding %s/%s: %w", bucket, key, err)
	}
	return tx.Put(bucket, key, data)
}

// getJSON decodes the value under key into v (Tx.Get copies it out of the
// transaction: bbolt's slices die with it).
func (db *DB) getJSON(tx Tx, bucket, key string, v any) (bool, error) {
	raw, err := tx.Get(bucket, key)
	if err != nil || raw == nil {
		return false, err
	}
	return true, db.decode(bucket, key, raw, v)
}

func (db *DB) decode(bucket, key string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &CorruptValueError{Path: db.name, Bucket: bucket, Key: key, Err: err}
	}
	// dec.More would miss a stray '}' or ']': only EOF ends a value.
	switch _, err := dec.Token(); {
	case err == io.EOF:
		// A value stored without a checksum (before it) reads as it is.
		if s, ok := v.(summed); ok && *s.sumField() != "" && !index.SumHolds(v, s.sumField(), json.Marshal) {
			return &CorruptValueError{Path: db.name, Bucket: bucket, Key: key, Err: errors.New("its checksum does not match: it was changed or damaged since graft stored it")}
		}
		return nil
	case err != nil:
		return &CorruptValueError{Path: db.name, Bucket: bucket, Key: key, Err: fmt.Errorf("data after the value: %w", err)}
	default:
		return &CorruptValueError{Path: db.name, Bucket: bucket, Key: key, Err: errors.New("data after the value")}
	}
}

// each decodes every value of bucket whose key starts with prefix, in key
// order, calling fn with the key.
func (db *DB) each(tx Tx, bucket, prefix string, newValue func() any, fn func(key string, v any) error) error {
	return tx.Each(bucket, prefix, func(key string, raw []byte) error {
		v := newValue()
		if err := db.decode(bucket, key, raw, v); err != nil {
			return err
		}
		return fn(key, v)
	})
}

// PutMeta stores a small value (e.g. the last recovery result) under key.
// Keys starting with "catalog." are the catalog's own.
func (db *DB) PutMeta(key string, v []byte) error {
	if key == "" || strings.HasPrefix(key, "catalog.") {
		return fmt.Errorf("%w: meta key %q (empty, or reserved prefix \"catalog.\")", ErrInvalid, key)
	}
	return db.update("putting meta "+key, func(tx Tx) error {
		return tx.Put(bucketMeta, key, bytes.Clone(v))
	})
}

// GetMeta returns a copy of the value under key.
func (db *DB) GetMeta(key string) ([]byte, bool, error) {
	var out []byte
	err := db.view("getting meta "+key, func(tx Tx) error {
		var err error
		out, err = tx.Get(bucketMeta, key)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return out, out != nil, nil
}

// ClearDerived empties what can be rebuilt from the logs (lineage,
// leftovers, scan index, the old seq index) and keeps prepared reviews and
// meta.
func (db *DB) ClearDerived() error {
	return db.update("clearing derived buckets", func(tx Tx) error {
		for _, name := range derivedBuckets {
			if err := tx.Clear(name); err != nil {
				return err
			}
		}
		return nil
	})
}
