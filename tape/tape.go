package tape

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/anchors"
	"github.com/graft-project/graft/session"
)

// Leftover is a target a crashed graft of this source left behind (from the
// catalog); the Pending State block names it.
type Leftover struct {
	Target string `json:"target"`
	Txn    string `json:"txn"`
	State  string `json:"state"`
	Reason string `json:"reason"`
}

// Tape is what a graft target starts with, and the review of it.
type Tape struct {
	// Events are the skeleton turn and the blocks, in order; Seq and TS are
	// zero (the target assigns them).
	Events []session.Event `json:"events"`
	// Text is the texts of Events joined by "\n\n"; TapeChars its runes.
	Text      string `json:"text"`
	TapeChars int    `json:"tapeChars"`
	// CarryoverChars is the runes of the breakpoint's carryover as rendered
	// (its paragraphs and cut line, without the block's marker and label).
	CarryoverChars int    `json:"carryoverChars"`
	SourceID       string `json:"sourceId"`
	// Generation of the source: 1 unless it starts with graft/origin.
	Generation int `json:"generation"`
	// BoundarySeq is the seq of the human instruction opening the open
	// turn (0 if none); LastSeq the last event folded.
	BoundarySeq int64                `json:"boundarySeq"`
	LastSeq     int64                `json:"lastSeq"`
	Goal        []session.Quote      `json:"goal"`
	Progress    string               `json:"progress"`
	Todos       []session.Todo       `json:"todos"`
	Constraints []session.Constraint `json:"constraints"`
	// MoreConstraints counts, per session, the constraint sayings the fold
	// did not keep (MaxConstraints): recall them there.
	MoreConstraints []session.More `json:"moreConstraints,omitempty"`
	// Inherit is what the target's graft/origin carries to the next
	// generation.
	Inherit session.Inherited `json:"inherit"`
	// Relies is what the target's graft/origin records that it relies on
	// (session.Relies): the prefixes and the cited origins' line digests.
	Relies    session.Relies `json:"relies"`
	Leftovers []Leftover     `json:"leftovers"`
	Warnings  []string       `json:"warnings"`
	// ReplayTurns is how many closed turns were replayed; TierNote says why.
	ReplayTurns int    `json:"replayTurns"`
	TierNote    string `json:"tierNote"`
	PrefixHash  string `json:"prefixHash"`
	TapeHash    string `json:"tapeHash"`
}

// Hash versions (docs/DESIGN.md §4.5).
const (
	PrefixHashPrefix = prefixVersion + ":"
	tapeVersion      = "graft-tape-v1"
	TapeHashPrefix   = tapeVersion + ":"
)

// ErrBudget is returned when even the parts a budget never cuts do not fit.
var ErrBudget = errors.New("tape: budget too small")

// staleAfter is the number of successful tool results after the last todo
// write from which the list is stamped as possibly stale.
const staleAfter = 3

// maxLeftoverLines is how many leftovers the Pending State lists; Tape.
// Leftovers has them all.
const maxLeftoverLines = 10

// maxLeftoverReasonRunes caps the reason of one listed leftover, since
// leftovers are never cut.
const maxLeftoverReasonRunes = 200

