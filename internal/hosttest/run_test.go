package hosttest

import (
	"context"
	"net/http"
	"os/exec"
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
