package mcpserver

import (
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNotLoopback refuses an HTTP address other machines could reach: the
// tools commit and revert grafts with no authentication of their own.
var ErrNotLoopback = errors.New("mcpserver: not a loopback address")

// CheckLoopback accepts host:port where host is a loopback IP
// (127.0.0.0/8, ::1) or "localhost". An empty host (all interfaces) is
// refused like any other non-loopback one.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: %q is not host:port: %v", ErrNotLoopback, addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w: %q would listen on %q; use 127.0.0.1:PORT or [::1]:PORT", ErrNotLoopback, addr, host)
}

// ListenLoopback listens on addr after CheckLoopback.
func ListenLoopback(addr string) (net.Listener, error) {
	if err := CheckLoopback(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: listening on %s: %w", addr, err)
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
