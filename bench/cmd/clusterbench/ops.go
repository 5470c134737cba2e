package main

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// counter counts the requests a worker's etcd client makes: its KV,
// Lease and Watcher are wrapped after graft.Open (etcdstore and the
// concurrency package reach etcd only through them).
type counter struct {
	get, put, del, txnWrite, txnRead, watch, grant, revoke atomic.Int64

	// prefix is the store's key root ("/clusterbench/…"): byKey counts
	// the requests by the part of the key after it (locks, catalog-lock,
	// catalog, txn) and kind (write, read, watch).
	prefix string
	mu     sync.Mutex
	byKey  map[string]int64
}

func newCounter(prefix string) *counter {
	return &counter{prefix: prefix + "/", byKey: map[string]int64{}}
}

// note counts one request of kind on key.
func (c *counter) note(kind string, key []byte) {
	area := "other"
	if rest, ok := strings.CutPrefix(string(key), c.prefix); ok {
		area, _, _ = strings.Cut(rest, "/")
	}
	c.mu.Lock()
	c.byKey[area+" "+kind]++
	c.mu.Unlock()
}

func (c *counter) keys() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.byKey)
}

// OpCounts are etcd requests, per commit when averaged.
type OpCounts struct {
	// Writes go through raft (a proposal the leader replicates to a
	// quorum, each member fsyncing its WAL): Put, Delete, and every Txn
	// with a Put or Delete in either branch.
	Put      float64 `json:"put"`
	Delete   float64 `json:"delete"`
	TxnWrite float64 `json:"txnWrite"`
	// Reads are linearizable (a ReadIndex round trip to the leader, which
	// confirms its leadership with a quorum): Get, and Txns of compares
	// and Gets only.
	Get     float64 `json:"get"`
	TxnRead float64 `json:"txnRead"`
	// Watch streams opened (a contended etcd mutex waits on one).
	Watch float64 `json:"watch"`
	// Lease grants and revokes (once per worker, not per commit).
	Grant  float64 `json:"grant"`
	Revoke float64 `json:"revoke"`
}

func (c *counter) snapshot() OpCounts {
	return OpCounts{
		Put: float64(c.put.Load()), Delete: float64(c.del.Load()), TxnWrite: float64(c.txnWrite.Load()),
		Get: float64(c.get.Load()), TxnRead: float64(c.txnRead.Load()), Watch: float64(c.watch.Load()),
		Grant: float64(c.grant.Load()), Revoke: float64(c.revoke.Load()),
	}
}

// Writes is the requests that go through raft.
func (o OpCounts) Writes() float64 { return o.Put + o.Delete + o.TxnWrite }

// Reads is the linearizable reads.
func (o OpCounts) Reads() float64 { return o.Get + o.TxnRead }

// Requests is every KV request and watch (lease requests apart).
func (o OpCounts) Requests() float64 { return o.Writes() + o.Reads() + o.Watch }

func (o OpCounts) sub(p OpCounts) OpCounts {
	return OpCounts{Put: o.Put - p.Put, Delete: o.Delete - p.Delete, TxnWrite: o.TxnWrite - p.TxnWrite,
		Get: o.Get - p.Get, TxnRead: o.TxnRead - p.TxnRead, Watch: o.Watch - p.Watch,
		Grant: o.Grant - p.Grant, Revoke: o.Revoke - p.Revoke}
}

func (o OpCounts) add(p OpCounts) OpCounts {
	return o.sub(OpCounts{}.sub(p))
}

func (o OpCounts) scale(f float64) OpCounts {
	return OpCounts{Put: o.Put * f, Delete: o.Delete * f, TxnWrite: o.TxnWrite * f, Get: o.Get * f,
		TxnRead: o.TxnRead * f, Watch: o.Watch * f, Grant: o.Grant * f, Revoke: o.Revoke * f}
}

// String is "12 writes (6 txn, 2 put, 4 delete), 9 reads (7 get, 2 txn)".
func (o OpCounts) String() string {
	var w, r []string
	add := func(to *[]string, v float64, name string) {
		if v >= 0.05 {
			*to = append(*to, num(v)+" "+name)
		}
	}
	add(&w, o.TxnWrite, "txn")
	add(&w, o.Put, "put")
	add(&w, o.Delete, "delete")
	add(&r, o.Get, "get")
	add(&r, o.TxnRead, "txn")
	s := fmt.Sprintf("%s writes (%s), %s reads (%s)", num(o.Writes()), strings.Join(w, ", "), num(o.Reads()), strings.Join(r, ", "))
	if o.Watch >= 0.05 {
		s += fmt.Sprintf(", %s watches", num(o.Watch))
	}
	return s
}

