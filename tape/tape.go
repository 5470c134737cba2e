package tape

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"slices"
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
	// Cwd is the working directory the source's events last named (a
	// host records it with each message): where the work happened.
	Cwd string `json:"cwd,omitempty"`
	// Generation of the source: 1 unless it starts with graft/origin.
	Generation int `json:"generation"`
	// BoundarySeq is the seq of the human instruction opening the open
	// turn (0 if none); LastSeq the last event folded.
	BoundarySeq int64           `json:"boundarySeq"`
	LastSeq     int64           `json:"lastSeq"`
	Goal        []session.Quote `json:"goal"`
	Progress    string          `json:"progress"`
	Todos       []session.Todo  `json:"todos"`
	// HostGoal is the goal the host kept for the session, nil when it kept
	// none or it was cleared: the host keeps it per session; Inherit.Goal
	// carries it when it is active (HostGoal.Carried), for an export to a
	// host that restores it from its session file.
	HostGoal    *HostGoal            `json:"hostGoal,omitempty"`
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
	tapeVersion      = "graft-tape-v2"
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
// builder: more Adds and another Build may follow. Outputs of events added
// with an offset (AddSumAt) are not quoted: BuildFrom reads them.
func (b *Builder) Build(opts Options, leftovers []Leftover) (*Tape, error) {
	return b.BuildFrom(opts, leftovers, nil)
}

