// Package etcdtest runs an etcd cluster inside the current Go process, for
// tests and benchmarks, with go.etcd.io/etcd/server/v3/embed.
//
// # Use
//
//	c := etcdtest.StartT(t, 3)          // 3 members on 127.0.0.1, data in t.TempDir()
//	cli, err := c.Client()              // a client on all endpoints; close it
//	c.URL("jobs/")                      // "etcd://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3/jobs/"
//	c.Stop(0)                           // member 0 gone, its data dir kept
//	c.Restart(0)                        // back on the same ports and data dir
//
// Every member listens on loopback TCP only: one client port (gRPC and
// HTTP on the same port) and one peer port, both reserved by listening on
// 127.0.0.1:0 and closing just before etcd binds them; Start retries with
// new ports if another process took one in between. There are no metrics,
// pprof or Unix-socket listeners. The election timing is fast (heartbeat
// 50ms, election timeout 500ms), so a new leader is elected within about a
// second after Stop of the leader, and the minimum lease TTL is 1s
// (etcd raises shorter TTLs to ceil(1.5 × election timeout)).
//
// etcd's own zap logger writes only errors, as JSON lines on stderr, less
// the ones every member logs when it is closed normally. Clients from
// Client log nothing.
//
// Stopping a member takes about a second (etcd waits up to 1s for its
// peer connections to go idle), a leader's a little longer (it first hands
// leadership over). Close all clients (and with them watch and lease
// keep-alive streams) before Close or Stop: etcd drains open gRPC streams
// gracefully, for up to its request timeout (6s with this timing), before
// it stops a member.
package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

const (
	tickMs     = 50
	electionMs = 500

	// readyTimeout bounds the wait for a started member to join the
	// cluster (leader elected, member published) and serve a Get.
	readyTimeout = 15 * time.Second
	// startAttempts is how often Start tries new ports when one was
	// taken between its reservation and etcd's bind.
	startAttempts = 4
)

var clusterSeq atomic.Uint64

// Cluster is an etcd cluster whose members run in this process. Its
// methods are safe for concurrent use.
type Cluster struct {
	mu      sync.Mutex
	token   string
	dir     string
	members []*member
	closed  bool
}

type member struct {
	name       string
	dir        string
	clientPort int
	peerPort   int
	etcd       *embed.Etcd // nil while stopped
}

func (m *member) clientAddr() string { return "127.0.0.1:" + strconv.Itoa(m.clientPort) }
func (m *member) peerAddr() string   { return "127.0.0.1:" + strconv.Itoa(m.peerPort) }

// Start starts n members on 127.0.0.1 with free ports and data dirs
// dir/m0 … dir/m<n-1>, which must not exist yet (dir itself is created if
// needed), and returns when the cluster has a leader and every member has
// served a linearizable Get.
func Start(dir string, n int) (*Cluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("etcdtest: %d members, want at least 1", n)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("etcdtest: %w", err)
	}
	for i := range n {
		d := memberDir(dir, i)
		if _, err := os.Lstat(d); err == nil {
			return nil, fmt.Errorf("etcdtest: data dir %s already exists; Start needs fresh member dirs", d)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("etcdtest: %w", err)
		}
	}
	var err error
	for range startAttempts {
		var c *Cluster
		c, err = startOnce(dir, n)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			return nil, err
		}
		// A reserved port was taken meanwhile: startOnce has closed the
		// members it started; drop their half-written data and retry.
		for i := range n {
			os.RemoveAll(memberDir(dir, i))
		}
	}
	return nil, err
}

func memberDir(dir string, i int) string { return filepath.Join(dir, "m"+strconv.Itoa(i)) }

func startOnce(dir string, n int) (*Cluster, error) {
	ports, err := freePorts(2 * n)
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		token: fmt.Sprintf("etcdtest-%d-%d-%d", os.Getpid(), clusterSeq.Add(1), time.Now().UnixNano()),
		dir:   dir,
	}
	for i := range n {
		c.members = append(c.members, &member{
			name:       "m" + strconv.Itoa(i),
			dir:        memberDir(dir, i),
			clientPort: ports[2*i],
			peerPort:   ports[2*i+1],
		})
	}
	// StartEtcd does not wait for the other members, so starting them one
	// after the other is fine; readiness needs a quorum and is awaited
	// below.
	for i := range n {
		e, err := embed.StartEtcd(c.config(i, embed.ClusterStateFlagNew))
		if err != nil {
			c.closeAll()
			return nil, fmt.Errorf("etcdtest: start member %d: %w", i, err)
		}
		c.members[i].etcd = e
	}
	for i := range n {
		if err := c.waitReady(i); err != nil {
			c.closeAll()
			return nil, err
		}
	}
	return c, nil
}