// Build renders the tape of everything added so far. It does not change the
// builder: more Adds and another Build may follow.
func (b *Builder) Build(opts Options, leftovers []Leftover) (*Tape, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.resolved()
	st := &b.st
	t := &Tape{
		SourceID:    st.SessionID,
		Generation:  st.Generation,
		BoundarySeq: st.Boundary,
		LastSeq:     st.LastSeq,
		Constraints: anchorsCopy(st.Constraints),
		Todos:       append([]session.Todo(nil), st.Todos...),
		Progress:    progress(st.Todos),
		Warnings:    append([]string(nil), st.Warnings...),
	}
	t.Leftovers = append([]Leftover(nil), leftovers...)
	sort.SliceStable(t.Leftovers, func(i, j int) bool {
		a, c := t.Leftovers[i], t.Leftovers[j]
		if a.Target != c.Target {
			return a.Target < c.Target
		}
		return a.Txn < c.Txn
	})
	if st.FirstGoal != nil {
		fg := *st.FirstGoal
		t.Goal = append(t.Goal, fg)
		t.Inherit.FirstGoal = &fg
	}
	for _, q := range st.Latest {
		if st.FirstGoal == nil || q.Origin != st.FirstGoal.Origin {
			t.Goal = append(t.Goal, q)
		}
	}
	t.Inherit.Constraints = anchorsCopy(st.Constraints)
	if len(st.MoreConstraints) > 0 {
		t.MoreConstraints = append([]session.More(nil), st.MoreConstraints...)
		t.Inherit.MoreConstraints = append([]session.More(nil), st.MoreConstraints...)
	}
	if st.Unattributed > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d successful file-tool results name no path that could be matched to their call (no callId, or no path in the input): not listed in Workspace Files", st.Unattributed))
	}
	if st.CallsDropped > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d file-tool calls had no result after %d newer ones: forgotten; a late result of one is counted as unmatched", st.CallsDropped, maxOpenCalls))
	}
	replay := b.replayTurns(opts, t)

	conflicts := b.conflicts()
	breakpoint, paragraphs := b.breakpointBlock(conflicts)
	constraints, constraintItems := b.constraintsBlock()
	goal, goalFirst, goalLatest := b.goalBlock(t.Goal)
	status, statusTodos := b.statusBlock()
	files, fileItems := b.filesBlock()
	pending, pendingTodos, pendingFailures := b.pendingBlock(conflicts, t.Leftovers)
	reports, reportItems := b.reportsBlock()
	recall, recallItems := b.recallBlock()
	var replayBlocks []*block
	var replaySections []*section
	for _, tr := range replay {
		blk, sec := b.replayBlock(tr)
		replayBlocks = append(replayBlocks, blk)
		replaySections = append(replaySections, sec)
	}

	blocks := []*block{b.handoffBlock(), b.ackBlock(), breakpoint, constraints, goal, status, files, pending, reports, recall}
	blocks = append(blocks, replayBlocks...)

	// Lowest priority first. The breakpoint is what the next window needs
	// most (docs/DESIGN.md §4.1 puts it first), so it is cut last.
	plan := []*section{recallItems, reportItems, fileItems}
	plan = append(plan, replaySections...)
	plan = append(plan, pendingFailures, pendingTodos, statusTodos, goalLatest, goalFirst, constraintItems, paragraphs)
	total := totalRunes(blocks)
	var cutNotes []string
	for _, s := range plan {
		if s == nil || total <= opts.Budget {
			continue
		}
		n := 0
		for total > opts.Budget && s.canCut() {
			before := s.blk.runes()
			s.cutNext()
			n++
			total += s.blk.runes() - before
		}
		if n > 0 {
			noun := s.plural
			if n == 1 {
				noun = s.singular
			}
			cutNotes = append(cutNotes, fmt.Sprintf("%d %s (%s)", n, noun, s.blk.title))
		}
	}
	if total > opts.Budget {
		return nil, fmt.Errorf("%w: %s at seq %d: the parts never cut (skeleton turn, headers, anchor, cut lines) need %d runes, the budget is %d", ErrBudget, st.SessionID, st.LastSeq, total, opts.Budget)
	}
	if len(cutNotes) > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("cut to fit the budget of %d runes: %s; every cut names the seqs to recall", opts.Budget, strings.Join(cutNotes, ", ")))
	}

	texts := make([]string, len(blocks))
	for k, blk := range blocks {
		texts[k] = blk.text(st.SessionID)
		src := session.Source{Kind: session.KindPlugin, Name: "graft"}
		if blk.kind == session.TypeAssistantMessage {
			src = session.Source{Kind: session.KindAssistant, Name: "graft"}
		}
		t.Events = append(t.Events, session.Event{Type: blk.kind, Source: src, Text: texts[k]})
	}
	t.Text = strings.Join(texts, "\n\n")
	t.TapeChars = utf8.RuneCountInString(t.Text)
	if t.TapeChars != total {
		// The incremental count and the rendering disagree: a bug here,
		// and the budget promise would not hold.
		return nil, fmt.Errorf("tape: internal error: rendered %d runes, counted %d", t.TapeChars, total)
	}
	if c := paragraphs.runes(); c > 0 {
		t.CarryoverChars = c - 1
	}
	var err error
	if t.PrefixHash, err = b.prefixHash(); err != nil {
		return nil, err
	}
	t.Relies = b.relies(t.Inherit, t.PrefixHash)
	t.TapeHash = tapeHash(t, opts)
	return t, nil
}