// BuildFrom is Build reading, through src, the outputs of the tool results
// the tape quotes that were added with an offset (AddSumAt): the last
// actions, the pending failures and the look-ups.
func (b *Builder) BuildFrom(opts Options, leftovers []Leftover, src Outputs) (*Tape, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.resolved()
	st := &b.st
	b.lineage = b.lineageAliases()
	t := &Tape{
		SourceID:    st.SessionID,
		Generation:  st.Generation,
		BoundarySeq: st.Boundary,
		LastSeq:     st.LastSeq,
		Constraints: anchorsCopy(st.Constraints),
		Todos:       append([]session.Todo(nil), st.Todos...),
		Progress:    progress(st.Todos),
		Warnings:    append([]string(nil), st.Warnings...),
		Cwd:         st.Cwd,
	}
	if st.Goal != nil {
		g := *st.Goal
		t.HostGoal = &g
		if g.Carried() {
			t.Inherit.Goal = &session.HostGoal{Objective: g.Objective, Status: g.Status,
				Origin: session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: g.Seq}}
		}
	}
	t.Leftovers = append([]Leftover(nil), leftovers...)
	sort.SliceStable(t.Leftovers, func(i, j int) bool {
		a, c := t.Leftovers[i], t.Leftovers[j]
		if a.Target != c.Target {
			return a.Target < c.Target
		}
		return a.Txn < c.Txn
	})
	// The Goal's quotes are the person's words and their origins: the
	// command's text a quote handed on came with is the host's, kept for
	// the inherit alone.
	if st.FirstGoal != nil {
		fg := *st.FirstGoal
		fg.Command, fg.Picks = nil, nil
		t.Goal = append(t.Goal, fg)
		// Handed on as the fold keeps it (head and end within
		// maxHumanRunes), so that the next Goal shows its middle parts too
		// (TestALongInstructionsMiddleCrossesAHandoff).
		inherited := fg
		if k := slices.IndexFunc(st.Humans, func(h session.Quote) bool { return h.Origin == fg.Origin }); k >= 0 {
			inherited.Text = st.Humans[k].Text
		}
		inherited.Command, inherited.Picks = b.commandOf(*st.FirstGoal), b.picksOf(*st.FirstGoal)
		t.Inherit.FirstGoal = &inherited
	}
	for _, q := range st.Latest {
		if st.FirstGoal == nil || q.Origin != st.FirstGoal.Origin {
			q.Command, q.Picks = nil, nil
			t.Goal = append(t.Goal, q)
		}
	}
	t.Inherit.Constraints = anchorsCopy(st.Constraints)
	for k := range t.Inherit.Constraints {
		t.Inherit.Constraints[k].Pasted = b.pastedOnly(t.Inherit.Constraints[k])
	}
	if st.Cwd != "" || st.GitBranch != "" || st.GitCommit != "" {
		t.Inherit.Place = &session.Place{Cwd: st.Cwd, GitBranch: st.GitBranch, GitCommit: st.GitCommit}
	}
	t.Inherit.Messages = b.inheritMessages()
	if unfinished(st.Todos) > 0 {
		// What is left to do crosses; a list all done is history the
		// tape's own text told.
		from := session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: st.TodoSeq}
		if st.TodoFrom != nil {
			from = *st.TodoFrom
		}
		t.Inherit.Todos = &session.TodoList{Items: slices.Clone(st.Todos), Origin: from}
	}
	if len(st.MoreConstraints) > 0 {
		t.MoreConstraints = append([]session.More(nil), st.MoreConstraints...)
		t.Inherit.MoreConstraints = append([]session.More(nil), st.MoreConstraints...)
	}
	if st.Unattributed > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d successful file-tool results name no path that could be matched to their call (no callId, or no path in the input): not listed in Workspace Files", st.Unattributed))
	}
	if st.CallsDropped > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d tool calls had no result after %d newer ones: forgotten; a late result of one is counted as unmatched", st.CallsDropped, maxOpenCalls))
	}
	replay := b.replayTurns(opts, t)
	q, err := b.quoteOutputs(src)
	if err != nil {
		return nil, err
	}
	t.Inherit.Said = b.inheritSaid(q.answer)
	t.Inherit.Prompts = b.inheritPrompts(&t.Inherit)
	if p := st.Plan; p != nil && (p.Task || p.State == "approved") {
		// The plan approved to start the work is its task (inherit.plan);
		// else the newest the person approved in plan mode is what the
		// work goes by (inherit.approvedPlan). One handed on keeps its
		// text and origin.
		text := p.Text
		if p.Call != nil {
			text = q.plan
		}
		from := session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: p.Seq}
		text = clipHeadTail(text, maxInheritedPlanRunes, "", p.Seq)
		if p.From != nil {
			from, text = *p.From, p.Text
		}
		switch passage := (&session.Passage{Text: text, Origin: from}); {
		case p.Task:
			t.Inherit.Plan = passage
		case strings.TrimSpace(text) != "":
			t.Inherit.ApprovedPlan = passage
		}
	}

	conflicts := b.conflicts()
	breakpoint, reply, paragraphs, steps := b.breakpointBlock(conflicts)
	constraints, constraintItems, typed := b.constraintsBlock()
	goal, goalFirst, goalLatest := b.goalBlock(t.Goal, q)
	status, statusTodos, planItems, planMore := b.statusBlock(q)
	actions, actionItems := b.actionsBlock(q)
	milestones, milestoneItems := b.milestonesBlock(q)
	t.Inherit.Milestones = b.inheritMilestones(q)
	files, fileItems, readItems, prevFiles := b.filesBlock(q)
	t.Inherit.Files = b.inheritFiles()
	pending, pendingTodos, pendingFailures, prevFailures, declined, inFlight := b.pendingBlock(conflicts, t.Leftovers, q)
	t.Inherit.Failures = b.inheritFailures(q)
	t.Inherit.Workarounds = b.inheritWorkarounds()
	summary, summaryItems, recapItems := b.hostSummaryBlock()
	refs, refItems := b.refsBlock(q)
	reports, reportItems := b.reportsBlock()
	recall, recallItems := b.recallBlock()
	tail, tailItems, err := b.tailBlock(q)
	if err != nil {
		return nil, err
	}
	var replayBlocks []*block
	var replaySections []*section
	for _, tr := range replay {
		blk, sec := b.replayBlock(tr)
		replayBlocks = append(replayBlocks, blk)
		replaySections = append(replaySections, sec)
	}

	var blocks []*block
	for _, blk := range []*block{b.handoffBlock(opts.Continues), b.ackBlock(), breakpoint, constraints, goal, status, actions, milestones, files, pending, summary, refs, reports, recall, tail} {
		if blk != nil { // a block with nothing to say is left out
			blocks = append(blocks, blk)
		}
	}
	blocks = append(blocks, replayBlocks...)

	// The ranking (docs/DESIGN.md §4.4): lowest value first; a step cuts
	// its section down to keep entries, so that the newest of each kind
	// outlive the older ones of the kinds ranked above them. The open
	// turn's last assistant message and the human's words are cut last.
	var plan []cutStep
	step := func(s *section, keep int) { plan = append(plan, cutStep{sec: s, keep: keep}) }
	stepRunes := func(s *section, runes int) { plan = append(plan, cutStep{sec: s, keepRunes: runes}) }
	shrink := func(s *section, keep int) { plan = append(plan, cutStep{sec: s, keep: keep, shrink: true}) }
	step(constraintItems, typed+keptPastedConstraints)
	step(tailItems, 0)
	step(b.goalMore, b.goalMoreMain)
	step(recallItems, 0)
	for _, r := range replaySections {
		step(r, 0)
	}
	step(readItems, 4)
	// A look-up can be run again, and an older one is the least likely
	// to be what the work refers to now: all but the newest go before the
	// messages (TestOnlyTheNewestLookUpOutranksTheMessages).
	step(refItems, 1)
	step(reportItems, b.unanswered())
	if paragraphs != nil {
		step(paragraphs, paragraphs.liveItems()-steps) // the steps only fill room
	}
	step(summaryItems, 6)
	step(milestoneItems, 8)
	step(actionItems, 14)
	stepRunes(paragraphs, carryFloor)
	step(readItems, 0)
	shrink(fileItems, keptDetailedFiles)
	// The lines the newest files' last changes add go once the older
	// files' details went (TestTheNewestChangesOutliveOlderFilesDetails).
	step(b.lastChanges, 0)
	step(fileItems, 14)
	// The files the sessions before wrote or edited keep their path and
	// ops once this session's own are down to 14, and go once those are
	// down to 6 (TestTheFilesHandedOnShrinkBeforeTheyGo).
	shrink(prevFiles, 0)
	step(summaryItems, 0)
	step(actionItems, 6)
	step(b.prevFixedItems, 0)
	step(b.fixedItems, 0)
	step(b.goalMore, 0)
	step(planMore, 0) // a plan's middle parts go with the instructions'
	step(milestoneItems, 3)
	step(reportItems, 0)
	task := b.st.Plan != nil && b.st.Plan.Task
	current := b.current(b.st.Plan)
	if !task && !current {
		step(planItems, 0)
	}
	step(b.goalPrompts, 0)
	// A look-up can be run again; the carryover is the only account of
	// what the assistant found and chose (TestALookUpGoesBeforeTheCarryover).
	step(refItems, 0)
	step(paragraphs, 4)
	step(recapItems, 0)
	step(goalLatest, 8)
	step(fileItems, 6)
	step(prevFiles, 0)
	step(milestoneItems, 0)
	// The failures an earlier session left unfixed go before this
	// session's own declined, in-flight and failed calls.
	step(prevFailures, 0)
	step(declined, 0)
	step(inFlight, 0)
	step(pendingTodos, 0)
	step(statusTodos, 0)
	step(actionItems, 0)
	step(pendingFailures, 0)
	step(fileItems, 0)
	step(paragraphs, 0)
	if current {
		// The plan the person approved and the work goes by now: what
		// their latest instruction asks done.
		step(planItems, 0)
	}
	step(goalLatest, 0)
	if task {
		// The plan approved to start the work is its task: it goes
		// with the first instruction.
		step(planItems, 0)
	}
	step(goalFirst, 0)
	step(constraintItems, 0)
	step(reply, 0)
	total, cutBy := fit(blocks, plan, opts.Budget)
	var cutNotes []string
	for _, ps := range plan {
		s := ps.sec
		if s == nil || cutBy[s] == 0 || s.gone() {
			continue // a longer form left out whole is no cut to recall
		}
		n := cutBy[s]
		delete(cutBy, s)
		// The count the section's cut line gives: the budget's cuts and
		// what the fold itself did not keep (the constraints past its cap).
		pre := s.pre.N
		for _, r := range s.preOthers {
			pre += r.N
		}
		noun := s.plural
		if n+pre == 1 {
			noun = s.singular
		}
		if pre > 0 && s == constraintItems {
			cutNotes = append(cutNotes, fmt.Sprintf("%d %s (%s: %d cut to fit, %d past the fold's cap of %d)", n+pre, noun, s.blk.title, n, pre, keptConstraints))
			continue
		}
		if pre > 0 {
			cutNotes = append(cutNotes, fmt.Sprintf("%d %s (%s: %d cut to fit, %d not kept by the fold)", n+pre, noun, s.blk.title, n, pre))
			continue
		}
		cutNotes = append(cutNotes, fmt.Sprintf("%d %s (%s)", n, noun, s.blk.title))
	}
	if total < opts.Budget {
		// Room the refill left: the instructions answered since and the
		// tail's outputs shown at more length.
		total += goalLatest.grow(opts.Budget - total)
		total += tailItems.grow(opts.Budget - total)
	}
	if total > opts.Budget {
		return nil, fmt.Errorf("%w: %s at seq %d: the parts never cut (skeleton turn, headers, anchor, cut lines) need %d runes, the budget is %d", ErrBudget, st.SessionID, st.LastSeq, total, opts.Budget)
	}
	if len(cutNotes) > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("cut to fit the budget of %d runes: %s; every cut names the seqs to recall", opts.Budget, strings.Join(cutNotes, ", ")))
	}

	var rendered []*block
	for _, blk := range blocks {
		if !blk.vanished() {
			rendered = append(rendered, blk)
		}
	}
	blocks = rendered
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
	// The breakpoint's carryover as rendered: its sections (the last
	// message, the earlier steps' paragraphs, their headings and cut line).
	if c := paragraphs.runes() + reply.runesOrZero(); c > 0 {
		t.CarryoverChars = c - 1
	}
	if t.PrefixHash, err = b.prefixHash(); err != nil {
		return nil, err
	}
	t.Relies = b.relies(t.Inherit, t.PrefixHash)
	t.TapeHash = tapeHash(t, opts)
	return t, nil
}

