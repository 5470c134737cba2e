package hosttest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Terminal is an interactive host run inside a tmux server of its own
// (its own socket under the test's temporary directory), so a test can
// type into the host's full-screen interface and read the screen as the
// person sees it.
type Terminal struct {
	t    testing.TB
	sock string
	env  []string
	dir  string
}

// quitRetry is how long Quit waits for the host to end before it tries
// again (a variable for the test of Quit).
var quitRetry = 5 * time.Second

// ErrNoTmux: the machine has no tmux; tests that need a terminal skip.
var ErrNoTmux = errors.New("hosttest: tmux is not installed: interactive host runs need it (apt-get install tmux)")

// NewTerminal starts argv in a detached tmux session of width×height
// cells, with env as its whole environment and dir as its working
// directory. The server is killed at the end of the test.
func NewTerminal(t testing.TB, env []string, dir string, width, height int, argv ...string) (*Terminal, error) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		return nil, ErrNoTmux
	}
	tm := &Terminal{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock"), env: env, dir: dir}
	// Every process the host starts (its hooks too) inherits the mark, so
	// the cleanup can wait for all of them: a hook the host runs as it
	// exits would otherwise still write into the test's directories while
	// the test removes them.
	mark := terminalMark + "=" + tm.sock
	args := []string{"new-session", "-d", "-x", itoa(width), "-y", itoa(height), "-e", mark}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	if _, err := tm.tmux(append(args, argv...)...); err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		// The server may be gone with its only session; that is no error.
		_, _ = tm.tmux("kill-server")
		if left := waitGone(mark, 20*time.Second); len(left) > 0 {
			t.Errorf("hosttest: processes of the terminal still run 20 s after it was killed (killed now): %v", left)
		}
	})
	return tm, nil
}

// terminalMark names the environment variable that marks a terminal's
// processes.
const terminalMark = "GRAFT_HOSTTEST_TERMINAL"

// waitGone waits up to within for every process whose environment holds
// mark to exit, and returns the pids of those that did not, after killing
// them. Without /proc (not Linux) it waits for nothing. A process between
// its fork and the end of its exec shows no environment yet, so none is
// taken to be left only when two scans confirmGone apart find none.
func waitGone(mark string, within time.Duration) []int {
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if len(markedProcesses(mark)) == 0 {
			time.Sleep(confirmGone)
			if len(markedProcesses(mark)) == 0 {
				return nil
			}
		}
	}
	left := markedProcesses(mark)
	for _, pid := range left {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill() // it may have ended since; the caller reports it
		}
	}
	return left
}

// confirmGone is how long waitGone waits before it looks again for a
// process it found none of.
const confirmGone = 20 * time.Millisecond

// markedProcesses are the pids of the processes (this one aside) whose
// environment holds mark.
func markedProcesses(mark string) []int {
	want := []byte(mark)
	var pids []int
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue // gone, or not ours to read
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

func itoa(n int) string {
	var b []byte
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func (tm *Terminal) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...)
	cmd.Dir, cmd.Env = tm.dir, tm.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), errors.Join(err, errors.New(strings.TrimSpace(string(out))))
	}
	return string(out), nil
}

// Type sends text as keys, then Enter, the way a person types a line.
func (tm *Terminal) Type(line string) {
	tm.t.Helper()
	if _, err := tm.tmux("send-keys", "-l", line); err != nil {
		tm.t.Fatalf("hosttest: typing %q: %v", line, err)
	}
	// A full-screen interface may read a pasted line and its Enter as one
	// paste: a pause lets it take the Enter as a key of its own.
	time.Sleep(300 * time.Millisecond)
	if _, err := tm.tmux("send-keys", "Enter"); err != nil {
		tm.t.Fatalf("hosttest: Enter: %v", err)
	}
}

// Keys sends named keys (tmux's names: "Down", "Tab", "Escape"), one at
// a time, each given a moment to take effect.
func (tm *Terminal) Keys(keys ...string) {
	tm.t.Helper()
	for _, k := range keys {
		if _, err := tm.tmux("send-keys", k); err != nil {
			tm.t.Fatalf("hosttest: key %s: %v", k, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// Quit types command (the host's own: "/quit", "/exit") and waits until
// the host's process has ended, so the terminal's cleanup finds nothing of
// it left. A host still busy with a turn, or an open completion menu that
// takes the Enter, may leave the command unrun: Quit presses Enter again
// after quitRetry, then interrupts the turn (Escape) and types the command
// once more. The test fails, with the screen, if the host still runs after
// that. Daemons the host leaves behind on purpose (Codex's app-server) are
// not waited for here; the terminal's cleanup waits for them.
func (tm *Terminal) Quit(command string) {
	tm.t.Helper()
	steps := []struct {
		keys []string
		wait time.Duration // for the host to end, after the keys
	}{
		// The command.
		{[]string{"-l", command}, 0},
		{[]string{"Enter"}, quitRetry},
		// An Enter a completion menu took.
		{[]string{"Enter"}, quitRetry},
		// A turn still running, interrupted, and the command again.
		{[]string{"Escape"}, 0},
		{[]string{"-l", command}, 0},
		{[]string{"Enter"}, 2 * quitRetry},
	}
	for _, st := range steps {
		if _, err := tm.tmux(append([]string{"send-keys"}, st.keys...)...); err != nil {
			if tm.ended(0) {
				return // it ended as the key was sent
			}
			tm.t.Fatalf("hosttest: sending %q to quit: %v", st.keys, err)
		}
		if st.wait > 0 {
			if tm.ended(st.wait) {
				return
			}
			tm.t.Logf("hosttest: the host still runs %v after %q; trying again", st.wait, st.keys)
		}
		// As Type does: a pasted line and its Enter must not read as one
		// paste, and a key needs a moment to take effect.
		time.Sleep(300 * time.Millisecond)
	}
	screen, _ := tm.tmux("capture-pane", "-p", "-J")
	tm.t.Fatalf("hosttest: the host did not end on %q, typed twice:\n%s", command, screen)
}

// ended waits up to within for the terminal's session to end, which it
// does when the host's process exits, and says whether it did.
func (tm *Terminal) ended(within time.Duration) bool {
	for end := time.Now().Add(within); ; time.Sleep(100 * time.Millisecond) {
		if _, err := tm.tmux("has-session"); err != nil {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// Screen is the visible screen, wrapped lines joined.
func (tm *Terminal) Screen() string {
	tm.t.Helper()
	out, err := tm.tmux("capture-pane", "-p", "-J")
	if err != nil {
		tm.t.Fatalf("hosttest: reading the screen: %v", err)
	}
	return out
}

// WaitFor polls the screen until it holds every one of texts, up to
// within; it returns the last screen and whether they all showed.
func (tm *Terminal) WaitFor(within time.Duration, texts ...string) (string, bool) {
	tm.t.Helper()
	end := time.Now().Add(within)
	for {
		s := tm.Screen()
		all := true
		for _, x := range texts {
			all = all && strings.Contains(s, x)
		}
		if all || time.Now().After(end) {
			return s, all
		}
		time.Sleep(200 * time.Millisecond)
	}
}
