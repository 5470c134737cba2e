package catalog

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// boltBackend is catalog.db: one bbolt bucket per catalog bucket. Its
// buckets must exist: an Update creates those missing (the first open's),
// and a read-only one refuses a file without them (openReadOnly).
type boltBackend struct {
	db   *bolt.DB
	path string
	// haveBuckets: every bucket of allBuckets exists.
	haveBuckets bool
}

// missingBucket is the first bucket of allBuckets tx lacks, or "",
// those named in but excepted.
func missingBucket(tx *bolt.Tx, but ...string) string {
	for _, name := range allBuckets {
		if tx.Bucket([]byte(name)) == nil && !slices.Contains(but, name) {
			return name
		}
	}
	return ""
}

// ready looks for the buckets (in a read transaction: a damaged file can
// make bbolt panic here, and the caller guards).
func (bb *boltBackend) ready() (bool, error) {
	if bb.haveBuckets {
		return true, nil
	}
	err := bb.db.View(func(tx *bolt.Tx) error {
		bb.haveBuckets = missingBucket(tx) == ""
		return nil
	})
	return bb.haveBuckets, err
}

func (bb *boltBackend) Name() string { return bb.path }
func (bb *boltBackend) Close() error { return bb.db.Close() }

// pageWrites is bbolt's count of page writes on this handle.
func (bb *boltBackend) pageWrites() int64 {
	st := bb.db.Stats()
	return st.TxStats.GetWrite()
}

func (bb *boltBackend) View(fn func(Tx) error) error {
	return bb.db.View(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

func (bb *boltBackend) Update(fn func(Tx) error) error {
	created := false
	err := bb.db.Update(func(tx *bolt.Tx) error {
		if !bb.haveBuckets {
			for _, name := range allBuckets {
				if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
					return fmt.Errorf("creating bucket %q: %w", name, err)
				}
			}
			created = true
		}
		return fn(boltTx{tx})
	})
	if err == nil && created {
		bb.haveBuckets = true
	}
	return err
}

// boltTx is a bbolt transaction; bbolt's slices are only valid inside it,
// so values are copied out.
type boltTx struct{ tx *bolt.Tx }

func (t boltTx) bucket(name string) (*bolt.Bucket, error) {
	b := t.tx.Bucket([]byte(name))
	if b == nil {
		return nil, fmt.Errorf("no bucket %q", name)
	}
	return b, nil
}

func (t boltTx) Get(bucket, key string) ([]byte, error) {
	b := t.tx.Bucket([]byte(bucket))
	if b == nil {
		return nil, nil // a catalog not set up yet (init) has nothing
	}
	return bytes.Clone(b.Get([]byte(key))), nil
}

func (t boltTx) Put(bucket, key string, value []byte) error {
	b, err := t.bucket(bucket)
	if err != nil {
		return err
	}
	return b.Put([]byte(key), value)
}

func (t boltTx) Delete(bucket, key string) error {
	b, err := t.bucket(bucket)
	if err != nil {
		return err
	}
	return b.Delete([]byte(key))
}

func (t boltTx) Each(bucket, prefix string, fn func(key string, value []byte) error) error {
	b, err := t.bucket(bucket)
	if err != nil {
		return err
	}
	c := b.Cursor()
	for k, v := c.Seek([]byte(prefix)); k != nil && strings.HasPrefix(string(k), prefix); k, v = c.Next() {
		if err := fn(string(k), bytes.Clone(v)); err != nil {
			return err
		}
	}
	return nil
}

// Clear deletes the bucket and creates it again: bbolt frees its pages.
func (t boltTx) Clear(bucket string) error {
	if err := t.tx.DeleteBucket([]byte(bucket)); err != nil {
		return fmt.Errorf("deleting bucket %q: %w", bucket, err)
	}
	if _, err := t.tx.CreateBucket([]byte(bucket)); err != nil {
		return fmt.Errorf("creating bucket %q: %w", bucket, err)
	}
	return nil
}