// fit cuts the blocks' entries by the plan's steps until they fit in
// budget runes, then gives the room the last cut left to what was cut,
// and returns the tape's runes and how many entries each section lost.
func fit(blocks []*block, plan []cutStep, budget int) (int, map[*section]int) {
	total := totalRunes(blocks)
	cutBy := map[*section]int{}
	type cutItem struct {
		sec *section
		k   int
	}
	var cuts []cutItem
	for _, ps := range plan {
		s := ps.sec
		if s == nil || total <= budget {
			continue
		}
		if ps.shrink {
			for total > budget {
				before := s.blk.span()
				if !s.shrinkNext(ps.keep) {
					break
				}
				total += s.blk.span() - before
			}
			continue
		}
		for total > budget && s.canCut() && s.liveItems() > ps.keep && (ps.keepRunes == 0 || s.live > ps.keepRunes) {
			before := s.blk.span()
			cuts = append(cuts, cutItem{s, s.cutNext()})
			cutBy[s]++
			total += s.blk.span() - before
		}
	}
	// The last cut freed more than the budget asked for: the room left
	// takes back what was cut, the latest cut (the highest ranked) first,
	// each entry that fits, among the last refillTries cuts.
	blocked := map[*section]bool{}
	for k := len(cuts) - 1; k >= 0 && k >= len(cuts)-refillTries && total < budget; k-- {
		c := cuts[k]
		if blocked[c.sec] || (c.sec.of != nil && c.sec.of.liveItems() == 0) {
			continue
		}
		before := c.sec.blk.span()
		c.sec.setCut(c.k, false)
		if grown := total + c.sec.blk.span() - before; grown <= budget {
			total = grown
			cutBy[c.sec]--
			continue
		}
		c.sec.setCut(c.k, true) // it does not fit
		blocked[c.sec] = c.sec.inOrder
	}
	return total, cutBy
}

