package crashtest

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/txn"
)

func TestTornOffsets(t *testing.T) {
	for _, c := range []struct {
		n, whole, stride int
		want             []int
	}{
		{n: 10, whole: 9, stride: 1, want: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{n: 10, whole: 9, stride: 3, want: []int{0, 3, 6, 7, 8, 9}},
		{n: 12, whole: 11, stride: 4, want: []int{0, 4, 8, 9, 10, 11}},
	} {
		if got := tornOffsets(c.n, c.whole, c.stride); !slices.Equal(got, c.want) {
			t.Errorf("tornOffsets(%d, %d, %d) = %v, want %v", c.n, c.whole, c.stride, got, c.want)
		}
	}
}

func TestTornRecordStrideDefaults(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want int
	}{
		{Config{RandomKills: DefaultRandomKills}, DefaultTornRecordStride},
		{Config{RandomKills: 2000}, 1},
		{Config{RandomKills: 2000, TornRecordStride: 5}, 5},
		{Config{RandomKills: DefaultRandomKills, TornRecordStride: 1}, 1},
	} {
		if got := tornRecordStride(c.cfg); got != c.want {
			t.Errorf("tornRecordStride(random kills %d, stride %d) = %d, want %d", c.cfg.RandomKills, c.cfg.TornRecordStride, got, c.want)
		}
	}
}

// tornKind is the entry of tornRecords for point.
func tornKind(t *testing.T, point txn.Point) tornRecord {
	t.Helper()
	for _, tr := range tornRecords {
		if tr.point == point {
			return tr
		}
	}
	t.Fatalf("no torn record is cut at %s", point)
	return tornRecord{}
}

// TestTornRecordsCoverEveryState: a PREPARING, a TARGET_FLUSHED and a
// COLD_VERIFIED record are each cut, the last also after the retire.
func TestTornRecordsCoverEveryState(t *testing.T) {
	states := map[journal.State]int{}
	for _, tr := range tornRecords {
		states[tr.state]++
	}
	if states[journal.Preparing] == 0 || states[journal.TargetFlushed] == 0 || states[journal.ColdVerified] < 2 {
		t.Fatalf("torn records by state: %v", states)
	}
	if tr := tornKind(t, txn.CommitSourceRetired); tr.outcome != targetLive {
		t.Fatalf("the COLD_VERIFIED record of a retired source must leave the target live, outcome is %v", tr.outcome)
	}
}

// TestDiscardingTheCorruptRecordFailsTornRecords proves the torn-record
// family can fail: a recovery that sweeps the corrupt COLD_VERIFIED record
// away (instead of reporting it and leaving it as evidence) fails every
// cut that is not a whole record, and no other.
func TestDiscardingTheCorruptRecordFailsTornRecords(t *testing.T) {
	s := newTestSuite(t)
	s.cfg.TornRecordStride, s.cfg.Parallel = 64, 2
	s.tornRecordRecoverer = func(home string) (recoveryRun, error) {
		path, err := recordPath(home)
		if err == nil {
			if err := os.Remove(path); err != nil {
				return recoveryRun{}, err
			}
		}
		return recoverInProcess(home)
	}
	tr := tornKind(t, txn.CommitSourceRetired)
	var jobs []job
	for _, j := range s.tornRecordKindJobs(tr) {
		j.group = GroupTornTails
		jobs = append(jobs, j)
	}
	rows := s.runJobs(jobs)
	var failed, readable int
	for _, r := range rows {
		whole := strings.HasPrefix(r.Expected, "still a whole record")
		switch {
		case whole:
			readable++
			if r.Result != Pass {
				t.Errorf("%s: a whole record is resolved either way, yet: %s", r.Case, r.Observed)
			}
		case r.Result == Fail:
			failed++
			if !strings.Contains(r.Observed, "not left as evidence") {
				t.Errorf("%s failed for another reason than the discarded record: %s", r.Case, r.Observed)
			}
		default:
			t.Errorf("%s passed although recovery discarded the corrupt record: %s", r.Case, r.Observed)
		}
	}
	t.Logf("discarding recovery: %d of %d cuts failed, %d whole records passed", failed, len(rows), readable)
	if failed == 0 || readable == 0 {
		t.Fatalf("want failing cuts and whole-record cuts, got %d failed and %d whole of %d rows", failed, readable, len(rows))
	}
	if want := fmt.Sprintf("torn %s record @0", journal.ColdVerified); rows[0].Case != want {
		t.Errorf("first row %q, want %q", rows[0].Case, want)
	}
}