// StartT is Start for tests: the data lives in t.TempDir(), t.Cleanup
// closes the cluster, and a failure to start is t.Fatal.
func StartT(t testing.TB, n int) *Cluster {
	t.Helper()
	c, err := Start(t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// config is member i's embed configuration.
func (c *Cluster) config(i int, state string) *embed.Config {
	m := c.members[i]
	cfg := embed.NewConfig()
	cfg.Name = m.name
	cfg.Dir = m.dir
	cfg.TickMs = tickMs
	cfg.ElectionMs = electionMs
	cfg.InitialClusterToken = c.token
	cfg.ClusterState = state

	clientURL := url.URL{Scheme: "http", Host: m.clientAddr()}
	peerURL := url.URL{Scheme: "http", Host: m.peerAddr()}
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	initial := make([]string, len(c.members))
	for j, o := range c.members {
		initial[j] = o.name + "=http://" + o.peerAddr()
	}
	cfg.InitialCluster = strings.Join(initial, ",")

	cfg.ListenMetricsUrls = nil
	cfg.EnablePprof = false
	cfg.EnableGRPCGateway = false

	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(logger.Named(m.name))
	return cfg
}

// waitReady waits until member i has joined the cluster and serves a
// linearizable Get through its own endpoint.
func (c *Cluster) waitReady(i int) error {
	m := c.members[i]
	timer := time.NewTimer(readyTimeout)
	defer timer.Stop()
	select {
	case <-m.etcd.Server.ReadyNotify():
	case err, ok := <-m.etcd.Err():
		if !ok {
			err = errors.New("stopped")
		}
		return fmt.Errorf("etcdtest: member %d failed before it was ready: %w", i, err)
	case <-timer.C:
		return fmt.Errorf("etcdtest: member %d not ready after %v", i, readyTimeout)
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{m.clientAddr()},
		DialTimeout: 2 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return fmt.Errorf("etcdtest: member %d: %w", i, err)
	}
	defer cli.Close()
	deadline := time.Now().Add(readyTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := cli.Get(ctx, "etcdtest-ready")
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("etcdtest: member %d does not serve a Get: %w", i, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freePorts reserves n distinct free TCP ports on 127.0.0.1 by listening
// on port 0, all at once so that they differ, and closing.
func freePorts(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("etcdtest: reserve a port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Endpoints returns the client addresses "127.0.0.1:port" of all members,
// stopped ones included, in member order.
func (c *Cluster) Endpoints() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	eps := make([]string, len(c.members))
	for i, m := range c.members {
		eps[i] = m.clientAddr()
	}
	return eps
}

// URL returns "etcd://127.0.0.1:p1,127.0.0.1:p2,…/" followed by prefix.
func (c *Cluster) URL(prefix string) string {
	return "etcd://" + strings.Join(c.Endpoints(), ",") + "/" + prefix
}

// Stop stops member i and keeps its data dir, like a killed member
// (although etcd shuts down gracefully: a leader hands over leadership
// first). It is an error if member i is not running.
func (c *Cluster) Stop(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.check(i); err != nil {
		return err
	}
	m := c.members[i]
	if m.etcd == nil {
		return fmt.Errorf("etcdtest: member %d is not running", i)
	}
	m.etcd.Close()
	m.etcd = nil
	return nil
}

// Restart starts the stopped member i again on the same ports and data
// dir, so it rejoins the cluster, and returns when it serves a
// linearizable Get (which needs a quorum of running members).
func (c *Cluster) Restart(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.check(i); err != nil {
		return err
	}
	m := c.members[i]
	if m.etcd != nil {
		return fmt.Errorf("etcdtest: member %d is running", i)
	}
	e, err := embed.StartEtcd(c.config(i, embed.ClusterStateFlagExisting))
	if err != nil {
		return fmt.Errorf("etcdtest: restart member %d: %w", i, err)
	}
	m.etcd = e
	if err := c.waitReady(i); err != nil {
		e.Close()
		m.etcd = nil
		return err
	}
	return nil
}

func (c *Cluster) check(i int) error {
	if c.closed {
		return errors.New("etcdtest: cluster closed")
	}
	if i < 0 || i >= len(c.members) {
		return fmt.Errorf("etcdtest: no member %d in a cluster of %d", i, len(c.members))
	}
	return nil
}

// Close stops all running members. The data dirs are kept. Close is
// idempotent.
func (c *Cluster) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	c.closeAll()
	return nil
}

// closeAll stops the running members: the followers concurrently, then the
// leader. A leader hands over leadership when it is closed, and waits up
// to etcd's request timeout (6s) for that if the transferee is closing
// too; with no follower left it skips the hand-over.
func (c *Cluster) closeAll() {
	var wg sync.WaitGroup
	var leaders []*member
	for _, m := range c.members {
		if m.etcd == nil {
			continue
		}
		if s := m.etcd.Server; s != nil && s.Leader() == s.MemberID() {
			leaders = append(leaders, m)
			continue
		}
		wg.Go(m.etcd.Close)
	}
	wg.Wait()
	for _, m := range leaders {
		m.etcd.Close()
	}
	for _, m := range c.members {
		m.etcd = nil
	}
}

// Client returns a client on all endpoints with a DialTimeout of 2s and
// no logging. The caller closes it.
func (c *Cluster) Client() (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
		Endpoints:   c.Endpoints(),
		DialTimeout: 2 * time.Second,
		Logger:      zap.NewNop(),
	})
}