// count is "1 thing" or "N things".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func progress(todos []session.Todo) string {
	if len(todos) == 0 {
		return "no todo list"
	}
	done, doing := 0, 0
	for _, td := range todos {
		switch td.Status {
		case session.TodoCompleted:
			done++
		case session.TodoInProgress:
			doing++
		}
	}
	return fmt.Sprintf("%d/%d todos completed; %d in progress", done, len(todos), doing)
}

func unfinished(todos []session.Todo) int {
	n := 0
	for _, td := range todos {
		if td.Status != session.TodoCompleted {
			n++
		}
	}
	return n
}

// replayTurns picks the closed turns to replay and says why in t.
func (b *Builder) replayTurns(opts Options, t *Tape) []turn {
	st := &b.st
	want := 0
	switch {
	case opts.RecentTurns > 0:
		want = opts.RecentTurns
		t.TierNote = fmt.Sprintf("recentTurns %d: replay %d closed turns", want, want)
	case opts.Tier == TierB:
		want = 1
		t.TierNote = "tier B: replay the last closed turn"
	case opts.AutoTier && (unfinished(st.Todos) > 0 || st.OpenFailures > 0):
		want = 1
		t.TierNote = fmt.Sprintf("auto tier: %d unfinished todos, %d failed tool calls in the open turn → tier B", unfinished(st.Todos), st.OpenFailures)
	case opts.AutoTier:
		t.TierNote = "auto tier: no unfinished todo and no failure in the open turn → tier A (no replay)"
	default:
		t.TierNote = "tier A: no replay"
	}
	if want > len(st.Closed) {
		t.Warnings = append(t.Warnings, fmt.Sprintf("asked to replay %d closed turns; the builder has %d", want, len(st.Closed)))
		want = len(st.Closed)
	}
	t.ReplayTurns = want
	return st.Closed[len(st.Closed)-want:]
}

// conflicts are the indexes of unfinished todos the carryover names (see
// mentions): the breakpoint may already have done them.
func (b *Builder) conflicts() map[int]bool {
	st := &b.st
	if len(st.Carry.Paragraphs) == 0 || len(st.Todos) == 0 {
		return nil
	}
	var all strings.Builder
	for _, p := range st.Carry.Paragraphs {
		all.WriteString(p.Text)
		all.WriteByte('\n')
	}
	carry := wordSet(all.String())
	out := map[int]bool{}
	for k, td := range st.Todos {
		if td.Status != session.TodoCompleted && mentions(carry, td.Content) {
			out[k] = true
		}
	}
	return out
}

func (b *Builder) handoffBlock() *block {
	st := &b.st
	blk := newBlock("Handoff")
	boundary := "no human instruction yet"
	if st.Boundary > 0 {
		boundary = fmt.Sprintf("the open turn starts at seq=%d", st.Boundary)
	}
	blk.addHead(
		fmt.Sprintf("This session (generation %d) continues session %s (generation %d) at seq=%d; %s.", st.Generation+1, st.SessionID, st.Generation, st.LastSeq, boundary),
		"The messages that follow are a deterministic recap built from that session's event log: nothing in them was written by a model, and none of them is a new instruction from the user.",
		fmt.Sprintf("Re-read any cited seq with: graft recall %s <seq>", st.SessionID),
	)
	return blk
}

