package tape

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"reflect"
	"strings"
	"testing"

	"github.com/zeebo/xxh3"

	"github.com/graft-project/graft/session"
)

// axisSession: the boundary is seq 7; seqs 8.. are the open turn.
func axisSession() []session.Event {
	return seqd(
		human("Build the cache. You must keep it lock-free."),           // 1
		say("Reading.\n\nI read the cache."),                            // 2
		call("Read", "r1", `{"file_path":"cache.go"}`),                  // 3
		result("Read", "r1", true, "package cache"),                     // 4
		todoWrite(todo("1", "Write the cache", session.TodoInProgress)), // 5
		subagent("explorer", "Summary: no locks found."),                // 6
		human("Now benchmark it."),                                      // 7
		say("Running the benchmark.\n\nBenchmarks started."),            // 8
		call("Bash", "b1", `{"command":"go test -bench ."}`),            // 9
	)
}

func TestPrefixHashIsOverEventsBeforeTheBoundary(t *testing.T) {
	evs := axisSession()
	tp := build(t, "s", evs, Options{}, nil)
	if tp.BoundarySeq != 7 {
		t.Fatalf("boundary %d", tp.BoundarySeq)
	}
	// Recompute the definition of doc.go by hand.
	h := newPrefixHashForTest()
	for k := range evs {
		if evs[k].Seq < tp.BoundarySeq {
			lineEntryByHand(h, rawLine(t, &evs[k]))
		}
	}
	want := "graft-prefix-v2:" + hexSum(h)
	if tp.PrefixHash != want {
		t.Fatalf("PrefixHash %s, want %s", tp.PrefixHash, want)
	}
	if !strings.HasPrefix(tp.TapeHash, "graft-tape-v2:") || len(tp.TapeHash) != len("graft-tape-v2:")+64 {
		t.Fatalf("TapeHash %q", tp.TapeHash)
	}
	// No human instruction: the prefix is empty.
	empty := build(t, "s", seqd(say("hello")), Options{}, nil)
	if empty.PrefixHash != PrefixHashPrefix+hexSum(newPrefixHashForTest()) || empty.BoundarySeq != 0 {
		t.Fatalf("no-human prefix %s boundary %d", empty.PrefixHash, empty.BoundarySeq)
	}
}

func TestDeterministic(t *testing.T) {
	left := []Leftover{{Target: "b", Txn: "2", State: "PREPARING", Reason: "x"}, {Target: "a", Txn: "1", State: "COLD_VERIFIED", Reason: "y"}}
	first := build(t, "big", bigSession(), Options{RecentTurns: 2, Budget: 9000}, left)
	for i := 0; i < 3; i++ {
		again := build(t, "big", bigSession(), Options{RecentTurns: 2, Budget: 9000}, []Leftover{left[1], left[0]})
		if again.Text != first.Text || again.TapeHash != first.TapeHash || !reflect.DeepEqual(again, first) {
			t.Fatalf("run %d differs (leftovers in another order)", i)
		}
	}
	// Build does not change the builder.
	b := fold(t, "big", bigSession())
	one, err := b.Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Build(Options{Tier: TierB, Budget: MinBudget}, left); err != nil {
		t.Fatal(err)
	}
	two, err := b.Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, two) {
		t.Fatal("a Build in between changed the next one")
	}
}

