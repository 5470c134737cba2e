// Command graft slices a long agent session into a fresh one as a crash-safe,
// journaled transaction. Run "graft --help".
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	tuneGC(os.Getenv)
	os.Exit(main1())
}

// gcPercent is graft's GOGC when the environment sets none. Most of what a
// prepare allocates is read-ahead of the log, alive for milliseconds; at
// the default 100 the heap of a full read of a 1.2 GiB log peaks at twice
// its ~20 MiB live set, and at 50 at 1.5 times: peak RSS 57-59 MiB became
// 47-48 MiB for 5% more time (issue 9: ≤ 64 MiB).
const gcPercent = 50

// tuneGC sets gcPercent unless GOGC is set, and returns the GOGC in force
// after it (-1: off).
func tuneGC(getenv func(string) string) int {
	if getenv("GOGC") != "" {
		old := debug.SetGCPercent(100)
		debug.SetGCPercent(old)
		return old
	}
	debug.SetGCPercent(gcPercent)
	return gcPercent
}