func (b *Builder) ackBlock() *block {
	blk := newBlock("Handoff acknowledged")
	blk.kind = session.TypeAssistantMessage
	blk.addHead("Understood. I resume from the breakpoint, keep the hard constraints, and verify pending items before re-running them.")
	return blk
}

func (b *Builder) breakpointBlock(conflicts map[int]bool) (*block, *section) {
	st := &b.st
	blk := newBlock("Breakpoint")
	if st.Boundary > 0 {
		blk.addHead(fmt.Sprintf("The open turn, from the human instruction at seq=%d to seq=%d: the final paragraphs of each step, concatenated in time order — not one complete message.", st.Boundary, st.LastSeq))
	} else {
		blk.addHead(fmt.Sprintf("No human instruction yet: the open turn is the whole session, seq=1 to seq=%d. Below: the final paragraphs of each step, concatenated in time order — not one complete message.", st.LastSeq))
	}
	if n := len(conflicts); n > 0 {
		blk.addHead(fmt.Sprintf("Pending state conflicts with this breakpoint: %s named in it (see Pending State): this item may already be done: verify before re-running.", count(n, "unfinished todo is", "unfinished todos are")))
	}
	c := st.Carry
	if len(c.Paragraphs) == 0 && c.Dropped.N == 0 {
		blk.addHead("(No assistant message in the open turn yet.)")
	}
	sec := &section{singular: "paragraph", plural: "paragraphs", cutFront: true, pre: c.Dropped}
	for _, p := range c.Paragraphs {
		sec.items = append(sec.items, newItem(fmt.Sprintf("seq=%d: %s", p.Seq, p.Text), "", p.Seq, p.Seq))
	}
	return blk, blk.addSection(sec)
}

func originText(o session.Origin) string {
	return fmt.Sprintf("gen %d session %s seq %d", o.Generation, o.Session, o.Seq)
}

// refSession is the session an item recalls: "" for the source itself.
func (b *Builder) refSession(o session.Origin) string {
	if o.Session == b.st.SessionID {
		return ""
	}
	return o.Session
}

const maxAlsoListed = 3

func (b *Builder) constraintsBlock() (*block, *section) {
	st := &b.st
	blk := newBlock("Anchor + Hard Constraints")
	oldest, ok := anchors.Oldest(st.Constraints)
	if !ok && len(st.MoreConstraints) == 0 {
		blk.addHead("No hard constraints: no human instruction carried a constraint marker.")
		return blk, nil
	}
	if ok {
		blk.addHead(anchors.AnchorLine(oldest), "HARD CONSTRAINTS, each with the origin it was first said at:")
	} else {
		blk.addHead("No hard constraint was kept; the ones not kept are named below.")
	}
	sec := &section{singular: "constraint", plural: "constraints"}
	// Sayings the fold did not keep (MaxConstraints) are cut before
	// rendering: counted in the cut line with the seqs to recall.
	for _, m := range st.MoreConstraints {
		r := seqRange{N: m.N, From: m.From, To: m.To}
		if m.Session == st.SessionID {
			sec.pre.merge(r)
			continue
		}
		if sec.preOthers == nil {
			sec.preOthers = map[string]seqRange{}
		}
		o := sec.preOthers[m.Session]
		o.merge(r)
		sec.preOthers[m.Session] = o
	}
	for _, c := range st.Constraints {
		line := "- " + c.Text + " (" + originText(c.Origin)
		for k, a := range c.Also {
			if k == maxAlsoListed {
				line += fmt.Sprintf(", and %d more", len(c.Also)-maxAlsoListed)
				break
			}
			if k == 0 {
				line += "; said again at "
			} else {
				line += ", "
			}
			line += originText(a)
		}
		line += ")"
		sec.items = append(sec.items, newItem(line, b.refSession(c.Origin), c.Origin.Seq, c.Origin.Seq))
	}
	return blk, blk.addSection(sec)
}

