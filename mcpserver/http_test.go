package mcpserver

import (
	"context"
	"errors"
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