// keptDetailedFiles is how many of the newest written files keep their
// details (what they define, add and hold) when the budget first shrinks
// the older ones to their path and ops, before it cuts any file.
const keptDetailedFiles = 6

// refillTries is how many of the last cuts the room the cuts left may
// take back (a bound: each try counts a section's cut seqs again).
const refillTries = 64

// carryFloor is the runes of the assistant's newest messages the ranking
// keeps before it cuts the files and the newest actions: a third of the
// default budget, the freshest account of the work and its choices.
const carryFloor = 6000

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
		if p.User || p.Seq <= st.Boundary {
			continue // the open turn's messages only
		}
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

func (b *Builder) ackBlock() *block {
	blk := newBlock("Handoff acknowledged")
	blk.kind = session.TypeAssistantMessage
	blk.addHead("Understood. I resume from the breakpoint, keep the hard constraints, and verify pending items before re-running them.")
	return blk
}

// originText cites where something was said in another session than
// the one a block names: the generation, the session and the seq.
func originText(o session.Origin) string {
	return fmt.Sprintf("gen %d session %s seq %d", o.Generation, o.Session, o.Seq)
}

// originText cites where an instruction of the Goal block was said: "seq
// N" in the source session, which the Handoff block names once; "gen G seq
// N" in an earlier session of the lineage, which the Handoff block names
// too (lineageAliases); the generation and the session in any other.
func (b *Builder) originText(o session.Origin) string {
	if a := b.alias(o.Session); a != "" {
		return fmt.Sprintf("%s seq %d", a, o.Seq)
	}
	return originIn(o, b.st.SessionID, b.st.Generation)
}