func (b *Builder) goalBlock(goal []session.Quote) (*block, *section, *section) {
	blk := newBlock("Goal")
	if len(goal) == 0 {
		blk.addHead("No human instruction yet: no goal was stated.")
		return blk, nil, nil
	}
	blk.addHead("The user's goal, quoted from human instructions: the first one, then the latest ones.")
	first := &section{singular: "instruction", plural: "instructions"}
	q := goal[0]
	first.items = append(first.items, newItem(fmt.Sprintf("First instruction (%s):\n%s", originText(q.Origin), quoteLines(q.Text)), b.refSession(q.Origin), q.Origin.Seq, q.Origin.Seq))
	blk.addSection(first)
	if len(goal) == 1 {
		return blk, first, nil
	}
	latest := &section{singular: "instruction", plural: "instructions", cutFront: true}
	for k, q := range goal[1:] {
		label := "Recent instruction"
		if k == len(goal)-2 {
			label = "Latest instruction"
		}
		latest.items = append(latest.items, newItem(fmt.Sprintf("%s (%s):\n%s", label, originText(q.Origin), quoteLines(q.Text)), b.refSession(q.Origin), q.Origin.Seq, q.Origin.Seq))
	}
	return blk, first, blk.addSection(latest)
}

func (b *Builder) statusBlock() (*block, *section) {
	st := &b.st
	blk := newBlock("Task Status")
	if len(st.Todos) == 0 {
		blk.addHead("No todo list was written.")
		return blk, nil
	}
	blk.addHead(fmt.Sprintf("The last todo list, written at seq=%d: %s.", st.TodoSeq, progress(st.Todos)))
	if st.OKSinceTodo >= staleAfter {
		blk.addHead(fmt.Sprintf("Stale: an item may already be complete (%d successful tool calls since the list was written): verify before re-running.", st.OKSinceTodo))
	}
	sec := &section{singular: "todo", plural: "todos"}
	// Cut completed items first, then pending, then in progress.
	for _, status := range []string{session.TodoCompleted, session.TodoPending, session.TodoInProgress} {
		for k, td := range st.Todos {
			if td.Status == status {
				sec.order = append(sec.order, k)
			}
		}
	}
	for k, td := range st.Todos {
		if !isKnownStatus(td.Status) {
			sec.order = append(sec.order, k)
		}
		sec.items = append(sec.items, newItem(fmt.Sprintf("- [%s] %s", td.Status, td.Content), "", st.TodoSeq, st.TodoSeq))
	}
	return blk, blk.addSection(sec)
}

func isKnownStatus(s string) bool {
	return s == session.TodoCompleted || s == session.TodoPending || s == session.TodoInProgress
}

func (b *Builder) filesBlock() (*block, *section) {
	st := &b.st
	blk := newBlock("Workspace Files")
	if len(st.Files) == 0 && st.FilesDropped.N == 0 {
		blk.addHead("No file was read, written or edited by a tool.")
		return blk, nil
	}
	blk.addHead("Files read, written or edited, most recent first; each op cites the seq of its tool/result (recall it for the payload).")
	paths := make([]string, 0, len(st.Files))
	for p := range st.Files {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool {
		a, c := st.Files[paths[i]], st.Files[paths[j]]
		if a.Last != c.Last {
			return a.Last > c.Last
		}
		return paths[i] < paths[j]
	})
	sec := &section{singular: "file", plural: "files", pre: st.FilesDropped}
	for _, p := range paths {
		f := st.Files[p]
		var ops []string
		for _, op := range []struct {
			name string
			seq  int64
		}{{OpWrite, f.Write}, {OpEdit, f.Edit}, {OpRead, f.Read}} {
			if op.seq != 0 {
				ops = append(ops, fmt.Sprintf("%s seq=%d", op.name, op.seq))
			}
		}
		sec.items = append(sec.items, newItem(fmt.Sprintf("- %s: %s", p, strings.Join(ops, ", ")), "", f.firstSeq(), f.Last))
	}
	return blk, blk.addSection(sec)
}

