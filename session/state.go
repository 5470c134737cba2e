package session

// State is a session's state, a fold over its graft/* events.
type State string

const (
	StateActive    State = "active"
	StateRetired   State = "retired"
	StateAbandoned State = "abandoned"
)

// GraftMark is one graft out of this session: its graft/retired and, if a
// revert undid it, the graft/unretired.
type GraftMark struct {
	Txn          string `json:"txn"`
	Target       string `json:"target"`
	RetiredSeq   int64  `json:"retiredSeq"`
	UnretiredSeq int64  `json:"unretiredSeq,omitempty"`
}

// Info is the fold of a whole log.
type Info struct {
	ID string `json:"id"`
	ScanResult
	// Origin is the graft/origin that opens a graft target, nil otherwise.
	Origin    *Event      `json:"origin,omitempty"`
	Grafts    []GraftMark `json:"grafts,omitempty"`
	Abandoned *Event      `json:"abandoned,omitempty"`
	LastHuman int64       `json:"lastHuman,omitempty"`
	openCalls map[string]bool
	epilogue  map[string]bool
	// checkpointErr says why the state checkpoint was not used or not
	// written (a derived hint: the fold itself is right; see CheckpointErr).
	checkpointErr error
}

// CheckpointErr says why Info did not use the state checkpoint it found
// (it no longer matches the log, or does not decode: the whole log was
// folded) or could not write the one it meant to; nil otherwise.
func (i *Info) CheckpointErr() error { return i.checkpointErr }

// Generation is 1 for a session nobody grafted into.
func (i *Info) Generation() int {
	if i.Origin != nil && i.Origin.Generation > 0 {
		return i.Origin.Generation
	}
	return 1
}

// Live returns the graft that retired this session and was not undone.
func (i *Info) Live() (GraftMark, bool) {
	for k := len(i.Grafts) - 1; k >= 0; k-- {
		if i.Grafts[k].UnretiredSeq == 0 {
			return i.Grafts[k], true
		}
	}
	return GraftMark{}, false
}

// Committed reports whether this log holds the commit point of txn into
// target: a graft/retired for txn naming target, with no later
// graft/unretired. A graft/retired of txn naming another session does not
// make target live: a copy of a target's log carries the target's
// graft/origin, txn included, but it is not the session the graft
// committed into.
func (i *Info) Committed(txn, target string) bool {
	for _, g := range i.Grafts {
		if g.Txn == txn {
			return g.Target == target && g.UnretiredSeq == 0
		}
	}
	return false
}

// HasRetired reports whether txn was ever retired here into target (even
// if reverted).
func (i *Info) HasRetired(txn, target string) bool {
	for _, g := range i.Grafts {
		if g.Txn == txn {
			return g.Target == target
		}
	}
	return false
}

// RetiredInto returns the target the graft/retired of txn names, if this
// log holds one (reverted or not).
func (i *Info) RetiredInto(txn string) (string, bool) {
	for _, g := range i.Grafts {
		if g.Txn == txn {
			return g.Target, true
		}
	}
	return "", false
}

// State folds the marks. A target whose commit point is missing from its
// parent is judged by the store (Store.Check), not here.
func (i *Info) State() State {
	if i.Abandoned != nil {
		return StateAbandoned
	}
	if _, ok := i.Live(); ok {
		return StateRetired
	}
	return StateActive
}

// EpilogueOpen reports whether callID was an open tool call at the commit
// point of the live graft and has had no result since.
func (i *Info) EpilogueOpen(callID string) bool { return callID != "" && i.epilogue[callID] }

// Add folds one more event (in seq order) into the state.
func (i *Info) Add(ev *Event) {
	switch ev.Type {
	case TypeGraftOrigin:
		if ev.Seq == 1 {
			e := *ev
			i.Origin = &e
		}
	case TypeGraftRetired:
		i.Grafts = append(i.Grafts, GraftMark{Txn: ev.Txn, Target: ev.Target, RetiredSeq: ev.Seq})
		i.epilogue = make(map[string]bool, len(i.openCalls))
		for id := range i.openCalls {
			i.epilogue[id] = true
		}
	case TypeGraftUnretired:
		for k := range i.Grafts {
			if i.Grafts[k].Txn == ev.Txn && i.Grafts[k].UnretiredSeq == 0 {
				i.Grafts[k].UnretiredSeq = ev.Seq
			}
		}
	case TypeGraftAbandoned:
		e := *ev
		i.Abandoned = &e
	case TypeUserMessage:
		if ev.IsHumanInstruction() {
			i.LastHuman = ev.Seq
		}
	case TypeToolCall:
		if ev.Tool != nil && ev.Tool.CallID != "" {
			if i.openCalls == nil {
				i.openCalls = map[string]bool{}
			}
			i.openCalls[ev.Tool.CallID] = true
		}
	case TypeToolResult:
		if ev.Tool != nil && ev.Tool.CallID != "" {
			delete(i.openCalls, ev.Tool.CallID)
			delete(i.epilogue, ev.Tool.CallID)
		}
	}
}
