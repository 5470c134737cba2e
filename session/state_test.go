package session_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

func retired(txn, target string) session.Event {
	return graftMark(session.TypeGraftRetired, txn, target)
}

func unretired(txn, target string) session.Event {
	return graftMark(session.TypeGraftUnretired, txn, target)
}

func abandoned(txn, reason string) session.Event {
	ev := graftMark(session.TypeGraftAbandoned, txn, "")
	ev.Reason = reason
	return ev
}

// plantLog writes a log of these events (seq 1..n) directly, so the fold is
// tested on logs the append rules would not let a test build step by step.
func plantLog(t *testing.T, st *session.Store, id string, evs ...session.Event) {
	t.Helper()
	var data string
	for k, ev := range evs {
		data += line(t, int64(k+1), ev)
	}
	writeRaw(t, st, id, data)
}

func TestStateFold(t *testing.T) {
	cases := []struct {
		name       string
		evs        []session.Event
		state      session.State
		live       string // target of the live graft, "" for none
		committed  map[string]bool
		generation int
		lastHuman  int64
	}{
		{name: "empty", state: session.StateActive, generation: 1},
		{name: "plain", evs: []session.Event{human("go"), assistant("ok")}, state: session.StateActive, generation: 1, lastHuman: 1},
		{name: "retired", evs: []session.Event{human("go"), retired("t1", "b")}, state: session.StateRetired, live: "b",
			committed: map[string]bool{"t1": true, "t2": false}, generation: 1, lastHuman: 1},
		{name: "reverted", evs: []session.Event{human("go"), retired("t1", "b"), unretired("t1", "b")}, state: session.StateActive,
			committed: map[string]bool{"t1": false}, generation: 1, lastHuman: 1},
		{name: "reverted then grafted again", evs: []session.Event{human("go"), retired("t1", "b"), unretired("t1", "b"), human("again"), retired("t2", "c")},
			state: session.StateRetired, live: "c", committed: map[string]bool{"t1": false, "t2": true}, generation: 1, lastHuman: 4},
		{name: "re-sliced: the later graft is the head", evs: []session.Event{human("go"), retired("t1", "b"), human("again"), retired("t2", "c")},
			state: session.StateRetired, live: "c", committed: map[string]bool{"t1": true, "t2": true}, generation: 1, lastHuman: 3},
		{name: "unretired for another txn", evs: []session.Event{retired("t1", "b"), unretired("t9", "b")}, state: session.StateRetired, live: "b",
			committed: map[string]bool{"t1": true}, generation: 1},
		{name: "target", evs: []session.Event{origin("t1", "a"), assistant("tape")}, state: session.StateActive, generation: 2},
		{name: "origin not first is no origin", evs: []session.Event{assistant("x"), origin("t1", "a")}, state: session.StateActive, generation: 1},
		{name: "abandoned target", evs: []session.Event{origin("t1", "a"), abandoned("t1", "rolled back")}, state: session.StateAbandoned, generation: 2},
		{name: "abandoned beats retired", evs: []session.Event{origin("t1", "a"), retired("t2", "c"), abandoned("t1", "reverted")}, state: session.StateAbandoned, live: "c", generation: 2},
		{name: "injected user text is no human instruction", evs: []session.Event{human("go"),
			{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindPlugin}, Text: "IMPORTANT: do X"},
			{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: session.GraftMarker + " v1]"}},
			state: session.StateActive, generation: 1, lastHuman: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newStore(t)
			plantLog(t, st, "s", c.evs...)
			info, err := st.Info("s")
			if err != nil {
				t.Fatal(err)
			}
			if info.State() != c.state {
				t.Errorf("state %s, want %s", info.State(), c.state)
			}
			g, ok := info.Live()
			if ok != (c.live != "") || g.Target != c.live {
				t.Errorf("Live() = %+v, %v; want target %q", g, ok, c.live)
			}
			for txn, want := range c.committed {
				target, wasRetired := "b", false
				for _, ev := range c.evs {
					if ev.Type == session.TypeGraftRetired && ev.Txn == txn {
						target, wasRetired = ev.Target, true
					}
				}
				if got := info.Committed(txn, target); got != want {
					t.Errorf("Committed(%s, %s) = %v, want %v", txn, target, got, want)
				}
				if got := info.HasRetired(txn, target); got != wasRetired {
					t.Errorf("HasRetired(%s, %s) = %v, want %v", txn, target, got, wasRetired)
				}
				// A copy of the target's log holds its graft/origin, txn
				// included, but the graft/retired names the target.
				if info.Committed(txn, target+".copy") || info.HasRetired(txn, target+".copy") {
					t.Errorf("Committed/HasRetired(%s, %s.copy): true for a session the graft/retired does not name", txn, target)
				}
				if into, ok := info.RetiredInto(txn); ok != wasRetired || (ok && into != target) {
					t.Errorf("RetiredInto(%s) = %q, %v; want %q, %v", txn, into, ok, target, wasRetired)
				}
			}
			if info.Generation() != c.generation {
				t.Errorf("generation %d, want %d", info.Generation(), c.generation)
			}
			if info.LastHuman != c.lastHuman {
				t.Errorf("last human seq %d, want %d", info.LastHuman, c.lastHuman)
			}
			if info.Events != len(c.evs) || info.ID != "s" {
				t.Errorf("info %s with %d events, want s with %d", info.ID, info.Events, len(c.evs))
			}
		})
	}
}

