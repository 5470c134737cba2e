package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/txn"
)

// lock is one held lock: Unlock releases it (once).
type lock struct {
	s    *Store
	name string
	m    *concurrency.Mutex
}

// TryLock takes the lock of a session without blocking: a concurrency
// mutex <root>/locks/<name> under this worker's lease, so it dies with
// the worker. Held by another worker, or by this one already (a second
// caller in the same process), it is an error matching txn.ErrLocked.
func (s *Store) TryLock(name string) (txn.Unlocker, error) {
	if err := lockfile.ValidName(name); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for try := 0; ; try++ {
		l, err := s.tryLock(name)
		if try == 0 && errors.Is(err, rpctypes.ErrLeaseNotFound) {
			// The lease expired (a pause) before its keep-alive noticed:
			// every lock under it is gone; begin a new one.
			s.dropSession()
			continue
		}
		return l, err
	}
}

// tryLock is one attempt of TryLock; s.mu is held.
func (s *Store) tryLock(name string) (txn.Unlocker, error) {
	sess, err := s.session()
	if err != nil {
		return nil, err
	}
	if _, ok := s.held[name]; ok {
		return nil, fmt.Errorf("%w: %s is held by this worker already", txn.ErrLocked, s.key("locks", name))
	}
	m := concurrency.NewMutex(sess, s.key("locks", name))
	ctx, cancel := s.ctx()
	defer cancel()
	if err := m.TryLock(ctx); err != nil {
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			return nil, err
		}
		if errors.Is(err, concurrency.ErrLocked) {
			return nil, fmt.Errorf("%w: %s is held by another worker", txn.ErrLocked, s.key("locks", name))
		}
		return nil, s.unavailable("locking "+name, err)
	}
	s.held[name] = m
	return &lock{s: s, name: name, m: m}, nil
}

// WaitLock is TryLock retried until wait has passed. While another worker
// holds the lock it waits for the holder's key to go (a watch, not a
// poll: every try is a write through raft); while this process holds it,
// it tries again every poll.
func (s *Store) WaitLock(name string, wait, poll time.Duration) (txn.Unlocker, error) {
	deadline := time.Now().Add(wait)
	for {
		l, err := s.TryLock(name)
		if err == nil || !errors.Is(err, txn.ErrLocked) || !time.Now().Before(deadline) {
			return l, err
		}
		s.mu.Lock()
		_, here := s.held[name]
		s.mu.Unlock()
		if here {
			time.Sleep(min(poll, time.Until(deadline)))
			continue
		}
		if err := s.waitRelease(name, deadline); err != nil {
			return nil, err
		}
	}
}

// waitRelease waits until the oldest key of name's mutex (its holder's) is
// deleted, or deadline: the next TryLock then has a chance.
func (s *Store) waitRelease(name string, deadline time.Time) error {
	pfx := s.key("locks", name) + "/"
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	rctx, rcancel := s.ctx()
	resp, err := s.cli.Get(rctx, pfx, clientv3.WithFirstCreate()...)
	rcancel()
	if err != nil {
		return s.unavailable("reading the holder of "+name, err)
	}
	if len(resp.Kvs) == 0 {
		return nil // released meanwhile
	}
	holder := string(resp.Kvs[0].Key)
	wch := s.cli.Watch(clientv3.WithRequireLeader(ctx), holder, clientv3.WithRev(resp.Header.Revision+1))
	for wr := range wch {
		if err := wr.Err(); err != nil {
			if ctx.Err() != nil {
				return nil // the deadline: the caller's last TryLock says locked
			}
			return s.unavailable("watching the holder of "+name, err)
		}
		for _, ev := range wr.Events {
			if ev.Type == clientv3.EventTypeDelete {
				return nil
			}
		}
	}
	return nil // the deadline passed (the channel closes with the context)
}

// Unlock releases the lock. A lock whose lease expired meanwhile is
// released already: that is not an error of the unlock (the fenced writes
// made for it were refused).
func (l *lock) Unlock() error {
	s := l.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[l.name] != l.m {
		return nil // the lease expired and a new session began: nothing of ours is held
	}
	delete(s.held, l.name)
	ctx, cancel, d := s.cleanupCtx()
	defer cancel()
	if err := l.m.Unlock(ctx); err != nil && !errors.Is(err, concurrency.ErrLockReleased) {
		return s.unavailableIn("unlocking "+l.name+" (its lease ends it anyway)", err, d)
	}
	return nil
}

// fence is the condition of a write made under the locks of names: every
// one of them still held by this worker, its mutex key the one it created.
// A name this worker does not hold is an error (a bug: writes are made
// under their locks).
func (s *Store) fence(names ...string) ([]clientv3.Cmp, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cmps []clientv3.Cmp
	for _, n := range names {
		m, ok := s.held[n]
		if !ok {
			return nil, fmt.Errorf("%w: this worker does not hold the lock of %s", ErrFenced, n)
		}
		cmps = append(cmps, m.IsOwner())
	}
	return cmps, nil
}
