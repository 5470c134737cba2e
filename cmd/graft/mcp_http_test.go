package main

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPHTTPRefusesLocalhostMappedElsewhere runs "graft mcp --http
// localhost:0" where the hosts file maps localhost to this machine's
// non-loopback address: in a private mount namespace, a hosts file of the
// test's is bind-mounted over /etc/hosts. The server must refuse (usage
// error, naming the address) instead of serving the tools off loopback.
// It needs root and unshare(1); the resolver-seam tests of package
// mcpserver are the variant that always runs.
func TestMCPHTTPRefusesLocalhostMappedElsewhere(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to bind-mount a hosts file in a private mount namespace; mcpserver's TestLocalhostResolvingElsewhereIsRefused (a resolver seam) covers the rule")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skipf("no unshare(1) here (%v); mcpserver's resolver-seam tests cover the rule", err)
	}
	if out, err := exec.Command(unshare, "--mount", "--propagation", "private", "true").CombinedOutput(); err != nil {
		t.Skipf("cannot make a private mount namespace here (%v: %s); mcpserver's resolver-seam tests cover the rule", err, out)
	}
	ip := nonLoopbackIPv4(t)
	dir := t.TempDir()
	hosts := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hosts, []byte(ip+" localhost\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := graftBinary(t)
	home := filepath.Join(dir, "home")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, unshare, "--mount", "--propagation", "private", "sh", "-c",
		`mount --bind "$1" /etc/hosts || exit 99; exec "$2" mcp --http localhost:0 --home "$3"`, "sh", hosts, bin, home)
	cmd.Env = append(os.Environ(), "GRAFT_CONFIG=", "XDG_CONFIG_HOME="+filepath.Join(dir, "xdg"))
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("graft mcp --http localhost:0 kept running with localhost → %s (it served off loopback):\n%s", ip, out)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("graft mcp --http localhost:0 with localhost → %s: %v, want a refusal\n%s", ip, err, out)
	}
	if ee.ExitCode() == 99 {
		t.Skipf("cannot bind-mount over /etc/hosts here: %s", out)
	}
	if ee.ExitCode() != 2 || !strings.Contains(string(out), "localhost resolves to "+ip) || !strings.Contains(string(out), "not a loopback") {
		t.Fatalf("graft mcp --http localhost:0 with localhost → %s: exit %d, want 2 and a message naming %s\n%s", ip, ee.ExitCode(), ip, out)
	}
	if strings.Contains(string(out), "serving MCP") {
		t.Fatalf("the server served before refusing:\n%s", out)
	}
}

// nonLoopbackIPv4 is an IPv4 address of this machine off loopback, which a
// server can bind; the test is skipped where there is none.
func nonLoopbackIPv4(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("listing this machine's addresses: %v", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	t.Skip("this machine has no IPv4 address off loopback to map localhost to")
	return ""
}
