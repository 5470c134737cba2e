package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// graftBinary copies this test binary as "graft" into a fresh directory
// that other users can traverse (0711; the copy is 0755). Run by that
// name, TestMain's testscript.Main runs main1: the real CLI in a process of
// its own, which a test can start as another user, in another mount
// namespace, or with raw bytes on its stdin. A copy, not a link: the test
// binary's own directory may be private to the user running the tests.
func graftBinary(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "graft-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing %s: %v", dir, err)
		}
	})
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "graft")
	in, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(errors.Join(err, out.Close()))
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// result is how a child graft ended.
type result struct {
	exit           int
	stdout, stderr string
}

// runGraft runs bin with args on home (GRAFT_HOME), stdin as given, and
// waits up to timeout; cred runs it as another user when not nil. A child
// still running at the timeout is killed and fails the test.
func runGraft(t *testing.T, bin, home string, stdin string, cred *syscall.Credential, timeout time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "GRAFT_HOME="+home, "GRAFT_CONFIG=", "XDG_CONFIG_HOME="+filepath.Join(home, "no-xdg-config"))
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("graft %s did not finish within %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), timeout, r.stdout, r.stderr)
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("running graft %s: %v", strings.Join(args, " "), err)
	}
	return r
}
