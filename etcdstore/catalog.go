package etcdstore

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/graft-project/graft/catalog"
)

// maxOps bounds the operations of one etcd transaction: etcd's default
// --max-txn-ops is 128. A catalog update writes a handful of keys; only a
// purge of many expired reviews writes more, and it is split (each part
// is fenced, and a purge is idempotent).
const maxOps = 120

// Catalog is the catalog (package catalog: reviews, lineage, leftovers,
// scan indexes, meta) under <root>/catalog/<bucket>/<key>, with the same
// values as catalog.db. An update holds the catalog mutex
// (<root>/catalog-lock, under this worker's lease) and commits its writes
// in one etcd transaction fenced on it; a view reads at one revision.
type Catalog struct{ s *Store }

// Catalog returns the store's catalog opener.
func (s *Store) Catalog() *Catalog { return &Catalog{s: s} }

// With runs fn on the catalog for reading and writing.
func (c *Catalog) With(fn func(*catalog.DB) error) error { return c.open(fn) }

// View runs fn on the catalog (writes work too: there is no read-only
// fallback to make on etcd).
func (c *Catalog) View(fn func(*catalog.DB) error) error { return c.open(fn) }

func (c *Catalog) open(fn func(*catalog.DB) error) (err error) {
	db, err := catalog.OpenBackend(&backend{s: c.s})
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

// backend is catalog.Backend on etcd.
type backend struct{ s *Store }

func (b *backend) Name() string {
	return Scheme + strings.Join(b.s.cfg.Endpoints, ",") + b.s.cfg.Prefix + "/catalog"
}
func (b *backend) Close() error { return nil }

func (b *backend) bucketKey(bucket, key string) string { return b.s.key("catalog", bucket, key) }

// View reads at one revision: the first read's.
func (b *backend) View(fn func(catalog.Tx) error) error {
	return fn(&etx{b: b})
}

// catMu serialises this process's catalog updates: the etcd mutex is per
// lease, and this process has one.
var catMu sync.Mutex

// Update holds the catalog mutex, runs fn with its writes buffered (reads
// see them), then commits them fenced on the mutex.
func (b *backend) Update(fn func(catalog.Tx) error) error {
	catMu.Lock()
	defer catMu.Unlock()
	s := b.s
	s.mu.Lock()
	sess, err := s.session()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	m := concurrency.NewMutex(sess, s.key("catalog-lock"))
	ctx, cancel := s.ctx()
	err = m.Lock(ctx)
	cancel()
	if err != nil {
		return fmt.Errorf("%w: %v", catalog.ErrBusy, s.unavailable("locking the catalog", err))
	}
	defer func() {
		ctx, cancel := s.ctx()
		defer cancel()
		_ = m.Unlock(ctx) // the lease's end releases it too; an unlock that fails is no write lost
	}()
	tx := &etx{b: b, writable: true, puts: map[string][]byte{}, dels: map[string]bool{}}
	if err := fn(tx); err != nil {
		return err
	}
	var ops []clientv3.Op
	for _, k := range tx.clears {
		ops = append(ops, clientv3.OpDelete(k, clientv3.WithPrefix()))
	}
	keys := make([]string, 0, len(tx.puts)+len(tx.dels))
	for k := range tx.puts {
		keys = append(keys, k)
	}
	for k := range tx.dels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v, ok := tx.puts[k]; ok {
			ops = append(ops, clientv3.OpPut(k, string(v)))
		} else {
			ops = append(ops, clientv3.OpDelete(k))
		}
	}
	for len(ops) > 0 {
		n := min(len(ops), maxOps)
		ctx, cancel := s.ctx()
		resp, err := s.cli.Txn(ctx).If(m.IsOwner()).Then(ops[:n]...).Commit()
		cancel()
		if err != nil {
			return s.unavailable("writing the catalog", err)
		}
		if !resp.Succeeded {
			return fmt.Errorf("%w: writing the catalog", ErrFenced)
		}
		ops = ops[n:]
	}
	return nil
}

// etx is one catalog transaction: reads at one revision (a view), or
// under the catalog mutex with buffered writes (an update).
type etx struct {
	b        *backend
	rev      int64
	writable bool
	puts     map[string][]byte
	dels     map[string]bool
	clears   []string // bucket prefixes cleared, before puts
}

func (t *etx) get(key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	s := t.b.s
	if t.rev > 0 {
		opts = append(opts, clientv3.WithRev(t.rev))
	}
	ctx, cancel := s.ctx()
	defer cancel()
	resp, err := s.cli.Get(ctx, key, opts...)
	if err != nil {
		return nil, s.unavailable("reading "+key, err)
	}
	if t.rev == 0 && !t.writable {
		t.rev = resp.Header.Revision
	}
	return resp, nil
}

func (t *etx) cleared(k string) bool {
	for _, p := range t.clears {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

func (t *etx) Get(bucket, key string) ([]byte, error) {
	k := t.b.bucketKey(bucket, key)
	if t.writable {
		if v, ok := t.puts[k]; ok {
			return bytes.Clone(v), nil
		}
		if t.dels[k] || t.cleared(k) {
			return nil, nil
		}
	}
	resp, err := t.get(k)
	if err != nil || len(resp.Kvs) == 0 {
		return nil, err
	}
	if resp.Kvs[0].Value == nil {
		return []byte{}, nil // present, empty
	}
	return resp.Kvs[0].Value, nil
}

func (t *etx) Put(bucket, key string, value []byte) error {
	if !t.writable {
		return fmt.Errorf("catalog: put %s/%s in a read transaction", bucket, key)
	}
	k := t.b.bucketKey(bucket, key)
	delete(t.dels, k)
	t.puts[k] = bytes.Clone(value)
	return nil
}

func (t *etx) Delete(bucket, key string) error {
	if !t.writable {
		return fmt.Errorf("catalog: delete %s/%s in a read transaction", bucket, key)
	}
	k := t.b.bucketKey(bucket, key)
	delete(t.puts, k)
	t.dels[k] = true
	return nil
}

func (t *etx) Clear(bucket string) error {
	if !t.writable {
		return fmt.Errorf("catalog: clear %s in a read transaction", bucket)
	}
	p := t.b.bucketKey(bucket, "")
	for k := range t.puts {
		if strings.HasPrefix(k, p) {
			delete(t.puts, k)
		}
	}
	for k := range t.dels {
		if strings.HasPrefix(k, p) {
			delete(t.dels, k)
		}
	}
	t.clears = append(t.clears, p)
	return nil
}

func (t *etx) Each(bucket, prefix string, fn func(key string, value []byte) error) error {
	bp := t.b.bucketKey(bucket, "")
	p := bp + prefix
	vals := map[string][]byte{}
	if !t.writable || !t.cleared(p) {
		resp, err := t.get(p, clientv3.WithPrefix())
		if err != nil {
			return err
		}
		for _, kv := range resp.Kvs {
			vals[string(kv.Key)] = kv.Value
		}
	}
	if t.writable {
		for k := range t.dels {
			delete(vals, k)
		}
		for k, v := range t.puts {
			if strings.HasPrefix(k, p) {
				vals[k] = bytes.Clone(v)
			}
		}
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := fn(strings.TrimPrefix(k, bp), vals[k]); err != nil {
			return err
		}
	}
	return nil
}
