// Package gctune sets the garbage collector of a short-lived graft
// process (a prepare, a commit, an import, a hook) so that a small heap is
// not collected every few MiB allocated.
//
// Go collects when the heap has grown by GOGC % (100) over what the last
// collection left live, and at 4 MiB at the least. A graft command keeps a
// few MiB live (a fold's state, a tape) and allocates tens of MiB on the
// way: an incremental prepare of the large bench preset ran four to five
// collections, a quarter of its time. After every collection, Start's
// tuner sets GOGC so that the next one comes when the heap reaches Floor
// (24 MiB): never below 100, so a command that keeps more than Floor/2
// live (a 25 MiB pasted text) runs with Go's default, and never above
// 600, where Go's minimum heap goal (4 MiB at GOGC 100, scaled with it)
// alone reaches Floor. No memory limit is set: a heap past one is
// collected over and over (a 25 MiB pasted text took 3.3 times the CPU
// under a 40 MiB limit). Measured on the large bench preset, one code,
// alternating: an incremental prepare (30 runs in-process) 16.5 ms at
// GOGC 600 against 20.7 and 24.8 ms at 100; the peak RSS of a full
// prepare 49–51 MiB either way (a 40 MiB floor took it to 64), of an
// import 45 MiB against 28; an import's time the same within the noise.
//
// GOGC or GOMEMLIMIT in the environment are the person's choice: Start
// leaves the collector alone then.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Floor is the heap size the tuner lets a small heap grow to before the
// next collection.
const Floor = 24 << 20

// heapMinimum is Go's minimum heap goal at GOGC=100; it scales with GOGC
// (4 MiB × GOGC/100), so past floor/heapMinimum × 100 the minimum alone
// would put the next collection past floor.
const heapMinimum = 4 << 20

// Percent is the GOGC that puts the next collection at floor for a heap
// with live bytes live after the last one: floor/live - 1, in percent,
// never below Go's default 100 and never above floor/heapMinimum × 100
// (600 for a 24 MiB floor), where the heap minimum makes the goal floor.
func Percent(live, floor uint64) int {
	most := int(floor * 100 / heapMinimum)
	if live == 0 {
		return most
	}
	if floor <= 2*live {
		return 100
	}
	return min(int(floor*100/live)-100, most)
}

var once sync.Once

// Start tunes the collector now and after every collection, for the life
// of the process, unless GOGC or GOMEMLIMIT is set. It says whether it
// does.
func Start() bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	once.Do(func() {
		debug.SetGCPercent(Percent(0, Floor))
		arm()
	})
	return true
}

// sentinel is unreachable once allocated: its finalizer runs after the
// collection that found it so, and arms the next one.
type sentinel struct{ _ [16]byte }

func arm() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		debug.SetGCPercent(Percent(Live(), Floor))
		arm()
	})
}

// Live is the heap the last collection left live, in bytes (0 before
// the first).
func Live() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