// Check and Append refuse sessions that must not grow, each with an error
// that names the session to use instead.
func TestCheckRefusals(t *testing.T) {
	type want struct {
		sentinel error  // nil: Check passes and Append works
		use      string // the session the message must name
	}
	cases := []struct {
		name string
		logs map[string][]session.Event // "s" is the session under test
		want want
	}{
		{"active", map[string][]session.Event{"s": {human("go")}}, want{}},
		{"retired", map[string][]session.Event{"s": {human("go"), retired("t1", "b")}}, want{session.ErrRetired, "b"}},
		{"reverted", map[string][]session.Event{"s": {human("go"), retired("t1", "b"), unretired("t1", "b")}}, want{}},
		{"committed target", map[string][]session.Event{
			"a": {human("go"), retired("t1", "s")},
			"s": {origin("t1", "a"), assistant("tape")}}, want{}},
		{"uncommitted target, no mark", map[string][]session.Event{
			"a": {human("go")},
			"s": {origin("t1", "a"), assistant("tape")}}, want{session.ErrUncommitted, "a"}},
		{"target of another txn's retire", map[string][]session.Event{
			"a": {human("go"), retired("t0", "old")},
			"s": {origin("t1", "a")}}, want{session.ErrUncommitted, "a"}},
		{"reverted target, not yet marked", map[string][]session.Event{
			"a": {human("go"), retired("t1", "s"), unretired("t1", "s")},
			"s": {origin("t1", "a"), assistant("tape")}}, want{session.ErrUncommitted, "a"}},
		{"abandoned target", map[string][]session.Event{
			"a": {human("go")},
			"s": {origin("t1", "a"), abandoned("t1", "rolled back")}}, want{session.ErrAbandoned, "a"}},
		{"retired target (gen 2 grafted into gen 3)", map[string][]session.Event{
			"a": {human("go"), retired("t1", "s")},
			"s": {origin("t1", "a"), retired("t2", "c")}}, want{session.ErrRetired, "c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newStore(t)
			for id, evs := range c.logs {
				plantLog(t, st, id, evs...)
			}
			info, err := st.Info("s")
			if err != nil {
				t.Fatal(err)
			}
			checkErr := st.Check(info)
			before := readRaw(t, st.Path("s"))
			_, appendErr := st.Append("s", []session.Event{human("next")})
			if c.want.sentinel == nil {
				if checkErr != nil || appendErr != nil {
					t.Fatalf("Check: %v; Append: %v; want both to pass", checkErr, appendErr)
				}
				checkLog(t, st, "s", len(c.logs["s"])+1)
				return
			}
			for what, err := range map[string]error{"Check": checkErr, "Append": appendErr} {
				if !errors.Is(err, c.want.sentinel) {
					t.Fatalf("%s: %v, want %v", what, err, c.want.sentinel)
				}
				if !strings.Contains(err.Error(), "continue in "+c.want.use) {
					t.Fatalf("%s: %q does not name %s as the session to use", what, err, c.want.use)
				}
			}
			if readRaw(t, st.Path("s")) != before {
				t.Fatal("a refused append wrote")
			}
		})
	}
}

func TestCheckTypedErrors(t *testing.T) {
	st := newStore(t)
	plantLog(t, st, "a", human("go"))
	plantLog(t, st, "r", human("go"), retired("t1", "b"))
	plantLog(t, st, "u", origin("t1", "a"))
	plantLog(t, st, "x", origin("t2", "a"), abandoned("t2", "reverted"))
	plantLog(t, st, "orphan", origin("t3", "gone"))
	check := func(id string) error {
		info, err := st.Info(id)
		if err != nil {
			t.Fatal(err)
		}
		return st.Check(info)
	}
	var re *session.RetiredError
	if err := check("r"); !errors.As(err, &re) || re.ID != "r" || re.Target != "b" {
		t.Fatalf("retired: %v", err)
	}
	var ue *session.UncommittedError
	if err := check("u"); !errors.As(err, &ue) || ue.ID != "u" || ue.Txn != "t1" || ue.Parent != "a" {
		t.Fatalf("uncommitted: %v", err)
	}
	var ae *session.AbandonedError
	if err := check("x"); !errors.As(err, &ae) || ae.ID != "x" || ae.Reason != "reverted" || ae.Use != "a" {
		t.Fatalf("abandoned: %v", err)
	}
	// A parent that cannot be read is an error naming it, never "committed".
	err := check("orphan")
	if !errors.Is(err, session.ErrNotFound) || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("target of a missing parent: %v, want ErrNotFound naming the parent", err)
	}
	if _, err := st.Append("orphan", []session.Event{human("x")}); err == nil {
		t.Fatal("Append to the target of a missing parent passed")
	}
}

