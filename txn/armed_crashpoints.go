//go:build crashpoints

package txn

import (
	"fmt"
	"os"
	"strings"
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
	for _, f := range strings.Split(os.Getenv("GRAFT_FAULTS"), ",") {
		switch f {
		case "skip-cold-read":
			armedFaults.SkipColdRead = true
		case "skip-target-dirsync":
			armedFaults.SkipTargetDirSync = true
		}
	}
}
