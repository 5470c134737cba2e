package hosttest

import (
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestATimedOutRunSaysWhatTheServerSaw: a host that hangs prints nothing,
// so the failure of a run killed at its timeout lists the requests the
// fake model server had recorded, which tell where the host was waiting.
func TestATimedOutRunSaysWhatTheServerSaw(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh on PATH: %v", err)
	}
	srv := NewModelServer(t)
	resp, err := http.Post(srv.URL+"/v1/hanging-here", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	e := newEnv(t, sh, srv)
	e.Timeout = 200 * time.Millisecond

	res := e.run(context.Background(), t, e.base(), []string{"-c", "sleep 30"})
	if !res.TimedOut {
		t.Fatalf("sleep 30 under a 200 ms timeout: %s", res)
	}
	if !strings.Contains(res.Served, "POST /v1/hanging-here") || !strings.Contains(res.String(), "POST /v1/hanging-here") {
		t.Errorf("the timed-out run does not list the server's requests:\nServed: %q\n%s", res.Served, res)
	}

	res = e.run(context.Background(), t, e.base(), []string{"-c", "exit 3"})
	if res.TimedOut || res.ExitCode != 3 {
		t.Fatalf("exit 3: %s", res)
	}
	if res.Served != "" {
		t.Errorf("a run that ended by itself carries the server's log: %q", res.Served)
	}
}

// A Node.js host killed at its timeout says where each of its processes
// waited: the timeout asks Node.js for a diagnostic report first, and the
// failure lists the command line and the handles that kept its loop alive
// (here a listening socket and a child process).
func TestANodeHostKilledAtItsTimeoutSaysWhereItWaited(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("no node on PATH: %v", err)
	}
	e := newEnv(t, node, NewModelServer(t))
	e.Timeout = 3 * time.Second
	e.reports = filepath.Join(e.Root, "node-reports")
	environ := append(e.base(), "NODE_OPTIONS="+nodeReportOptions(e.reports))
	script := `const cp = require("child_process");
cp.spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {stdio: "inherit"});
require("net").createServer().listen(0, "127.0.0.1");`
	res := e.run(context.Background(), t, environ, []string{"-e", script})
	if !res.TimedOut {
		t.Fatalf("a node that waits forever under a 3 s timeout: %s", res)
	}
	for _, want := range []string{"node -e const cp", "handle type=tcp localEndpoint=", "handle type=process pid=", "node -e setInterval"} {
		if !strings.Contains(res.Diagnosis, want) || !strings.Contains(res.String(), want) {
			t.Errorf("the diagnosis lacks %q:\n%s", want, res.Diagnosis)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(e.reports, "*")); len(left) != 0 {
		t.Errorf("the reports were left behind: %q", left)
	}
	if res = e.run(context.Background(), t, environ, []string{"-e", "process.exit(3)"}); res.TimedOut || res.ExitCode != 3 || res.Diagnosis != "" {
		t.Fatalf("a node that exits 3: %s (diagnosis %q)", res, res.Diagnosis)
	}
}