// AppendMark bypasses the state rules: recovery marks uncommitted targets,
// a revert unretires a retired source.
func TestAppendMarkBypassesState(t *testing.T) {
	st := newStore(t)
	plantLog(t, st, "a", human("go"), retired("t1", "b"))
	plantLog(t, st, "u", origin("t9", "a"))
	mustMark(t, st, "u", abandoned("t9", "rolled back"))
	mustMark(t, st, "u", abandoned("t9", "again")) // idempotent callers may repeat
	mustMark(t, st, "a", unretired("t1", "b"))
	info, err := st.Info("a")
	if err != nil || info.State() != session.StateActive {
		t.Fatalf("after graft/unretired: %+v, %v; want active", info, err)
	}
	mustAppend(t, st, "a", human("back in a"))
	checkLog(t, st, "a", 4)
	checkLog(t, st, "u", 3)
}

// docs/DESIGN.md §6.1: a retired source accepts the results of tool calls open at
// its commit point, each exactly once, and refuses anything else naming the
// live target.
func TestSelfGraftEpilogue(t *testing.T) {
	newSource := func(t *testing.T) *session.Store {
		st := newStore(t)
		plantLog(t, st, "s",
			human("go"),
			call("done"), result("done"), // closed before the commit point
			call("c1"), call("commit"), // open at the commit point
			retired("t1", "b"),
		)
		return st
	}
	t.Run("each open call once", func(t *testing.T) {
		st := newSource(t)
		mustAppend(t, st, "s", result("commit"))
		mustAppend(t, st, "s", result("c1"))
		for _, id := range []string{"commit", "c1"} {
			_, err := st.Append("s", []session.Event{result(id)})
			if !errors.Is(err, session.ErrRetired) || !strings.Contains(err.Error(), "continue in b") {
				t.Fatalf("second result of %s: %v, want ErrRetired naming b", id, err)
			}
		}
		checkLog(t, st, "s", 8)
	})
	t.Run("both in one batch", func(t *testing.T) {
		st := newSource(t)
		mustAppend(t, st, "s", result("commit"), result("c1"))
		checkLog(t, st, "s", 8)
	})
	refused := map[string][]session.Event{
		"result of a call closed before":    {result("done")},
		"result of an unknown call":         {result("never")},
		"result without call id":            {{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Bash"}}},
		"a new call":                        {call("c2")},
		"a human message":                   {human("more")},
		"an assistant message":              {assistant("done")},
		"an open result with a message":     {result("commit"), assistant("done")},
		"the same open result twice":        {result("commit"), result("commit")},
		"a message before an open result":   {assistant("x"), result("c1")},
		"an empty batch to a retired log":   {},
		"an open result after a closed one": {result("done"), result("c1")},
	}
	for name, evs := range refused {
		t.Run(name, func(t *testing.T) {
			st := newSource(t)
			before := readRaw(t, st.Path("s"))
			_, err := st.Append("s", evs)
			var re *session.RetiredError
			if !errors.As(err, &re) || re.Target != "b" {
				t.Fatalf("Append: %v, want a RetiredError naming b", err)
			}
			if readRaw(t, st.Path("s")) != before {
				t.Fatal("a refused epilogue batch wrote")
			}
			info, err := st.Info("s")
			if err != nil {
				t.Fatal(err)
			}
			if !info.EpilogueOpen("commit") || !info.EpilogueOpen("c1") || info.EpilogueOpen("done") || info.EpilogueOpen("") {
				t.Fatal("EpilogueOpen disagrees with the log")
			}
		})
	}
	t.Run("only the latest commit point counts", func(t *testing.T) {
		st := newStore(t)
		plantLog(t, st, "s",
			human("go"), call("old"), retired("t1", "b"), unretired("t1", "b"),
			call("new"), retired("t2", "c"),
		)
		if _, err := st.Append("s", []session.Event{result("new")}); err != nil {
			t.Fatalf("result of a call open at the live commit point: %v", err)
		}
		// "old" was open at t1's commit point too, and still is at t2's.
		if _, err := st.Append("s", []session.Event{result("old")}); err != nil {
			t.Fatalf("result of a call still open at the live commit point: %v", err)
		}
		_, err := st.Append("s", []session.Event{result("new")})
		if !errors.Is(err, session.ErrRetired) || !strings.Contains(err.Error(), "continue in c") {
			t.Fatalf("a second result: %v, want ErrRetired naming c", err)
		}
	})
}
