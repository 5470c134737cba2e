package session_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// snapshotLog exercises every part of the fold: an origin, grafts retired
// and undone, the epilogue of calls open at a commit point, and the
// abandoned mark.
func snapshotLog() []session.Event {
	abandoned := graftMark(session.TypeGraftAbandoned, "txn-9", "")
	abandoned.Reason = "reverted"
	evs := []session.Event{
		origin("txn-0", "parent"),
		human("goal"),
		call("c1"), call("c2"), result("c1"), call("c3"),
		graftMark(session.TypeGraftRetired, "txn-1", "t1"),
		result("c2"), assistant("after"),
		graftMark(session.TypeGraftUnretired, "txn-1", "t1"),
		human("again"), call("c4"),
		graftMark(session.TypeGraftRetired, "txn-2", "t2"),
		result("c3"),
		abandoned,
	}
	for k := range evs {
		evs[k].Seq = int64(k + 1)
	}
	return evs
}

// observe is everything Info answers, for comparing two folds.
func observe(t *testing.T, info *session.Info) string {
	t.Helper()
	var b strings.Builder
	live, ok := info.Live()
	b.WriteString(strings.Join([]string{string(info.State()), live.Txn, boolText(ok)}, " "))
	for _, id := range []string{"c1", "c2", "c3", "c4", "c5"} {
		b.WriteString(" " + id + "=" + boolText(info.EpilogueOpen(id)))
	}
	for _, g := range [][2]string{{"txn-1", "t1"}, {"txn-2", "t2"}} {
		txn, target := g[0], g[1]
		b.WriteString(" " + txn + "=" + boolText(info.Committed(txn, target)) + boolText(info.HasRetired(txn, target)))
	}
	return b.String()
}

func boolText(b bool) string {
	if b {
		return "T"
	}
	return "F"
}

func TestInfoSnapshotResumesAtEveryEvent(t *testing.T) {
	evs := snapshotLog()
	full := &session.Info{ID: "s"}
	for k := range evs {
		full.Add(&evs[k])
	}
	full.ScanResult = session.ScanResult{Events: len(evs), LastSeq: int64(len(evs)), End: 999}
	want, err := full.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut <= len(evs); cut++ {
		head := &session.Info{ID: "s"}
		for k := range evs[:cut] {
			head.Add(&evs[k])
		}
		data, err := head.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		resumed, err := session.RestoreInfo(data)
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if got := observe(t, resumed); got != observe(t, head) {
			t.Fatalf("cut %d: restored state answers %q, the state it came from %q", cut, got, observe(t, head))
		}
		for k := range evs[cut:] {
			resumed.Add(&evs[cut+k])
		}
		resumed.ScanResult = full.ScanResult
		got, err := resumed.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("cut %d: resumed fold\n%s\nuninterrupted fold\n%s", cut, got, want)
		}
		if observe(t, resumed) != observe(t, full) {
			t.Fatalf("cut %d: resumed fold answers %q, uninterrupted %q", cut, observe(t, resumed), observe(t, full))
		}
		if !reflect.DeepEqual(resumed.Origin, full.Origin) || !reflect.DeepEqual(resumed.Grafts, full.Grafts) || !reflect.DeepEqual(resumed.Abandoned, full.Abandoned) {
			t.Fatalf("cut %d: exported fields differ", cut)
		}
	}
	// The log must have exercised what it claims to.
	mid := &session.Info{ID: "s"}
	for k := range evs[:8] {
		mid.Add(&evs[k])
	}
	if !mid.EpilogueOpen("c3") || mid.EpilogueOpen("c1") || mid.State() != session.StateRetired {
		t.Fatalf("the log does not reach the epilogue it is meant to test: %s", observe(t, mid))
	}
}

func TestRestoreInfoRefusesWhatItDoesNotUnderstand(t *testing.T) {
	good, err := (&session.Info{ID: "s"}).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"other version": strings.Replace(string(good), `"v":1`, `"v":2`, 1),
		"unknown field": strings.Replace(string(good), `{`, `{"extra":1,`, 1),
		"bad id":        strings.Replace(string(good), `"id":"s"`, `"id":"../x"`, 1),
		"not json":      "{",
		"two values":    string(good) + string(good),
	} {
		t.Run(name, func(t *testing.T) {
			if data == string(good) {
				t.Fatal("the case did not change the snapshot")
			}
			if _, err := session.RestoreInfo([]byte(data)); !errors.Is(err, session.ErrInfoSnapshot) {
				t.Fatalf("RestoreInfo(%q) = %v, want ErrInfoSnapshot", data, err)
			}
		})
	}
}
