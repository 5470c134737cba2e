package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNotLoopback refuses an HTTP address other machines could reach: the
// tools commit and revert grafts with no authentication of their own.
var ErrNotLoopback = errors.New("mcpserver: not a loopback address")

// lookupHost resolves the name "localhost"; tests replace it to make the
// name resolve elsewhere, as a hosts file can.
var lookupHost = net.DefaultResolver.LookupHost

// listenTCP binds the listener; tests replace it to see what the bound
// address check does with a listener off loopback.
var listenTCP = net.Listen

// resolveTimeout bounds the lookup of "localhost".
const resolveTimeout = 5 * time.Second

// CheckLoopback accepts host:port where host is a loopback IP
// (127.0.0.0/8, ::1) or "localhost" resolving to loopback IPs only (every
// address it resolves to is checked: a hosts file can map the name
// anywhere). An empty host (all interfaces) is refused like any other
// non-loopback one, and so is any other name.
func CheckLoopback(addr string) error {
	_, err := loopbackAddr(addr)
	return err
}

// loopbackAddr checks addr as CheckLoopback does and returns the IP
// literal host:port to listen on: addr itself for a literal, the first
// address "localhost" resolves to for the name.
func loopbackAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%w: %q is not host:port: %v", ErrNotLoopback, addr, err)
	}
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return "", fmt.Errorf("%w: %q would listen on %q; use 127.0.0.1:PORT or [::1]:PORT", ErrNotLoopback, addr, host)
		}
		return addr, nil
	}
	if host != "localhost" {
		return "", fmt.Errorf("%w: %q would listen on %q; use 127.0.0.1:PORT or [::1]:PORT (the only name accepted is localhost)", ErrNotLoopback, addr, host)
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	addrs, err := lookupHost(ctx, host)
	if err != nil {
		return "", fmt.Errorf("%w: %q: resolving localhost: %v; use 127.0.0.1:PORT or [::1]:PORT", ErrNotLoopback, addr, err)
	}
	if len(addrs) == 0 {
		return "", fmt.Errorf("%w: %q: localhost resolves to no address; use 127.0.0.1:PORT or [::1]:PORT", ErrNotLoopback, addr)
	}
	var off []string
	for _, a := range addrs {
		if ip := net.ParseIP(a); ip == nil || !ip.IsLoopback() {
			off = append(off, a)
		}
	}
	if len(off) > 0 {
		return "", fmt.Errorf("%w: %q: localhost resolves to %s, not a loopback IP (check the hosts file); use 127.0.0.1:PORT or [::1]:PORT",
			ErrNotLoopback, addr, strings.Join(off, ", "))
	}
	// Listen on the address just checked, not on the name: a second
	// lookup could answer otherwise.
	return net.JoinHostPort(addrs[0], port), nil
}

// ListenLoopback listens on addr after CheckLoopback, on the IP checked
// (never on the name), and refuses a listener whose bound address is not a
// loopback IP after all.
func ListenLoopback(addr string) (net.Listener, error) {
	literal, err := loopbackAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := listenTCP("tcp", literal)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: listening on %s: %w", addr, err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		bound := ln.Addr().String()
		if cerr := ln.Close(); cerr != nil {
			return nil, errors.Join(fmt.Errorf("%w: %q is bound to %s", ErrNotLoopback, addr, bound), fmt.Errorf("mcpserver: closing the listener on %s: %w", bound, cerr))
		}
		return nil, fmt.Errorf("%w: %q is bound to %s, not a loopback IP; refused (use 127.0.0.1:PORT or [::1]:PORT)", ErrNotLoopback, addr, bound)
	}
	return ln, nil
}

// HTTPHandler serves srv over streamable HTTP. The SDK's DNS-rebinding
// protection stays on, and cross-origin browser requests are refused: a web
// page must not reach the tools through the user's browser.
func HTTPHandler(srv *mcp.Server) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	return http.NewCrossOriginProtection().Handler(h)
}