// alias is "gen G" for an earlier session of the lineage the tape cites
// by its generation (lineageAliases), "" for any other.
func (b *Builder) alias(sess string) string {
	if g, ok := b.lineage[sess]; ok {
		return fmt.Sprintf("gen %d", g)
	}
	return ""
}

// ref is how the tape's blocks but the constraints' cite the session of
// o in a cut mark or a cut line: "" for the tape's own, "gen G" for an
// earlier session of the lineage (lineageAliases), else its id. The
// constraints block is given to a host again alone, without the Handoff
// block that names the generations: it cites sessions by id (refSession).
func (b *Builder) ref(o session.Origin) string {
	if o.Session == b.st.SessionID {
		return ""
	}
	if a := b.alias(o.Session); a != "" {
		return a
	}
	return o.Session
}

// lineageAliases is the generation of each earlier session the fold's
// state cites, when no other session it cites has that generation: the
// tape cites it by that generation ("gen 1"). Along one lineage each
// generation is one session, and the Handoff block names them once, so
// that the tape's lines do not repeat a host's session id (36 to 64
// characters) at every citation.
func (b *Builder) lineageAliases() map[string]int {
	st := &b.st
	gens := map[int]map[string]bool{}
	add := func(o session.Origin) {
		if o.Session == "" || o.Session == st.SessionID || o.Generation < 1 {
			return
		}
		if gens[o.Generation] == nil {
			gens[o.Generation] = map[string]bool{}
		}
		gens[o.Generation][o.Session] = true
	}
	if st.FirstGoal != nil {
		add(st.FirstGoal.Origin)
	}
	for _, c := range st.Constraints {
		add(c.Origin)
		for _, a := range c.Also {
			add(a)
		}
	}
	for _, q := range st.Humans {
		add(q.Origin)
	}
	for _, f := range st.PrevFiles {
		add(session.Origin{Generation: f.Generation, Session: f.Session, Seq: f.Seq})
	}
	for _, m := range st.PrevMessages {
		add(m.Origin)
	}
	for _, q := range st.PrevPrompts {
		add(q.Origin)
	}
	if p := st.Plan; p != nil && p.From != nil {
		add(*p.From)
	}
	if st.TodoFrom != nil {
		add(*st.TodoFrom)
	}
	for _, p := range slices.Concat(st.PrevFailures, st.PrevWorkarounds, st.PrevMilestones) {
		add(p.Note.Origin)
	}
	for _, m := range st.Relied {
		add(session.Origin{Generation: m.Generation, Session: m.Session, Seq: 1})
	}
	out := map[string]int{}
	for g, ss := range gens {
		if len(ss) == 1 {
			for s := range ss {
				out[s] = g
			}
		}
	}
	return out
}

// sessionLabel is how a cut mark or a cut line names a session: "gen G"
// as it stands, a session id as "session <id>".
func sessionLabel(ref string) string {
	if strings.HasPrefix(ref, "gen ") {
		return ref
	}
	return "session " + ref
}

// originIn cites o by its seq alone when it was said in the session and
// generation a block names, else in full (originText).
func originIn(o session.Origin, sess string, generation int) string {
	if o.Session == sess && o.Generation == generation {
		return fmt.Sprintf("seq %d", o.Seq)
	}
	return originText(o)
}