func (b *Builder) pendingBlock(conflicts map[int]bool, leftovers []Leftover) (*block, *section, *section) {
	st := &b.st
	blk := newBlock("Pending State")
	var todos, fails *section
	if unfinished(st.Todos) > 0 {
		todos = &section{heading: fmt.Sprintf("Unfinished todos (list of seq=%d):", st.TodoSeq), singular: "todo", plural: "todos"}
		for k, td := range st.Todos {
			if td.Status == session.TodoCompleted {
				continue
			}
			line := fmt.Sprintf("- [%s] %s", td.Status, td.Content)
			if conflicts[k] {
				line += " — named in the breakpoint: this item may already be done: verify before re-running."
			}
			todos.items = append(todos.items, newItem(line, "", st.TodoSeq, st.TodoSeq))
		}
		blk.addSection(todos)
	}
	if len(st.Failures) > 0 {
		fails = &section{heading: "Recent failed tool calls (seq of the tool/result):", singular: "failure", plural: "failures", cutFront: true}
		for _, f := range st.Failures {
			where := ""
			if f.Seq > st.Boundary {
				where = " (open turn)"
			}
			line := fmt.Sprintf("- seq=%d %s failed%s", f.Seq, f.Tool, where)
			if f.Line != "" {
				line += ": " + f.Line
			}
			fails.items = append(fails.items, newItem(line, "", f.Seq, f.Seq))
		}
		blk.addSection(fails)
	}
	if len(leftovers) > 0 {
		// Not in the budget plan: leftovers are never cut, only capped.
		left := &section{heading: "Leftovers of earlier crashed grafts of this source (abandoned targets: do not resume them):", singular: "leftover", plural: "leftovers"}
		for k, l := range leftovers {
			if k == maxLeftoverLines {
				left.items = append(left.items, newItem(fmt.Sprintf("… and %s: see the review of graft prepare %s", count(len(leftovers)-maxLeftoverLines, "more leftover", "more leftovers"), st.SessionID), "", 0, 0))
				break
			}
			reason := clipRunes(l.Reason, maxLeftoverReasonRunes, "the review's leftovers")
			left.items = append(left.items, newItem(fmt.Sprintf("- target %s (txn %s, state %s): %s", l.Target, l.Txn, l.State, reason), "", 0, 0))
		}
		blk.addSection(left)
	}
	if todos == nil && fails == nil && len(leftovers) == 0 {
		blk.addHead("Nothing pending: no unfinished todo, no failed tool call, no leftover of a crashed graft.")
	}
	return blk, todos, fails
}

func (b *Builder) reportsBlock() (*block, *section) {
	st := &b.st
	blk := newBlock("Sub-agent Reports")
	skipped := ""
	if st.ReportsSkipped > 0 {
		skipped = fmt.Sprintf(" Left out: %s (no report keyword in the first %d characters, or a file or log dump).", count(st.ReportsSkipped, "report", "reports"), ReportKeywordRunes)
	}
	if len(st.Reports) == 0 && st.ReportsDropped.N == 0 {
		blk.addHead("No sub-agent report." + skipped)
		return blk, nil
	}
	blk.addHead(fmt.Sprintf("Sub-agent reports, oldest first (the last %d are kept).", keptReports) + skipped)
	sec := &section{singular: "report", plural: "reports", cutFront: true, pre: st.ReportsDropped}
	for _, r := range st.Reports {
		agent := ""
		if r.Agent != "" {
			agent = " " + r.Agent
		}
		sec.items = append(sec.items, newItem(fmt.Sprintf("- seq=%d%s:\n%s", r.Seq, agent, r.Text), "", r.Seq, r.Seq))
	}
	return blk, blk.addSection(sec)
}

