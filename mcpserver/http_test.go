package mcpserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graft-project/graft/graft"
)

func TestCheckLoopback(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"127.3.4.5:1", true},
		{"[::1]:8080", true},
		{"localhost:9", true},
		{"0.0.0.0:8080", false},
		{":8080", false},
		{"[::]:8080", false},
		{"192.168.1.10:8080", false},
		{"example.com:80", false},
		{"127.0.0.1", false},
	} {
		err := CheckLoopback(tc.addr)
		if tc.ok && err != nil {
			t.Errorf("CheckLoopback(%q) = %v, want nil", tc.addr, err)
		}
		if !tc.ok && !errors.Is(err, ErrNotLoopback) {
			t.Errorf("CheckLoopback(%q) = %v, want ErrNotLoopback", tc.addr, err)
		}
	}
	if _, err := ListenLoopback("0.0.0.0:0"); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("ListenLoopback on all interfaces: %v", err)
	}
}

// The same tools over streamable HTTP on a loopback port.
func TestHTTPRoundTrip(t *testing.T) {
	home := t.TempDir()
	svc, err := graft.Open(home, graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Append("s", seedEvents()); err != nil {
		t.Fatal(err)
	}
	ln, err := ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: HTTPHandler(New(svc, Options{})), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	t.Cleanup(func() {
		// Generous: the client's streaming GET drains slowly when the whole
		// suite loads both cores (5 s was seen to time out); a hang still fails.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	endpoint := "http://" + ln.Addr().String()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
	}()
	rv := okOn[PrepareOutput](t, cs, ToolPrepare, map[string]any{"source": "s"})
	c := okOn[CommitOutput](t, cs, ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash})
	if c.TargetID != "s.g2" {
		t.Fatalf("commit over HTTP: %s", describe(c))
	}

	// A browser page of another origin is refused before any tool runs.
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site request: status %d, want 403", resp.StatusCode)
	}
}

// stubResolver makes lookupHost answer from names for the test's duration.
func stubResolver(t *testing.T, names map[string][]string) {
	t.Helper()
	old := lookupHost
	t.Cleanup(func() { lookupHost = old })
	lookupHost = func(_ context.Context, host string) ([]string, error) {
		if addrs, ok := names[host]; ok {
			return addrs, nil
		}
		return nil, &net.DNSError{Err: "no such host (test resolver)", Name: host, IsNotFound: true}
	}
}

// "localhost" is a name: where it resolves to another address (a hosts
// file that maps it elsewhere), the server must not listen there.
func TestLocalhostResolvingElsewhereIsRefused(t *testing.T) {
	stubResolver(t, map[string][]string{"localhost": {"192.0.2.7"}})
	for _, addr := range []string{"localhost:0", "localhost:8765"} {
		err := CheckLoopback(addr)
		if !errors.Is(err, ErrNotLoopback) || !strings.Contains(err.Error(), "192.0.2.7") {
			t.Errorf("CheckLoopback(%q) with localhost → 192.0.2.7: %v, want ErrNotLoopback naming the address", addr, err)
		}
	}
	ln, err := ListenLoopback("localhost:0")
	if err == nil {
		addr := ln.Addr().String()
		if cerr := ln.Close(); cerr != nil {
			t.Error(cerr)
		}
		t.Fatalf("ListenLoopback(localhost:0) with localhost → 192.0.2.7 listened on %s", addr)
	}
	if !errors.Is(err, ErrNotLoopback) || !strings.Contains(err.Error(), "192.0.2.7") {
		t.Fatalf("ListenLoopback(localhost:0) with localhost → 192.0.2.7: %v, want ErrNotLoopback naming the address", err)
	}
}

// One address off loopback among loopback ones is enough to refuse: the
// listener could bind any of them.
func TestLocalhostResolvingPartlyElsewhereIsRefused(t *testing.T) {
	stubResolver(t, map[string][]string{"localhost": {"127.0.0.1", "10.1.2.3"}})
	if _, err := ListenLoopback("localhost:0"); !errors.Is(err, ErrNotLoopback) || !strings.Contains(err.Error(), "10.1.2.3") {
		t.Fatalf("ListenLoopback with localhost → 127.0.0.1, 10.1.2.3: %v, want ErrNotLoopback naming 10.1.2.3", err)
	}
}

// A localhost that resolves to loopback still works, and the listener is
// bound to a loopback IP (not to the name).
func TestLocalhostResolvingToLoopbackListens(t *testing.T) {
	stubResolver(t, map[string][]string{"localhost": {"127.0.0.1", "::1"}})
	ln, err := ListenLoopback("localhost:0")
	if err != nil {
		t.Fatalf("ListenLoopback(localhost:0) with localhost → 127.0.0.1, ::1: %v", err)
	}
	defer func() {
		if err := ln.Close(); err != nil {
			t.Error(err)
		}
	}()
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		t.Fatalf("listening on %v, want a loopback IP", ln.Addr())
	}
}

// A name that cannot be resolved is refused, not listened on.
func TestUnresolvableLocalhostIsRefused(t *testing.T) {
	stubResolver(t, map[string][]string{})
	if err := CheckLoopback("localhost:8765"); !errors.Is(err, ErrNotLoopback) {
		t.Fatalf("CheckLoopback with an unresolvable localhost: %v, want ErrNotLoopback", err)
	}
}

// notLoopbackListener reports an address off loopback, as a listener would
// whose bind went elsewhere than asked.
type notLoopbackListener struct{ net.Listener }

func (notLoopbackListener) Addr() net.Addr {
	return &net.TCPAddr{IP: net.ParseIP("192.0.2.9"), Port: 8765}
}

// The address actually bound is checked too: whatever the name or literal,
// a listener off loopback is closed and refused.
func TestBoundAddressMustBeLoopback(t *testing.T) {
	old := listenTCP
	t.Cleanup(func() { listenTCP = old })
	var inner net.Listener
	listenTCP = func(network, addr string) (net.Listener, error) {
		ln, err := old(network, addr)
		if err != nil {
			return nil, err
		}
		inner = ln
		return notLoopbackListener{ln}, nil
	}
	ln, err := ListenLoopback("127.0.0.1:0")
	if err == nil {
		if cerr := ln.Close(); cerr != nil {
			t.Error(cerr)
		}
		t.Fatal("a listener bound off loopback was accepted")
	}
	if !errors.Is(err, ErrNotLoopback) || !strings.Contains(err.Error(), "192.0.2.9") {
		t.Fatalf("listener bound off loopback: %v, want ErrNotLoopback naming the bound address", err)
	}
	if inner == nil {
		t.Fatal("the seam was not used")
	}
	// The refused listener was closed: accepting on it fails at once.
	if _, err := inner.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("the refused listener is still open: Accept = %v", err)
	}
}