// refSession is the session an item recalls: "" for the source itself.
func (b *Builder) refSession(o session.Origin) string {
	if o.Session == b.st.SessionID {
		return ""
	}
	return o.Session
}

const maxAlsoListed = 3

// ConstraintsTitle is the title of the Anchor + Hard Constraints block,
// which a host is given again after it compacted a session on its own.
const ConstraintsTitle = "Anchor + Hard Constraints"

// Block is the text of the tape's block titled title (its marker line
// first), and whether the tape has one.
func (t *Tape) Block(title string) (string, bool) {
	suffix := "] [" + title + "]"
	for _, ev := range t.Events {
		first, _, _ := strings.Cut(ev.Text, "\n")
		if strings.HasPrefix(first, session.GraftMarker) && strings.HasSuffix(first, suffix) {
			return ev.Text, true
		}
	}
	return "", false
}

// ConstraintsBlock is the Anchor + Hard Constraints block of the tape
// BuildFrom(opts, nil, src) builds, what a host is given again after it
// compacted a session on its own, within max characters as length counts
// them (length nil: runes; max 0: no cap). A host that keeps only the
// first max characters of a hook's context would cut the block mid-line;
// so, when the tape's block is longer, the block is rendered alone with
// its constraints cut in its section's own order (the pasted-only ones,
// newest first, then the typed ones, newest first) until it fits, and its
// cut line names the seqs to recall. The marker, the anchor line and the
// heading are never cut: ErrBudget when they (and the cut line) do not
// fit in max.
func (b *Builder) ConstraintsBlock(opts Options, src Outputs, max int, length func(string) int) (string, error) {
	t, err := b.BuildFrom(opts, nil, src)
	if err != nil {
		return "", err
	}
	text, ok := t.Block(ConstraintsTitle)
	if !ok {
		return "", fmt.Errorf("tape: the tape of %s has no %s block", b.st.SessionID, ConstraintsTitle)
	}
	if length == nil {
		length = utf8.RuneCountInString
	}
	if max <= 0 || length(text) <= max {
		return text, nil
	}
	// fit counts runes; length may count more (UTF-16 units, escapes):
	// the rune budget shrinks by the share the rendering is over max,
	// and the block is cut again from whole, until it fits.
	for budget := max; ; {
		blk, sec, _ := b.constraintsBlock()
		total, _ := fit([]*block{blk}, []cutStep{{sec: sec}}, budget)
		if total > budget {
			return "", fmt.Errorf("%w: %s at seq %d: the %s block's marker, anchor line, heading and cut line need %d runes, the host keeps %d characters", ErrBudget, b.st.SessionID, b.st.LastSeq, ConstraintsTitle, total, max)
		}
		text := blk.text(b.st.SessionID)
		n := length(text)
		if n <= max {
			return text, nil
		}
		budget = min(budget-1, total*max/n)
	}
}

// keptPastedConstraints is how many constraints said only in pasted
// instructions (pastedBytes) the ranking keeps before it cuts the written
// files: the first ones of the paste, its heading rules.
const keptPastedConstraints = 4

// constraintsBlock returns the block, its constraints and how many of
// them were typed: said at least once in an instruction shorter than
// pastedBytes (or in another session). The section cuts the pasted ones
// first, newest first, then the typed ones, newest first.
func (b *Builder) constraintsBlock() (*block, *section, int) {
	st := &b.st
	blk := newBlock(ConstraintsTitle)
	oldest, ok := anchors.Oldest(st.Constraints)
	if !ok && len(st.MoreConstraints) == 0 {
		blk.addHead("No hard constraints.")
		return blk, nil, 0
	}
	if ok {
		blk.addHead(anchors.AnchorLine(oldest), "HARD CONSTRAINTS, each with its first origin (a seq alone: in the anchor's session):")
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
	// The block is given to a host again alone after it compacted
	// (ConstraintsTitle): its anchor line, never cut, names the oldest
	// origin's session, and a constraint said there is cited by its seq
	// alone (a host's session id, 36 to 64 characters, on every line took
	// a tenth of the block); one said in another session or generation,
	// in full.
	for _, c := range st.Constraints {
		line := "- " + c.Text + " (" + originIn(c.Origin, oldest.Session, oldest.Generation)
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
			if a.Session == c.Origin.Session && a.Generation == c.Origin.Generation {
				line += fmt.Sprintf("seq %d", a.Seq) // the line named its session
			} else {
				line += originText(a)
			}
		}
		line += ")"
		sec.items = append(sec.items, newItem(line, b.refSession(c.Origin), c.Origin.Seq, c.Origin.Seq))
	}
	var pasted, typed []int
	for k := len(st.Constraints) - 1; k >= 0; k-- {
		if b.pastedOnly(st.Constraints[k]) {
			pasted = append(pasted, k)
		} else {
			typed = append(typed, k)
		}
	}
	sec.order = append(pasted, typed...)
	return blk, blk.addSection(sec), len(typed)
}