func (b *Builder) recallBlock() (*block, *section) {
	st := &b.st
	blk := newBlock("Recall Index")
	blk.addHead(fmt.Sprintf("Re-read any event with: graft recall %s <seq>", st.SessionID))
	var entries []recallEntry
	if st.Origin != nil {
		entries = append(entries, recallEntry{Seq: st.Origin.Seq, Label: st.Origin.Text})
	}
	if st.FirstRecall != nil {
		entries = append(entries, *st.FirstRecall)
	}
	entries = append(entries, st.Recall...)
	if st.TodoSeq > 0 {
		entries = append(entries, recallEntry{Seq: st.TodoSeq, Label: fmt.Sprintf("todo list (%d items)", len(st.Todos))})
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Seq < entries[j].Seq })
	sec := &section{singular: "entry", plural: "entries", cutFront: true, pre: st.RecallDropped}
	for _, e := range entries {
		sec.items = append(sec.items, newItem(fmt.Sprintf("- seq=%d: %s", e.Seq, e.Label), "", e.Seq, e.Seq))
	}
	return blk, blk.addSection(sec)
}

func (b *Builder) replayBlock(tr turn) (*block, *section) {
	var blk *block
	if tr.Start > 0 {
		blk = newBlock(fmt.Sprintf("Replay: turn seq=%d..%d", tr.Start, tr.End))
	} else {
		blk = newBlock(fmt.Sprintf("Replay: seq=1..%d, before the first human instruction", tr.End))
	}
	blk.addHead(fmt.Sprintf("A closed turn replayed verbatim: the human's and the assistant's message texts in order; tool calls and outputs are not replayed (%d calls, %d failed). A copy for context, not a new instruction.", tr.ToolCalls, tr.ToolFailures))
	sec := &section{singular: "message", plural: "messages", cutFront: true, pre: tr.Dropped}
	for _, m := range tr.Messages {
		who := "assistant"
		if m.Human {
			who = "human"
		}
		sec.items = append(sec.items, newItem(fmt.Sprintf("%s, seq=%d:\n%s", who, m.Seq, m.Text), "", m.Seq, m.Seq))
	}
	return blk, blk.addSection(sec)
}

// prefixHash is "graft-prefix-v2:<hex>" over the events before the boundary.
func (b *Builder) prefixHash() (string, error) {
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(b.st.PrefixState); err != nil {
		return "", fmt.Errorf("tape: %s: prefix hash state: %w", b.st.SessionID, err)
	}
	return PrefixHashPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// tapeHash covers every input that shapes the tape, each length-prefixed.
func tapeHash(t *Tape, opts Options) string {
	h := sha256.New()
	put := func(h hash.Hash, s string) { writeLP(h, []byte(s)) }
	put(h, tapeVersion)
	put(h, t.SourceID)
	put(h, strconv.Itoa(t.Generation))
	put(h, strconv.FormatInt(t.BoundarySeq, 10))
	put(h, strconv.FormatInt(t.LastSeq, 10))
	put(h, opts.Tier)
	put(h, strconv.Itoa(opts.RecentTurns))
	put(h, strconv.FormatBool(opts.AutoTier))
	put(h, strconv.Itoa(opts.Budget))
	put(h, t.PrefixHash)
	put(h, strconv.Itoa(len(t.Leftovers)))
	for _, l := range t.Leftovers {
		put(h, l.Target)
		put(h, l.Txn)
		put(h, l.State)
		put(h, l.Reason)
	}
	put(h, t.Text)
	return TapeHashPrefix + hex.EncodeToString(h.Sum(nil))
}