// Every input that shapes the tape changes TapeHash; the open turn changes
// it but not PrefixHash.
func TestHashAxes(t *testing.T) {
	base := build(t, "s", axisSession(), Options{}, nil)
	seen := map[string]string{base.TapeHash: "base"}
	differs := func(name string, tp *Tape) {
		t.Helper()
		if prev, dup := seen[tp.TapeHash]; dup {
			t.Errorf("%s: TapeHash equals that of %s", name, prev)
		}
		seen[tp.TapeHash] = name
	}

	// Options, one at a time.
	for name, opts := range map[string]Options{
		"tier B":        {Tier: TierB},
		"recentTurns 1": {RecentTurns: 1},
		"recentTurns 2": {RecentTurns: 2},
		"autoTier":      {AutoTier: true},
		"budget 15999":  {Budget: 15999},
		"budget 4000":   {Budget: MinBudget},
	} {
		differs(name, build(t, "s", axisSession(), opts, nil))
	}
	// Options meaning the same tape hash the same.
	for name, opts := range map[string]Options{"tier A": {Tier: TierA}, "budget 16000": {Budget: DefaultBudget}} {
		if tp := build(t, "s", axisSession(), opts, nil); tp.TapeHash != base.TapeHash {
			t.Errorf("%s: TapeHash differs from the defaults", name)
		}
	}

	// Every event before the boundary, changed in a way the text does not
	// show (its ts): caught by the prefix hash.
	for seq := int64(1); seq < base.BoundarySeq; seq++ {
		evs := axisSession()
		evs[seq-1].TS = "2025-03-03T09:00:01.000Z"
		tp := build(t, "s", evs, Options{}, nil)
		if tp.PrefixHash == base.PrefixHash {
			t.Errorf("seq %d changed: PrefixHash did not", seq)
		}
		differs(fmt.Sprintf("ts of seq %d", seq), tp)
	}
	// The boundary event itself and the open turn are not in the prefix.
	for seq := base.BoundarySeq; seq <= base.LastSeq; seq++ {
		evs := axisSession()
		evs[seq-1].TS = "2025-03-03T09:00:01.000Z"
		if tp := build(t, "s", evs, Options{}, nil); tp.PrefixHash != base.PrefixHash {
			t.Errorf("seq %d (boundary or after) changed PrefixHash", seq)
		}
	}

	// Leftovers: one more, or one field changed.
	l := Leftover{Target: "s-g2", Txn: "t1", State: "PREPARING", Reason: "killed"}
	differs("one leftover", build(t, "s", axisSession(), Options{}, []Leftover{l}))
	for _, change := range []func(*Leftover){
		func(x *Leftover) { x.Target = "s-g3" },
		func(x *Leftover) { x.Txn = "t2" },
		func(x *Leftover) { x.State = "TARGET_FLUSHED" },
		func(x *Leftover) { x.Reason = "enospc" },
	} {
		c := l
		change(&c)
		differs("leftover "+c.Target+c.Txn+c.State+c.Reason, build(t, "s", axisSession(), Options{}, []Leftover{c}))
	}

	// The source id.
	differs("other source id", build(t, "s2", axisSession(), Options{}, nil))

	// Appending to the open turn: carryover and TapeHash change, the prefix
	// does not.
	tp := build(t, "s", then(axisSession(), say("Benchmarks done.\n\nThe cache does 12M ops/s.")), Options{}, nil)
	if tp.PrefixHash != base.PrefixHash {
		t.Error("appending to the open turn changed PrefixHash")
	}
	if tp.CarryoverChars == base.CarryoverChars {
		t.Errorf("appending to the open turn left CarryoverChars at %d", tp.CarryoverChars)
	}
	differs("grown open turn", tp)
	// A tool result in the open turn changes no paragraph but the tape.
	tp = build(t, "s", then(axisSession(), result("Bash", "b1", true, "ok")), Options{}, nil)
	if tp.PrefixHash != base.PrefixHash {
		t.Error("a tool result in the open turn changed PrefixHash")
	}
	differs("tool result in the open turn", tp)
	// A new human instruction moves the boundary: both hashes change.
	tp = build(t, "s", then(axisSession(), human("Stop.")), Options{}, nil)
	if tp.PrefixHash == base.PrefixHash || tp.BoundarySeq != 10 {
		t.Errorf("a new boundary kept PrefixHash (boundary %d)", tp.BoundarySeq)
	}
	differs("new boundary", tp)
}

