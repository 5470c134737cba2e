package tape

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// syntheticSession is a work session of n events: one constraint in the
// first instruction, then turns of 50 events with messages, file tools with outputs of outputSize bytes, failures, todo
// writes and sub-agent reports.
func syntheticSession(n, outputSize int) []session.Event {
	output := strings.Repeat("     1→some source line of the file being read\n", outputSize/48+1)[:outputSize]
	evs := make([]session.Event, 0, n)
	for k := 0; len(evs) < n; k++ {
		id := fmt.Sprintf("c%d", k)
		switch {
		case k == 0:
			evs = append(evs, human("Refactor the modules. You must keep the API stable."))
		case k%50 == 0:
			evs = append(evs, human(fmt.Sprintf("Turn %d: continue with module %d.", k/50, k%7)))
		case k%50 == 1:
			evs = append(evs, todoWrite(todo("1", fmt.Sprintf("Refactor module %d", k%7), session.TodoInProgress), todo("2", "Write tests", session.TodoPending)))
		case k%50 == 25:
			evs = append(evs, subagent("explorer", "Summary: the module is fine.\n"+output[:min(len(output), 2000)]))
		case k%3 == 0:
			evs = append(evs, say(fmt.Sprintf("Looking at step %d.\n\nStep %d: the file reads fine, moving on.", k, k)))
		case k%3 == 1:
			evs = append(evs, call("Read", id, fmt.Sprintf(`{"file_path":"pkg/m%d/file%d.go"}`, k%7, k%40)))
		default:
			evs = append(evs, result("Read", fmt.Sprintf("c%d", k-1), k%17 != 0, output))
		}
	}
	return seqd(evs...)
}

func BenchmarkBuilderAdd(b *testing.B) {
	for _, size := range []int{256, 16 << 10} {
		b.Run(fmt.Sprintf("output=%dB", size), func(b *testing.B) {
			evs := syntheticSession(10000, size)
			raws := make([][]byte, len(evs))
			var total int64
			for k := range evs {
				raws[k] = rawLine(b, &evs[k])
				total += int64(len(raws[k]))
			}
			b.SetBytes(total)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bd := NewBuilder("bench")
				for k := range evs {
					if err := bd.Add(&evs[k], raws[k]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

func BenchmarkBuild(b *testing.B) {
	bd := fold(b, "bench", syntheticSession(10000, 1024))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := bd.Build(Options{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// The fold keeps no tool output: its state is the same size whether the
// outputs are 100 bytes or 256 KiB each.
func TestStateDoesNotGrowWithOutputSize(t *testing.T) {
	small, err := fold(t, "s", syntheticSession(600, 100)).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	large, err := fold(t, "s", syntheticSession(600, 256<<10)).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// Sub-agent reports keep up to 1,500 runes of their text, the only
	// place a bigger output shows.
	if len(large) > len(small)+keptReports*(maxReportRunes+100) {
		t.Fatalf("state grows with output size: %d bytes with 100-byte outputs, %d with 256 KiB outputs", len(small), len(large))
	}
	if len(large) > 256<<10 {
		t.Fatalf("state of a 600-event session is %d bytes", len(large))
	}
}

// Nor does it grow with the number of turns beyond its bounds. (A constraint
// said again in every turn would: Also lists each origin once, by design.)
func TestStateIsBoundedInTurns(t *testing.T) {
	sizes := map[int]int{}
	for _, n := range []int{20000, 80000} {
		snap, err := fold(t, "s", syntheticSession(n, 64)).Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		sizes[n] = len(snap)
	}
	if sizes[80000] > sizes[20000]*11/10 {
		t.Fatalf("state grows with session length: %v bytes", sizes)
	}
}
