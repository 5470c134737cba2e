//go:build crashpoints

package txn

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// With -tags crashpoints the crash suite arms one point through
// GRAFT_CRASH_POINT: on reaching it the process says so on stderr and waits
// for the parent's SIGKILL. GRAFT_FAULTS=skip-cold-read,skip-target-dirsync
// sets the fault knobs.
func init() {
	if p := os.Getenv("GRAFT_CRASH_POINT"); p != "" {
		armed = func(at Point) {
			if string(at) != p {
				return
			}
			fmt.Fprintf(os.Stderr, "GRAFT_CRASH_POINT_REACHED %s\n", at)
			select {} // the parent kills us here
		}
	}
	// GRAFT_PAUSE_POINT: on reaching it the process says so on stderr and
	// stops itself (SIGSTOP), as a worker paused by its machine; the parent
	// continues it (SIGCONT) when it wants, and it goes on from there.
	if p := os.Getenv("GRAFT_PAUSE_POINT"); p != "" {
		prev := armed
		armed = func(at Point) {
			if prev != nil {
				prev(at)
			}
			if string(at) != p {
				return
			}
			fmt.Fprintf(os.Stderr, "GRAFT_PAUSE_POINT_REACHED %s\n", at)
			// SIGSTOP reaches the process, not this thread first: this
			// goroutine could run on before the stop lands. It waits for
			// the SIGCONT that ends the stop instead.
			cont := make(chan os.Signal, 1)
			signal.Notify(cont, syscall.SIGCONT)
			if err := syscall.Kill(os.Getpid(), syscall.SIGSTOP); err != nil {
				fmt.Fprintf(os.Stderr, "GRAFT_PAUSE_POINT_FAILED %v\n", err)
			} else {
				<-cont
			}
			signal.Stop(cont)
			fmt.Fprintf(os.Stderr, "GRAFT_PAUSE_POINT_CONTINUED %s\n", at)
		}
	}
	for _, f := range strings.Split(os.Getenv("GRAFT_FAULTS"), ",") {
		switch f {
		case "skip-cold-read":
			armedFaults.SkipColdRead = true
		case "skip-target-dirsync":
			armedFaults.SkipTargetDirSync = true
		}
	}
}
