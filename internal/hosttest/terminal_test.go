package hosttest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The terminal's cleanup waits for the processes it started, hooks
// included (they carry its mark), and kills those that outlive the wait:
// a hook writing into a test's directory as the test removes it failed
// the suite once.
func TestWaitGoneWaitsForMarkedProcesses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("waitGone reads /proc")
	}
	mark := terminalMark + "=" + t.TempDir()
	// start returns once the process shows its environment: until its
	// exec ends, /proc has none of it to read (a loaded machine made
	// that window long enough for waitGone to find nothing).
	start := func(secs string) *exec.Cmd {
		cmd := exec.Command("sleep", secs)
		cmd.Env = append(os.Environ(), mark)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(5 * time.Second); !slices.Contains(markedProcesses(mark), cmd.Process.Pid); time.Sleep(time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("process %d never showed the mark in /proc", cmd.Process.Pid)
			}
		}
		return cmd
	}
	short := start("0.5")
	done := make(chan error, 1)
	go func() { done <- short.Wait() }()
	began := time.Now()
	if left := waitGone(mark, 10*time.Second); left != nil {
		t.Fatalf("waitGone left %v, want none: the process ends after half a second", left)
	}
	if d := time.Since(began); d < 300*time.Millisecond {
		t.Fatalf("waitGone returned after %v, before the marked process ended", d)
	}
	<-done

	long := start("60")
	go func() { done <- long.Wait() }()
	left := waitGone(mark, 300*time.Millisecond)
	if !slices.Equal(left, []int{long.Process.Pid}) {
		t.Fatalf("waitGone reported %v, want the process that outlived the wait (%d)", left, long.Process.Pid)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the process that outlived the wait was not killed")
	}
}

// Quit waits until the host has ended, and types the command again when
// the host did not take it: the real Gemini CLI, busy with a turn on a
// loaded machine, once outlived a /quit typed once, and the terminal's
// cleanup failed the test 20 s later. The hosts here are shells that read
// lines from the terminal.
func TestQuitWaitsForTheHostAndTypesAgain(t *testing.T) {
	defer func(d time.Duration) { quitRetry = d }(quitRetry)
	quitRetry = time.Second
	host := func(t *testing.T, script string) *Terminal {
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TERM=xterm"}
		tm, err := NewTerminal(t, env, t.TempDir(), 80, 24, "bash", "-c", script)
		if errors.Is(err, ErrNoTmux) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if screen, ok := tm.WaitFor(10*time.Second, "ready"); !ok {
			t.Fatalf("the shell host did not start:\n%s", screen)
		}
		return tm
	}
	t.Run("at once", func(t *testing.T) {
		tm := host(t, `echo ready; while IFS= read -r l; do [ "$l" = /quit ] && exit; done`)
		began := time.Now()
		tm.Quit("/quit")
		if d := time.Since(began); d > quitRetry {
			t.Errorf("Quit took %v for a host that ends on the first /quit", d)
		}
		if _, err := tm.tmux("has-session"); err == nil {
			t.Error("the host still runs after Quit returned")
		}
	})
	t.Run("busy host", func(t *testing.T) {
		// It ends only on a line that begins with an interrupt (Escape),
		// as a host does that runs a turn.
		tm := host(t, `echo ready; while IFS= read -r l; do [ "$l" = $'\e/quit' ] && exit; echo "ignored: $l"; done`)
		tm.Quit("/quit")
		if _, err := tm.tmux("has-session"); err == nil {
			t.Error("the host still runs after Quit returned")
		}
	})
	t.Run("never ends", func(t *testing.T) {
		tm := host(t, `echo ready; while :; do read -r l; done`)
		rec := &fatalRecorder{TB: t}
		tm.t = rec
		done := make(chan struct{})
		go func() { defer close(done); tm.Quit("/quit") }()
		<-done
		if !strings.Contains(rec.fatal, `did not end on "/quit"`) {
			t.Errorf("Quit on a host that never ends: fatal %q, want it to fail the test", rec.fatal)
		}
		tm.t = t
	})
}

// fatalRecorder records a Fatalf and ends the goroutine, as testing's own
// does, without failing the test.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
