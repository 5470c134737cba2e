package gctune

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 600},         // before the first collection: the heap minimum, 4 MiB × 6
		{2 << 20, 600},   // 2 MiB live: the heap minimum makes the goal 24 MiB
		{5 << 20, 380},   // 5 MiB live: 5 × 4.8 = 24 MiB
		{10 << 20, 140},  // 10 MiB live: 10 × 2.4 = 24 MiB
		{12 << 20, 100},  // half the floor: Go's default
		{100 << 20, 100}, // a big heap: Go's default, no limit
		{23 << 20, 100},
	} {
		if got := Percent(c.live, Floor); got != c.want {
			t.Errorf("Percent(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// The tuner follows the live heap after each collection, in a process of
// its own (it tunes its process for good): a small heap gets a high GOGC,
// a heap past half the floor Go's default, and a small one again after.
func TestStartFollowsTheLiveHeap(t *testing.T) {
	if os.Getenv("GCTUNE_CHILD") == "1" {
		child()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartFollowsTheLiveHeap$", "-test.v")
	cmd.Env = append(os.Environ(), "GCTUNE_CHILD=1")
	for _, k := range []string{"GOGC", "GOMEMLIMIT"} {
		cmd.Env = append(cmd.Env, k+"=") // unset for the child: Start tunes
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "tuned ok") {
		t.Fatalf("the child: %v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}

func child() {
	if !Start() {
		println("Start declined with GOGC/GOMEMLIMIT unset")
		os.Exit(1)
	}
	current := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
	settle := func() int {
		for range 3 {
			runtime.GC() // the finalizer runs after a collection, on its own goroutine
			runtime.Gosched()
		}
		return current()
	}
	small := settle()
	big := make([]byte, 30<<20)
	for k := range big {
		big[k] = byte(k)
	}
	large := settle()
	runtime.KeepAlive(big)
	big = nil
	again := settle()
	// Live() includes the test binary's own few hundred KiB: the small
	// figures are checked by range, the large one exactly.
	if small < 400 || large != 100 || again < 400 {
		println("tuned: small", small, "large", large, "again", again)
		os.Exit(1)
	}
	// With a small heap, garbage is collected about every Floor bytes: 400
	// MiB of it takes some collections, not none (a GOGC past 600 would
	// raise Go's heap minimum past the floor) and not one per 4 MiB.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.NumGC
	var sink []byte
	for range 400 {
		sink = make([]byte, 1<<20)
		sink[0] = 1
	}
	runtime.KeepAlive(sink)
	runtime.ReadMemStats(&ms)
	if n := ms.NumGC - before; n < 4 || n > 40 {
		println("tuned: 400 MiB of garbage took", n, "collections, want about 17")
		os.Exit(1)
	}
	println("tuned ok: small", small, "large", large, "again", again, "collections per 400 MiB", ms.NumGC-before)
}
