package hosttest

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
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
