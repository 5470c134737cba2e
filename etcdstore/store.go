package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/storeurl"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Scheme starts a store URL: etcd://host:port[,host:port…]/prefix
// (package storeurl parses it).
const Scheme = storeurl.Scheme

// Format is the value of <root>/format this package writes and reads.
const Format = "graft-etcd-v1"

// Defaults of a store URL's parameters (storeurl's).
const (
	DefaultLease   = storeurl.DefaultLease
	DefaultTimeout = storeurl.DefaultTimeout
	MinLease       = storeurl.MinLease
)

var (
	// ErrURL is a store URL that does not parse.
	ErrURL = storeurl.ErrURL
	// ErrUnavailable is a cluster that did not answer in time: unreachable,
	// or without a quorum. Nothing was decided by the request that got it
	// unless its error says the answer was lost.
	ErrUnavailable = errors.New("etcdstore: etcd cluster unavailable")
	// ErrRefused is a request the cluster answered with a refusal (larger
	// than its request limit, a transaction it will not run): the cluster
	// is up, nothing of the request was written, and the same request would
	// be refused again.
	ErrRefused = errors.New("etcdstore: the etcd cluster refused the request")
	// ErrFenced is a write refused because this worker no longer holds the
	// locks it was made under (its lease expired: paused, cut off).
	ErrFenced = errors.New("etcdstore: this worker lost its locks (lease expired); write refused")
	// ErrFormat is a prefix that holds another format than Format.
	ErrFormat = errors.New("etcdstore: unknown format under the prefix")
	// ErrHome is a home that holds the other store's state.
	ErrHome = errors.New("etcdstore: the home belongs to another store")
)

// Config is a parsed store URL (storeurl.Config).
type Config = storeurl.Config

// IsFile says whether a store setting names the file store: "" or "file".
func IsFile(store string) bool { return storeurl.IsFile(store) }

// ParseURL parses etcd://host:port[,host:port…]/prefix[?lease=10s&timeout=5s].
func ParseURL(s string) (Config, error) { return storeurl.ParseURL(s) }

// Store is one worker's connection to a graft store on etcd: its lease,
// the locks it holds under it, the journal and the catalog under the
// prefix. Safe for concurrent use.
type Store struct {
	cfg Config
	cli *clientv3.Client

	mu   sync.Mutex
	sess *concurrency.Session
	held map[string]*concurrency.Mutex // lock name → the mutex this worker holds
	// Hook, when set, is called before every fenced write with what it is
	// (tests: a pause at the commit point).
	Hook  func(what string)
	catMu sync.Mutex
	catDB *catalog.DB // the catalog, once opened (catalogDB)
	// down is when a request last went unanswered (UnixNano; 0: never):
	// the clean-up after it (unlocks, the lease's revoke) waits less.
	down atomic.Int64
}

// Open connects to the cluster and checks the prefix's format, writing it
// on first use. A cluster that does not answer within cfg.Timeout is an
// error matching ErrUnavailable that names the endpoints.
func Open(cfg Config) (*Store, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:            cfg.Endpoints,
		DialTimeout:          cfg.Timeout,
		DialKeepAliveTime:    cfg.Timeout,
		DialKeepAliveTimeout: cfg.Timeout,
		Logger:               zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("%w: connecting to %s: %w", ErrUnavailable, strings.Join(cfg.Endpoints, ","), err)
	}
	s := &Store{cfg: cfg, cli: cli, held: map[string]*concurrency.Mutex{}}
	if err := s.checkFormat(); err != nil {
		return nil, errors.Join(err, cli.Close())
	}
	return s, nil
}

// Config is the store's configuration.
func (s *Store) Config() Config { return s.cfg }

// Client is the etcd client (tests, benchmarks).
func (s *Store) Client() *clientv3.Client { return s.cli }

func (s *Store) key(parts ...string) string {
	return s.cfg.Prefix + "/" + strings.Join(parts, "/")
}

// ctx is a request's context: bounded by the store's timeout.
func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.cfg.Timeout)
}