// num is a count: whole when it is one, else to one decimal.
func num(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}

// instrument wraps cli's KV, Lease and Watcher with c. Call it before
// anything else uses cli concurrently.
func instrument(cli *clientv3.Client, c *counter) {
	cli.KV = countKV{KV: cli.KV, c: c}
	cli.Lease = countLease{Lease: cli.Lease, c: c}
	cli.Watcher = countWatcher{Watcher: cli.Watcher, c: c}
}

type countKV struct {
	clientv3.KV
	c *counter
}

func (k countKV) Put(ctx context.Context, key, val string, opts ...clientv3.OpOption) (*clientv3.PutResponse, error) {
	k.c.put.Add(1)
	k.c.note("write", []byte(key))
	return k.KV.Put(ctx, key, val, opts...)
}

func (k countKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	k.c.get.Add(1)
	k.c.note("read", []byte(key))
	return k.KV.Get(ctx, key, opts...)
}

func (k countKV) Delete(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.DeleteResponse, error) {
	k.c.del.Add(1)
	k.c.note("write", []byte(key))
	return k.KV.Delete(ctx, key, opts...)
}

func (k countKV) Do(ctx context.Context, op clientv3.Op) (clientv3.OpResponse, error) {
	switch {
	case op.IsGet():
		k.c.get.Add(1)
		k.c.note("read", op.KeyBytes())
	case op.IsPut():
		k.c.put.Add(1)
		k.c.note("write", op.KeyBytes())
	case op.IsDelete():
		k.c.del.Add(1)
		k.c.note("write", op.KeyBytes())
	case op.IsTxn():
		k.c.txnWrite.Add(1) // not used by graft; counted as a write
		k.c.note("write", nil)
	}
	return k.KV.Do(ctx, op)
}

func (k countKV) Txn(ctx context.Context) clientv3.Txn {
	return &countTxn{Txn: k.KV.Txn(ctx), c: k.c}
}

// countTxn counts a transaction when it is committed, as a write when
// either branch writes (etcd sends such a txn through raft).
type countTxn struct {
	clientv3.Txn
	c     *counter
	write bool
	key   []byte // the first key its branches name
}

func (t *countTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	t.Txn = t.Txn.If(cs...)
	return t
}

func (t *countTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	t.note(ops)
	t.Txn = t.Txn.Then(ops...)
	return t
}

func (t *countTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.note(ops)
	t.Txn = t.Txn.Else(ops...)
	return t
}

func (t *countTxn) note(ops []clientv3.Op) {
	for _, op := range ops {
		if t.key == nil {
			t.key = op.KeyBytes()
		}
		if op.IsPut() || op.IsDelete() || op.IsTxn() {
			t.write = true
		}
	}
}

func (t *countTxn) Commit() (*clientv3.TxnResponse, error) {
	if t.write {
		t.c.txnWrite.Add(1)
		t.c.note("write", t.key)
	} else {
		t.c.txnRead.Add(1)
		t.c.note("read", t.key)
	}
	return t.Txn.Commit()
}

type countLease struct {
	clientv3.Lease
	c *counter
}

func (l countLease) Grant(ctx context.Context, ttl int64) (*clientv3.LeaseGrantResponse, error) {
	l.c.grant.Add(1)
	return l.Lease.Grant(ctx, ttl)
}

func (l countLease) Revoke(ctx context.Context, id clientv3.LeaseID) (*clientv3.LeaseRevokeResponse, error) {
	l.c.revoke.Add(1)
	return l.Lease.Revoke(ctx, id)
}

type countWatcher struct {
	clientv3.Watcher
	c *counter
}

func (w countWatcher) Watch(ctx context.Context, key string, opts ...clientv3.OpOption) clientv3.WatchChan {
	w.c.watch.Add(1)
	w.c.note("watch", []byte(key))
	return w.Watcher.Watch(ctx, key, opts...)
}