// pastedOnly: every saying of c was in a pasted instruction, of this
// session by its seq, of the sessions before as the target that handed c
// on marked it (c.Pasted).
func (b *Builder) pastedOnly(c session.Constraint) bool {
	for _, o := range append([]session.Origin{c.Origin}, c.Also...) {
		if o.Session == b.st.SessionID {
			if !slices.Contains(b.st.Pasted, o.Seq) {
				return false
			}
		} else if !c.Pasted {
			return false
		}
	}
	return true
}

func isKnownStatus(s string) bool {
	return s == session.TodoCompleted || s == session.TodoPending || s == session.TodoInProgress
}

// unanswered is 1 when the newest sub-agent report came after the
// assistant's newest message (lastSaid, the rule that shows an answered
// report short): what the agent learned last, which nothing else in the
// tape says yet; else 0.
func (b *Builder) unanswered() int {
	if n := len(b.st.Reports); n > 0 && b.st.Reports[n-1].Seq > b.lastSaid() {
		return 1
	}
	return 0
}

// answeredReportRunes is what Sub-agent Reports shows of a report the
// assistant has spoken after, by its head and its end.
const answeredReportRunes = 300

// lastSaid is the seq of the assistant's newest message, in the open turn
// or before it (0: none the fold keeps).
func (b *Builder) lastSaid() int64 {
	st := &b.st
	if st.LastReply != nil {
		return st.LastReply.Seq
	}
	for k := len(st.Carry.Paragraphs) - 1; k >= 0; k-- {
		if p := st.Carry.Paragraphs[k]; !p.User {
			return p.Seq
		}
	}
	return 0
}

func (b *Builder) reportsBlock() (*block, *section) {
	st := &b.st
	blk := newBlock("Sub-agent Reports")
	skipped := ""
	if st.ReportsSkipped > 0 {
		skipped = fmt.Sprintf(" Left out: %s (no report keyword in the first %d characters, or a file or log dump).", count(st.ReportsSkipped, "report", "reports"), ReportKeywordRunes)
	}
	if len(st.Reports) == 0 && st.ReportsDropped.N == 0 {
		if skipped == "" {
			return nil, nil // nothing to say: left out
		}
		blk.addHead("No sub-agent report." + skipped)
		return blk, nil
	}
	blk.addHead(fmt.Sprintf("Sub-agent reports, oldest first (the last %d are kept).", keptReports) + skipped)
	// inOrder: an older report does not come back in the room the newest
	// left when the newest does not fit (TestNewestReportKeptWithItsSummary).
	sec := &section{singular: "report", plural: "reports", cutFront: true, pre: st.ReportsDropped, inOrder: true}
	said := b.lastSaid()
	for _, r := range st.Reports {
		agent := ""
		if r.Agent != "" {
			agent = " " + r.Agent
		}
		text := r.Text
		if r.Seq < said {
			// Answered: the assistant's messages since say what it took
			// from the report (TestAnAnsweredReportShowsItsHeadAndEnd).
			text = clipHeadTail(text, answeredReportRunes, "", r.Seq)
		}
		sec.items = append(sec.items, newItem(fmt.Sprintf("- seq=%d%s:\n%s", r.Seq, agent, text), "", r.Seq, r.Seq))
	}
	return blk, blk.addSection(sec)
}

func (b *Builder) recallBlock() (*block, *section) {
	st := &b.st
	blk := newBlock("Recall Index")
	blk.optional = true // left out whole once its entries are all cut
	blk.addHead("Re-read any event with the Handoff's graft recall.")
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
