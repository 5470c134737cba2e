package etcdstore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/graft-project/graft/catalog"
)

// maxOps bounds the operations (compares and writes) of one etcd
// transaction: etcd's default --max-txn-ops is 128. A catalog update
// writes a handful of keys; only a purge of many expired reviews, or a
// rebuild, writes more, and it is split: the first part carries the
// conditions, the rest follow it (a purge and a rebuild are idempotent).
const maxOps = 120

// Catalog is the catalog (package catalog: reviews, lineage, leftovers,
// scan indexes, meta) under <root>/catalog/<bucket>/<key>, with the same
// values as catalog.db. A view reads at one revision; an update too, and
// commits its writes in one etcd transaction conditioned on what it read
// being unchanged (Update).
type Catalog struct{ s *Store }

// Catalog returns the store's catalog opener.
func (s *Store) Catalog() *Catalog { return &Catalog{s: s} }

// With runs fn on the catalog for reading and writing.
func (c *Catalog) With(fn func(*catalog.DB) error) error { return c.open(fn) }

// View runs fn on the catalog (writes work too: there is no read-only
// fallback to make on etcd).
func (c *Catalog) View(fn func(*catalog.DB) error) error { return c.open(fn) }

func (c *Catalog) open(fn func(*catalog.DB) error) error {
	db, err := c.s.catalogDB()
	if err != nil {
		return err
	}
	return fn(db)
}

// catalogDB is the store's catalog, opened (its format mark checked, or
// written) on first use and kept: the backend holds nothing per open, and
// a check per operation was one more read in every prepare and commit.
func (s *Store) catalogDB() (*catalog.DB, error) {
	s.catMu.Lock()
	defer s.catMu.Unlock()
	if s.catDB != nil {
		return s.catDB, nil
	}
	db, err := catalog.OpenBackend(&backend{s: s})
	if err != nil {
		return nil, err
	}
	s.catDB = db
	return db, nil
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

// maxTries bounds the re-runs of an update whose reads another update
// changed before it committed.
const maxTries = 16

// Update runs fn with its reads at one revision and its writes buffered
// (reads see them), then commits the writes in one etcd transaction
// conditioned on every key it read (and every range it listed) being
// unchanged since that revision: optimistic concurrency, so updates of
// unrelated sessions never wait for each other. On a conflict fn runs
// again on the new state, up to maxTries times.
func (b *backend) Update(fn func(catalog.Tx) error) error {
	for try := 1; ; try++ {
		tx := &etx{b: b, writable: true, puts: map[string][]byte{}, dels: map[string]bool{}, seen: map[string]int64{}}
		if err := fn(tx); err != nil {
			return err
		}
		ok, err := tx.commit()
		if err != nil || ok {
			return err
		}
		if try == maxTries {
			return fmt.Errorf("%w: the catalog update lost %d races with other workers' updates of the same keys", catalog.ErrBusy, try)
		}
		time.Sleep(time.Duration(rand.Int64N(int64(try) * int64(2*time.Millisecond))))
	}
}

// commit writes tx's changes if nothing it read changed; false when
// something did (re-run the update).
func (t *etx) commit() (bool, error) {
	s := t.b.s
	var ops []clientv3.Op
	keys := make([]string, 0, len(t.puts)+len(t.dels))
	for k := range t.puts {
		keys = append(keys, k)
	}
	for k := range t.dels {
		if !t.cleared(k) { // a cleared range deletes it
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	// A cleared bucket is deleted around the keys put into it since: etcd
	// refuses a put inside a range the same txn deletes ("duplicate key").
	for _, p := range slices.Compact(slices.Sorted(slices.Values(t.clears))) {
		from := p
		for _, k := range keys {
			if _, put := t.puts[k]; put && strings.HasPrefix(k, p) {
				if from < k {
					ops = append(ops, clientv3.OpDelete(from, clientv3.WithRange(k)))
				}
				from = k + "\x00"
			}
		}
		ops = append(ops, clientv3.OpDelete(from, clientv3.WithRange(clientv3.GetPrefixRangeEnd(p))))
	}
	for _, k := range keys {
		if v, ok := t.puts[k]; ok {
			ops = append(ops, clientv3.OpPut(k, string(v)))
		} else {
			ops = append(ops, clientv3.OpDelete(k))
		}
	}
	if len(ops) == 0 {
		return true, nil
	}
	var cmps []clientv3.Cmp
	for k, rev := range t.seen {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", rev))
	}
	for _, p := range t.ranges {
		// Every key of a listed range is as old as the read: a key put
		// or created in it since has a newer mod revision.
		// (etcd's compares are =, !=, < and >: "<=" panics in the client.)
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(p), "<", t.rev+1).WithPrefix())
	}
	if len(cmps) >= maxOps/2 {
		return false, fmt.Errorf("etcdstore: a catalog update read %d keys and ranges; at most %d fit in one etcd transaction beside its writes", len(cmps), maxOps/2-1)
	}
	first := true
	for len(ops) > 0 {
		n := min(len(ops), maxOps-len(cmps))
		ctx, cancel := s.ctx()
		txn := s.cli.Txn(ctx)
		if first {
			txn = txn.If(cmps...)
		}
		resp, err := txn.Then(ops[:n]...).Commit()
		cancel()
		if err != nil {
			return false, s.unavailable("writing the catalog", err)
		}
		if !resp.Succeeded {
			return false, nil
		}
		ops, first, cmps = ops[n:], false, nil
	}
	return true, nil
}

// etx is one catalog transaction: reads at one revision, and in an
// update buffered writes and what was read (to detect a conflict).
type etx struct {
	b        *backend
	rev      int64
	writable bool
	puts     map[string][]byte
	dels     map[string]bool
	clears   []string         // bucket prefixes cleared, before puts
	seen     map[string]int64 // an update's point reads: key → mod revision (0: absent)
	ranges   []string         // an update's listed prefixes
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
	if t.rev == 0 {
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
	if err != nil {
		return nil, err
	}
	if t.seen != nil {
		t.seen[k] = 0
		if len(resp.Kvs) > 0 {
			t.seen[k] = resp.Kvs[0].ModRevision
		}
	}
	if len(resp.Kvs) == 0 {
		return nil, nil
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
		if t.writable {
			t.ranges = append(t.ranges, p)
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
