package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/graft-project/graft/catalog"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
)

// Scheme starts a store URL: etcd://host:port[,host:port…]/prefix.
const Scheme = "etcd://"

// Format is the value of <root>/format this package writes and reads.
const Format = "graft-etcd-v1"

// Defaults of a store URL's parameters.
const (
	DefaultLease   = 10 * time.Second
	DefaultTimeout = 5 * time.Second
	// MinLease is etcd's floor for a lease (about 1.5 × its election
	// timeout with the default settings).
	MinLease = 2 * time.Second
)

var (
	// ErrURL is a store URL that does not parse.
	ErrURL = errors.New("etcdstore: bad store URL")
	// ErrUnavailable is a cluster that did not answer in time: unreachable,
	// or without a quorum. Nothing was decided by the request that got it
	// unless its error says the answer was lost.
	ErrUnavailable = errors.New("etcdstore: etcd cluster unavailable")
	// ErrFenced is a write refused because this worker no longer holds the
	// locks it was made under (its lease expired: paused, cut off).
	ErrFenced = errors.New("etcdstore: this worker lost its locks (lease expired); write refused")
	// ErrFormat is a prefix that holds another format than Format.
	ErrFormat = errors.New("etcdstore: unknown format under the prefix")
	// ErrHome is a home that holds the other store's state.
	ErrHome = errors.New("etcdstore: the home belongs to another store")
)

// Config is a parsed store URL.
type Config struct {
	Endpoints []string
	// Prefix is the key root, "/" + the URL's path: every key of this
	// store starts with Prefix + "/".
	Prefix string
	// Lease is the TTL of this worker's lease: how long after a crash (or
	// a pause) its locks and records are taken over.
	Lease time.Duration
	// Timeout bounds every request: an unreachable cluster or one without
	// quorum is an ErrUnavailable after it, never a hang.
	Timeout time.Duration
}

// URL is the canonical form of c.
func (c Config) URL() string {
	u := Scheme + strings.Join(c.Endpoints, ",") + c.Prefix
	var q []string
	if c.Lease != DefaultLease {
		q = append(q, "lease="+c.Lease.String())
	}
	if c.Timeout != DefaultTimeout {
		q = append(q, "timeout="+c.Timeout.String())
	}
	if len(q) > 0 {
		u += "?" + strings.Join(q, "&")
	}
	return u
}

var (
	prefixRE   = regexp.MustCompile(`^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$`)
	endpointRE = regexp.MustCompile(`^[A-Za-z0-9.-]+:[0-9]{1,5}$|^\[[0-9A-Fa-f:.]+\]:[0-9]{1,5}$`)
)

// IsFile says whether a store setting names the file store: "" or "file".
func IsFile(store string) bool { return store == "" || store == "file" }

// CheckSetting checks a store setting (--store, GRAFT_STORE, config key
// store): the file store, or a URL ParseURL takes.
func CheckSetting(store string) error {
	if IsFile(store) {
		return nil
	}
	_, err := ParseURL(store)
	return err
}

// ParseURL parses etcd://host:port[,host:port…]/prefix[?lease=10s&timeout=5s].
func ParseURL(s string) (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("%w %q: %s (want etcd://host:port[,host:port…]/prefix[?lease=10s&timeout=5s])", ErrURL, s, fmt.Sprintf(format, args...))
	}
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return bad("it does not start with %s", Scheme)
	}
	rest, query, _ := strings.Cut(rest, "?")
	hosts, prefix, ok := strings.Cut(rest, "/")
	if !ok || prefix == "" {
		return bad("no prefix: every graft store on a cluster has its own key prefix")
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if !prefixRE.MatchString(prefix) || slices.Contains(strings.Split(prefix, "/"), "..") || slices.Contains(strings.Split(prefix, "/"), ".") {
		return bad("prefix %q: use letters, digits, '.', '_', '-' and '/' between parts", prefix)
	}
	c := Config{Prefix: "/" + prefix, Lease: DefaultLease, Timeout: DefaultTimeout}
	for _, h := range strings.Split(hosts, ",") {
		if !endpointRE.MatchString(h) {
			return bad("endpoint %q is not host:port", h)
		}
		c.Endpoints = append(c.Endpoints, h)
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return bad("parameters: %v", err)
	}
	for k, v := range vals {
		d, err := time.ParseDuration(v[len(v)-1])
		if err != nil {
			return bad("%s=%q is not a duration", k, v[len(v)-1])
		}
		switch k {
		case "lease":
			if d < MinLease || d%time.Second != 0 {
				return bad("lease=%v: whole seconds, at least %v", d, MinLease)
			}
			c.Lease = d
		case "timeout":
			if d < 100*time.Millisecond {
				return bad("timeout=%v: at least 100ms", d)
			}
			c.Timeout = d
		default:
			return bad("unknown parameter %q (lease, timeout)", k)
		}
	}
	return c, nil
}

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
	if errors.Is(err, ErrFenced) || errors.Is(err, ErrFormat) {
		return err
	}
	s.down.Store(time.Now().UnixNano())
	return fmt.Errorf("%w: %s at %s: no answer within %v (%v); check that a majority of its members is up and reachable, then retry", ErrUnavailable, what, strings.Join(s.cfg.Endpoints, ","), d, err)
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
