package etcdtest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

func client(t *testing.T, c *Cluster) *clientv3.Client {
	t.Helper()
	cli, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// memberClient is a client on member i's endpoint only.
func memberClient(t *testing.T, c *Cluster, i int) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints()[i : i+1], DialTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

func put(t *testing.T, cli *clientv3.Client, k, v string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cli.Put(ctx, k, v); err != nil {
		t.Fatalf("Put %s: %v", k, err)
	}
}

func wantGet(t *testing.T, cli *clientv3.Client, k, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := cli.Get(ctx, k)
	if err != nil {
		t.Fatalf("Get %s: %v", k, err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != want {
		t.Fatalf("Get %s = %v, want one value %q", k, resp.Kvs, want)
	}
}

func TestThreeMembers(t *testing.T) {
	start := time.Now()
	c := StartT(t, 3)
	t.Logf("Start of 3 members took %v", time.Since(start))

	eps := c.Endpoints()
	if len(eps) != 3 {
		t.Fatalf("Endpoints() = %q, want 3", eps)
	}
	re := regexp.MustCompile(`^127\.0\.0\.1:[0-9]+$`)
	for _, ep := range eps {
		if !re.MatchString(ep) {
			t.Errorf("endpoint %q is not 127.0.0.1:port", ep)
		}
	}
	if got, want := c.URL("graft/"), "etcd://"+strings.Join(eps, ",")+"/graft/"; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}

	cli := client(t, c)
	put(t, cli, "k", "v1")
	wantGet(t, cli, "k", "v1")
	// Every member serves the value through its own endpoint.
	for i := range eps {
		wantGet(t, memberClient(t, c, i), "k", "v1")
	}
}

func TestQuorum(t *testing.T) {
	c := StartT(t, 3)
	cli := client(t, c)
	put(t, cli, "k", "v0")

	t0 := time.Now()
	if err := c.Stop(0); err != nil {
		t.Fatal(err)
	}
	t.Logf("Stop(0) took %v", time.Since(t0))
	if err := c.Stop(0); err == nil {
		t.Error("second Stop(0) did not fail")
	}
	// 2 of 3: still a quorum.
	put(t, cli, "k", "v1")
	wantGet(t, cli, "k", "v1")

	if err := c.Stop(1); err != nil {
		t.Fatal(err)
	}
	// 1 of 3: no quorum; a Put fails within its deadline instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	t1 := time.Now()
	_, err := cli.Put(ctx, "k", "lost")
	cancel()
	d := time.Since(t1)
	if err == nil {
		t.Fatal("Put without quorum succeeded")
	}
	if d > 4*time.Second {
		t.Errorf("Put without quorum took %v", d)
	}
	t.Logf("Put without quorum failed after %v: %v", d, err)

	t2 := time.Now()
	if err := c.Restart(1); err != nil {
		t.Fatal(err)
	}
	t.Logf("Restart(1) took %v", time.Since(t2))
	if err := c.Restart(1); err == nil {
		t.Error("Restart of a running member did not fail")
	}
	put(t, cli, "k", "v2")
	wantGet(t, cli, "k", "v2")
	// Member 1 kept its data and caught up.
	wantGet(t, memberClient(t, c, 1), "k", "v2")

	if err := c.Restart(0); err != nil {
		t.Fatal(err)
	}
	wantGet(t, memberClient(t, c, 0), "k", "v2")
}

// TestStopLeader stops the leader, whichever member it is: a new one is
// elected and Puts go on.
func TestStopLeader(t *testing.T) {
	c := StartT(t, 3)
	cli := client(t, c)
	put(t, cli, "k", "v0")
	leader := -1
	for i, ep := range c.Endpoints() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st, err := cli.Status(ctx, ep)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if st.Leader == st.Header.MemberId {
			leader = i
		}
	}
	if leader < 0 {
		t.Fatal("no member is the leader")
	}
	if err := c.Stop(leader); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	put(t, cli, "k", "v1")
	t.Logf("first Put after Stop of the leader (member %d) took %v", leader, time.Since(t0))
	wantGet(t, cli, "k", "v1")
}

func TestOneMember(t *testing.T) {
	start := time.Now()
	c := StartT(t, 1)
	t.Logf("Start of 1 member took %v", time.Since(start))
	if got := len(c.Endpoints()); got != 1 {
		t.Fatalf("%d endpoints, want 1", got)
	}
	cli := client(t, c)
	put(t, cli, "k", "v")
	wantGet(t, cli, "k", "v")

	// A 2s lease is honoured (etcd's minimum TTL here is 1s) and expires.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	lease, err := cli.Grant(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if lease.TTL != 2 {
		t.Errorf("lease TTL = %d, want 2", lease.TTL)
	}
	if _, err := cli.Put(ctx, "leased", "x", clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	wantGet(t, cli, "leased", "x")
	deadline := time.Now().Add(6 * time.Second)
	for {
		resp, err := cli.Get(ctx, "leased")
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Kvs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("key of a 2s lease still there after 6s")
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Data survives Stop and Restart.
	if err := c.Stop(0); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(0); err != nil {
		t.Fatal(err)
	}
	wantGet(t, cli, "k", "v")
}

func TestErrors(t *testing.T) {
	if _, err := Start(t.TempDir(), 0); err == nil {
		t.Error("Start with 0 members did not fail")
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "m0"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(dir, 1); err == nil {
		t.Error("Start over an existing member dir did not fail")
	}

	c, err := Start(t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(1); err == nil {
		t.Error("Stop(1) of a 1-member cluster did not fail")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := c.Restart(0); err == nil {
		t.Error("Restart after Close did not fail")
	}
}