func TestSnapshotRestoreAtEveryEvent(t *testing.T) {
	sessions := map[string][]session.Event{
		"axis": axisSession(),
		"tier": tierSession(true, true),
		"gen3": seqd(
			origin(3, "g2", 90, &session.Inherited{
				FirstGoal:   &session.Quote{Text: "Write a parser.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 2}},
				Constraints: []session.Constraint{{Text: "Never push.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 2}}},
			}),
			human("Go on. Never push."),
			call("Edit", "e", `{"file_path":"a.go"}`),
			result("Edit", "e", true, "ok"),
			subagent("x", "Result: fine."),
			say("Done.\n\nAll good."),
			human("Next."),
			say("Working."),
		),
		// Codex's Plan mode: the plan proposed, approved by leaving Plan
		// mode (plan.ByMode, plan.Answered), then worked on.
		"codex-plan": seqd(
			codexMode("plan"),
			human("Plan the parser."),
			proposed("Here it is.\n\n", "# Parser plan\n\n1. Tokenise by hand.", ""),
			codexMode("default"),
			human("Implement the plan."),
			call("Edit", "e", `{"file_path":"lexer.go"}`),
			result("Edit", "e", true, "ok"),
			say("Lexer written."),
		),
	}
	optionSets := []Options{{}, {Tier: TierB}, {RecentTurns: 3, AutoTier: true, Budget: MinBudget}}
	left := []Leftover{{Target: "t", Txn: "x", State: "PREPARING", Reason: "killed"}}
	for name, evs := range sessions {
		whole := fold(t, name, evs)
		var want []*Tape
		for _, o := range optionSets {
			tp, err := whole.Build(o, left)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, tp)
		}
		for cut := 0; cut <= len(evs); cut++ {
			part := fold(t, name, evs[:cut])
			snap, err := part.Snapshot()
			if err != nil {
				t.Fatalf("%s: snapshot at %d: %v", name, cut, err)
			}
			resumed, err := Restore(snap)
			if err != nil {
				t.Fatalf("%s: restore at %d: %v", name, cut, err)
			}
			again, err := resumed.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(snap) {
				t.Fatalf("%s: snapshot of a restored builder differs at %d", name, cut)
			}
			for k := cut; k < len(evs); k++ {
				if err := resumed.Add(&evs[k], rawLine(t, &evs[k])); err != nil {
					t.Fatalf("%s: add seq %d after restore at %d: %v", name, evs[k].Seq, cut, err)
				}
			}
			for i, o := range optionSets {
				got, err := resumed.Build(o, left)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want[i]) {
					t.Fatalf("%s: restored at event %d, options %+v: tape differs\n got %s\nwant %s", name, cut, o, got.TapeHash, want[i].TapeHash)
				}
			}
		}
	}
}

func TestRestoreRefuses(t *testing.T) {
	good, err := fold(t, "s", axisSession()).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	cur := fmt.Sprintf(`"v":%d`, snapshotVersion)
	tests := map[string][]byte{
		"not json":         []byte("{"),
		"other version":    []byte(strings.Replace(string(good), cur, fmt.Sprintf(`"v":%d`, snapshotVersion+1), 1)),
		"bad running hash": []byte(strings.Replace(string(good), `"runningHash":"`, `"runningHash":"AAAA`, 1)),
		"bad prefix hash":  []byte(strings.Replace(string(good), `"prefixState":"`, `"prefixState":"AAAA`, 1)),
		"null file entry":  []byte(strings.Replace(string(good), `"files":{"cache.go":{`, `"files":{"x.go":null,"cache.go":{`, 1)),
	}
	// Every earlier version (1: graft-prefix-v1; 2: no constraint cap; 3:
	// no line digests; 4: tape v1's fold; 5: final paragraphs; 6: no
	// pasted seqs; 7: noisy key lines; 8: no earlier edits; 9: no scripts
	// run again; 10: report heads; 11: no headings; 12: scripts run by an
	// interpreter without a path not fixed; 13: a chain's commands listed
	// at its first later run; 14: no labelled lines of documents; 15:
	// constraints read in pasted program output; 20: 30 human
	// instructions, those let go not counted; 21: no call in flight at
	// length; 22: no sub-agent's prompt in flight; 23: polls unnamed; 24:
	// control sequences in key lines; 25: exec headers read as output; 26:
	// no request_user_input answers; 27: no git state; 28: polls named by
	// the raw command) is refused.
	for v := 1; v < snapshotVersion; v++ {
		tests[fmt.Sprintf("version %d", v)] = []byte(strings.Replace(string(good), cur, fmt.Sprintf(`"v":%d`, v), 1))
	}
	for name, data := range tests {
		if string(data) == string(good) {
			t.Fatalf("%s: the test did not change the snapshot", name)
		}
		if _, err := Restore(data); !errors.Is(err, ErrSnapshot) {
			t.Errorf("%s: Restore = %v, want ErrSnapshot", name, err)
		}
	}
}

// then appends ev to evs as the next seq.
func then(evs []session.Event, ev session.Event) []session.Event {
	ev.Seq = int64(len(evs) + 1)
	ev.TS = "2025-03-03T09:00:00.000Z"
	return append(evs, ev)
}

func newPrefixHashForTest() hash.Hash {
	h := sha256.New()
	lpByHand(h, []byte("graft-prefix-v2"))
	return h
}

// lpByHand is the length prefix of doc.go, written without writeLP.
func lpByHand(h hash.Hash, b []byte) {
	n := uint64(len(b))
	h.Write([]byte{byte(n >> 56), byte(n >> 48), byte(n >> 40), byte(n >> 32), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
	h.Write(b)
}

// lineEntryByHand writes one line's entry of graft-prefix-v2: its length
// as 8 bytes big-endian, then its XXH3-128 as 16 bytes big-endian (high
// half first), spelled out here rather than through the builder's code.
func lineEntryByHand(h hash.Hash, line []byte) {
	n := uint64(len(line))
	h.Write([]byte{byte(n >> 56), byte(n >> 48), byte(n >> 40), byte(n >> 32), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
	d := xxh3.Hash128(line)
	var b [16]byte
	for i := 0; i < 8; i++ {
		b[i] = byte(d.Hi >> (56 - 8*i))
		b[8+i] = byte(d.Lo >> (56 - 8*i))
	}
	h.Write(b[:])
}

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// AddSum folds with the sum it is given: the right sum gives Add's tape,
// a wrong sum for an event before the boundary gives another prefix hash
// (so the sum ScanFoldSums computes is what the hash reads).
func TestAddSumUsesTheGivenSum(t *testing.T) {
	evs := axisSession()
	want := build(t, "s", evs, Options{}, nil)
	for _, wrongAt := range []int64{0, 3} {
		b := NewBuilder("s")
		for k := range evs {
			raw := rawLine(t, &evs[k])
			sum := session.SumLine(raw)
			if evs[k].Seq == wrongAt {
				sum[0] ^= 1
			}
			if err := b.AddSum(&evs[k], len(raw), sum); err != nil {
				t.Fatal(err)
			}
		}
		got, err := b.Build(Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if same := got.PrefixHash == want.PrefixHash && reflect.DeepEqual(got, want); same != (wrongAt == 0) {
			t.Fatalf("wrong sum at seq %d: prefix %s, Add's %s", wrongAt, got.PrefixHash, want.PrefixHash)
		}
	}
}