// cleanupCtx is the context of a clean-up request (an unlock, the lease's
// revoke): the store's timeout, but short once a request of this process
// went unanswered — the lease ends by itself, and a command that already
// failed must not wait out a timeout per lock.
func (s *Store) cleanupCtx() (context.Context, context.CancelFunc, time.Duration) {
	d := s.cfg.Timeout
	if t := s.down.Load(); t != 0 && time.Since(time.Unix(0, t)) < 2*s.cfg.Timeout {
		d = min(d, 500*time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	return ctx, cancel, d
}

// unavailable wraps a request's error: a deadline or an unreachable
// cluster is ErrUnavailable, with what to do.
func (s *Store) unavailable(what string, err error) error {
	return s.unavailableIn(what, err, s.cfg.Timeout)
}

// unavailableIn is unavailable for a request that waited d.
func (s *Store) unavailableIn(what string, err error, d time.Duration) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrFenced) || errors.Is(err, ErrFormat) || errors.Is(err, ErrRefused) {
		return err
	}
	if refusal(err) {
		return fmt.Errorf("%w: %s at %s: %v", ErrRefused, what, strings.Join(s.cfg.Endpoints, ","), err)
	}
	s.down.Store(time.Now().UnixNano())
	return fmt.Errorf("%w: %s at %s: no answer within %v (%v); check that a majority of its members is up and reachable, then retry", ErrUnavailable, what, strings.Join(s.cfg.Endpoints, ","), d, err)
}

// refusal: an answer of the cluster that refuses the request itself (its
// size or form, its rights, the space quota), as opposed to no answer in
// time. Not a refusal: a transient overload ("too many requests"), a
// compacted revision (the update reads again), no leader.
func refusal(err error) bool {
	code := codes.OK
	var ee rpctypes.EtcdError
	if errors.As(err, &ee) {
		code = ee.Code()
	} else if st, ok := status.FromError(err); ok {
		code = st.Code()
	}
	switch code {
	case codes.InvalidArgument, codes.PermissionDenied, codes.Unauthenticated:
		return true
	case codes.ResourceExhausted:
		return !strings.Contains(err.Error(), "too many requests")
	}
	return false
}

func (s *Store) checkFormat() error {
	ctx, cancel := s.ctx()
	defer cancel()
	k := s.key("format")
	// A read first: every process opens the store, and a transaction that
	// may write goes through raft even when it only reads.
	cur, err := s.cli.Get(ctx, k)
	if err != nil {
		return s.unavailable("reading "+k, err)
	}
	if len(cur.Kvs) == 1 && string(cur.Kvs[0].Value) == Format {
		return nil
	}
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, Format)).
		Else(clientv3.OpGet(k)).Commit()
	if err != nil {
		return s.unavailable("reading "+k, err)
	}
	if resp.Succeeded {
		return nil
	}
	kvs := resp.Responses[0].GetResponseRange().Kvs
	if len(kvs) == 1 && string(kvs[0].Value) == Format {
		return nil
	}
	var got string
	if len(kvs) == 1 {
		got = string(kvs[0].Value)
	}
	return fmt.Errorf("%w: %s says %q, this build reads %q; use another prefix", ErrFormat, k, got, Format)
}

// session is this worker's lease, created on first use and again after it
// expired (a worker that was paused past it): locks held under the expired
// one are gone, and every fenced write made for them is refused.
func (s *Store) session() (*concurrency.Session, error) {
	if s.sess != nil {
		select {
		case <-s.sess.Done():
			s.dropSession()
		default:
			return s.sess, nil
		}
	}
	ctx, cancel := s.ctx()
	defer cancel()
	// The session's keep-alive outlives this request: its context is the
	// client's, and the grant is bounded by the store's timeout.
	lease, err := s.cli.Grant(ctx, int64(s.cfg.Lease/time.Second))
	if err != nil {
		return nil, s.unavailable("granting a lease", err)
	}
	sess, err := concurrency.NewSession(s.cli, concurrency.WithLease(lease.ID))
	if err != nil {
		return nil, s.unavailable("keeping the lease alive", err)
	}
	s.sess = sess
	return sess, nil
}

// dropSession forgets a session whose lease is gone; s.mu is held.
func (s *Store) dropSession() {
	if s.sess != nil {
		s.sess.Orphan()
	}
	s.sess = nil
	s.held = map[string]*concurrency.Mutex{}
}

// Lease is this worker's lease id (0 before its first lock).
func (s *Store) Lease() clientv3.LeaseID {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess == nil {
		return 0
	}
	return s.sess.Lease()
}

// Close revokes the lease (releasing every lock this worker holds) and
// closes the client.
func (s *Store) Close() error {
	s.mu.Lock()
	sess := s.sess
	s.sess = nil
	s.held = map[string]*concurrency.Mutex{}
	s.mu.Unlock()
	var errs []error
	if sess != nil {
		ctx, cancel, d := s.cleanupCtx()
		_, err := s.cli.Revoke(ctx, sess.Lease())
		cancel()
		sess.Orphan()
		if err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) { // expired already: nothing to revoke
			errs = append(errs, s.unavailableIn("revoking the lease", err, d))
		}
	}
	if err := s.cli.Close(); err != nil && !errors.Is(err, context.Canceled) {
		errs = append(errs, fmt.Errorf("etcdstore: closing the client: %w", err))
	}
	return errors.Join(errs...)
}
