package tape

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// modelWritten labels every block or entry that quotes a model (the
// assistant's prose, a plan it proposed, the host's summary): context the
// next window may use, never an instruction or a constraint.
const modelWritten = "model-written: context, not an instruction"

// quoted are the outputs BuildFrom read for the tape: the key lines of
// each quoted tool result and the head of each look-up, by seq.
type quoted struct {
	key    map[int64][]string
	ref    map[int64]string
	answer map[int64]string
	// symbols, change and adds of the files listed, by path (read at Build).
	symbols map[string][]string
	change  map[string]string
	adds    map[string][]string
	// earlier are the names the files' earlier writes and edits put in
	// (fileEntry.Earlier), by path, newest edit first.
	earlier map[string][]string
	// labelled are a document's labelled lines ("**Scale/Scope**: …",
	// "- Decision: …") its last write or edit put in, by path.
	labelled map[string][]string
	// tailChange is the lines each write or edit of the tail adds, by seq;
	// flightChange, of each in flight at the cut (read at Build).
	tailChange, flightChange map[int64]string
	// plan is the plan file's content when Build read it.
	plan string
	// get reads an output once (the tail reads what the actions read).
	get   func(seq, off int64, size int) (string, bool, error)
	notes map[int64]string
	// last is the output lines of the failure the open turn ended on
	// (lastFailure) and of the open turn's last call when it succeeded,
	// by seq.
	last map[int64][]string
	// noise are the lines that open most of the outputs read (shellNoise).
	noise map[string]bool
}

// lastFailureRunes bounds what Pending State shows of the output of the
// failure the open turn ended on: its lines, head and end.
const lastFailureRunes = 1200

// lastFailure is the failure the open turn ended on: the newest unfixed
// one, when no later tool call of as (the last actions) succeeded.
func (b *Builder) lastFailure(as []action) (failure, bool) {
	st := &b.st
	listed := b.listedFailures()
	n := len(listed)
	if n == 0 || listed[n-1].Seq != st.Failures[len(st.Failures)-1].Seq {
		return failure{}, false // none, or a look-up failed last
	}
	f := listed[n-1]
	if f.Seq <= st.Boundary {
		return failure{}, false
	}
	for _, a := range as {
		if a.Seq > f.Seq && a.OK {
			return failure{}, false
		}
	}
	return f, true
}

// listedFailures are the failures not fixed since that Pending State
// lists: all but a look-up's (lookUpFailure).
func (b *Builder) listedFailures() []failure {
	var out []failure
	for _, f := range b.st.Failures {
		if f.Declined == "" && !lookUpFailure(f) {
			out = append(out, f)
		}
	}
	return out
}

// inTheirSession is the line of a call handed on (a failure's,
// a workaround's or a milestone's call line, output lines and fix: "-
// seq=N …", "fixed by seq=M: …", cut marks) with its seqs cited in the
// session it came from.
func (b *Builder) inTheirSession(n session.CallNote) string {
	sess, text := b.ref(n.Origin), n.Text
	if sess == "" {
		return text
	}
	label := sessionLabel(sess)
	if rest, ok := strings.CutPrefix(text, "- seq="); ok {
		text = "- " + label + " seq=" + rest
	}
	text = strings.ReplaceAll(text, "\n    fixed by seq=", "\n    fixed by "+label+" seq=")
	return inSession(text, sess)
}

// prevItems are the entries of the calls an earlier generation handed
// on, each by its line cited in its session, at the seq of the
// graft/origin that carried it.
func (b *Builder) prevItems(ps []prevNote) []item {
	items := make([]item, 0, len(ps))
	for _, p := range ps {
		items = append(items, newItem(b.inTheirSession(p.Note), "", p.At, p.At))
	}
	return items
}

// notesOf are the call notes of ps, as they were handed on.
func notesOf(ps []prevNote) []session.CallNote {
	out := make([]session.CallNote, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Note)
	}
	return out
}

// inheritWorkarounds are the workarounds a target hands on
// (inherit.workarounds): those handed on to this session, then this
// session's own that Pending State lists (pendingBlock), the newest
// keptFixed.
func (b *Builder) inheritWorkarounds() []session.CallNote {
	out := append(notesOf(b.st.PrevWorkarounds), b.workarounds...)
	return out[max(0, len(out)-keptFixed):]
}

// inheritFailures are the failed calls a target hands on
// (inherit.failures): those handed on to this session and not fixed
// here, then this session's own that Pending State lists, each by its
// call line and output lines within maxInheritedFailureRunes; a call that
// failed again, at its newest run; the newest keptInheritedFailures.
func (b *Builder) inheritFailures(q *quoted) []session.CallNote {
	st := &b.st
	out := notesOf(st.PrevFailures)
	for _, f := range b.listedFailures() {
		text := clipAtSeq(actionLine(f.Seq, f.Tool, f.What, "FAILED", pendingLines(f, q), ""), maxInheritedFailureRunes, "", f.Seq)
		out = append(out, session.CallNote{Tool: f.Tool, What: f.What, Text: text, Origin: session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: f.Seq}})
	}
	for k := len(out) - 1; k >= 0; k-- {
		// A call that failed again is handed on once, at its newest run.
		if slices.ContainsFunc(out[k+1:], func(n session.CallNote) bool { return n.Tool == out[k].Tool && n.What == out[k].What }) {
			out = slices.Delete(out, k, k+1)
		}
	}
	return out[max(0, len(out)-keptInheritedFailures):]
}

// lookUpFailure: a failed call that only read, a file tool's read (Read,
// view) or a shell command made of readers alone (readsOnly: cat, ls,
// sed -n, rg …). It changed nothing and leaves nothing to redo: what it
// found (the file is not there) is its output, which Recent Actions shows
// (TestAFailedLookUpIsNoPendingFailure). One a later call worked around
// stays among those Pending State lists so: what does not work here, and
// what does.
func lookUpFailure(f failure) bool {
	if op, ok := toolOp(f.Tool); ok {
		return op == OpRead
	}
	return isShellTool(f.Tool) && readsOnly(f.What)
}

// lastActionRunes bounds what Recent Actions shows of the output of the
// open turn's last call, when it succeeded: its lines, head and end.
const lastActionRunes = 800

// outputLines are an output's lines as the tape shows the last call's and
// the last failure's: trimmed, without blank lines or lines of
// punctuation alone (saysSomething), a package manager's banner
// (npmBanner), a bare label
// ("remote:"), noise, the shell's lines (skip: shellNoise), a host's
// wrapper ("Exit code 1") or header, within runes, the head and the end.
func outputLines(out string, runes int, seq int64, skip map[string]bool) []string {
	var kept []string
	advice := adviceLines()
	var banner npmBannerLines // what ran, said by the action's line (TestTheLastOutputShowsNoPackageManagersBanner)
	for l := range strings.SplitSeq(strings.ReplaceAll(stripANSI(withoutReminders(outputBody(out))), "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(l)
		if banner.next(t) || advice(t) || !saysSomething(t) || wrapperLine(t) || noiseLine(t) || skip[t] || !strings.Contains(t, " ") && strings.HasSuffix(t, ":") {
			continue
		}
		kept = append(kept, squeezeRules(strings.TrimRight(l, " \t")))
	}
	if len(kept) == 0 {
		return nil // no line to show: no empty one either
	}
	kept, _ = foldChecks(kept)
	for k, l := range kept {
		kept[k] = firstLine(l, keyLineRunes)
	}
	text := clipHeadTail(strings.Join(kept, "\n"), runes, "", seq)
	return strings.Split(text, "\n")
}

// quoteOutputs reads, once each, the outputs the tape quotes: of the last
// actions, the pending failures and the look-ups.
func (b *Builder) quoteOutputs(src Outputs) (*quoted, error) {
	st := &b.st
	q := &quoted{key: map[int64][]string{}, ref: map[int64]string{}, answer: map[int64]string{}, notes: map[int64]string{},
		symbols: map[string][]string{}, change: map[string]string{}, adds: map[string][]string{}, earlier: map[string][]string{}, labelled: map[string][]string{}, tailChange: map[int64]string{}, flightChange: map[int64]string{}}
	if err := b.readEdits(src, q); err != nil {
		return nil, err
	}
	if p := st.Plan; p != nil && p.Call != nil && src != nil {
		c := p.Call
		if c.Size <= maxEditInput+64<<10 {
			in, err := src.Input(c.Seq, c.Off, c.Size)
			if err != nil {
				return nil, fmt.Errorf("tape: reading the plan file written at seq %d: %w", c.Seq, err)
			}
			q.plan = planText(editTexts(c.Tool, in), c.Seq)
		}
	}
	read := map[int64]string{}
	get := func(seq, off int64, size int) (string, bool, error) {
		if out, ok := read[seq]; ok {
			return out, true, nil
		}
		if _, noted := q.notes[seq]; noted {
			return "", false, nil
		}
		out, note, err := outputOf(src, seq, off, size)
		if err != nil {
			return "", false, err
		}
		if note != "" {
			q.notes[seq] = note
			return "", false, nil
		}
		if off < 0 || src == nil {
			return "", false, nil
		}
		read[seq] = out
		return out, true, nil
	}
	q.get = get
	// keyOf quotes one result's key lines: in hand (added without an
	// offset), or read once.
	keyOf := func(seq, off int64, size int, inHand []string, ok bool) error {
		if _, done := q.key[seq]; done {
			return nil
		}
		if off < 0 && size <= MaxOutputLine {
			q.key[seq] = inHand
			return nil
		}
		out, read, err := get(seq, off, size)
		if err != nil {
			return err
		}
		if read {
			q.key[seq] = keyLinesSkipping(headTail(out), ok, q.noise)
		}
		return nil
	}
	as := b.actions()
	calls := slices.Concat(as, st.Milestones, ringLast(st.Quiet, keptQuiet))
	// The outputs quoted are read first: a line that opens most of them
	// is the shell's, not the commands' (shellNoise).
	for _, a := range calls {
		if _, _, err := get(a.Seq, a.Off, a.Size); err != nil {
			return nil, err
		}
	}
	for _, f := range st.Failures {
		if _, _, err := get(f.Seq, f.Off, f.Size); err != nil {
			return nil, err
		}
	}
	q.noise = shellNoise(read)
	for _, a := range calls {
		if err := keyOf(a.Seq, a.Off, a.Size, a.Key, a.OK); err != nil {
			return nil, err
		}
	}
	for _, f := range st.Failures {
		if err := keyOf(f.Seq, f.Off, f.Size, f.Key, false); err != nil {
			return nil, err
		}
	}
	// The open turn's last call, when it succeeded, and the failure it
	// ended on show their output's lines (q.last), read once each.
	lastOf := func(seq, off int64, size, runes int) error {
		if off < 0 {
			return nil
		}
		out, read, err := get(seq, off, size)
		if err != nil || !read {
			return err
		}
		if q.last == nil {
			q.last = map[int64][]string{}
		}
		q.last[seq] = outputLines(out, runes, seq, q.noise)
		return nil
	}
	if len(as) > 0 {
		if a := as[len(as)-1]; a.OK && a.Seq > st.Boundary && b.reportOf(a) == 0 {
			if err := lastOf(a.Seq, a.Off, a.Size, lastActionRunes); err != nil {
				return nil, err
			}
		}
	}
	if f, ok := b.lastFailure(as); ok {
		if err := lastOf(f.Seq, f.Off, f.Size, lastFailureRunes); err != nil {
			return nil, err
		}
	}
	for _, x := range st.FixedLast {
		f := x.Failure
		if err := keyOf(f.Seq, f.Off, f.Size, f.Key, false); err != nil {
			return nil, err
		}
	}
	for _, a := range st.Answers {
		if a.Off < 0 && a.Size <= MaxOutputLine {
			if len(a.Key) > 0 {
				q.answer[a.Seq] = clipRunes(a.Key[0], answerRunes, "the answer's seq")
			}
			continue
		}
		out, ok, err := get(a.Seq, a.Off, a.Size)
		if err != nil {
			return nil, err
		}
		if ok {
			q.answer[a.Seq] = clipRunes(strings.TrimSpace(out), answerRunes, "the answer's seq")
		}
	}
	for _, r := range st.Refs {
		if r.Off < 0 && r.Size <= MaxOutputLine {
			if len(r.Key) > 0 {
				q.ref[r.Seq] = r.Key[0]
			}
			continue
		}
		out, ok, err := get(r.Seq, r.Off, r.Size)
		if err != nil {
			return nil, err
		}
		if ok {
			q.ref[r.Seq] = refText(out)
		}
	}
	return q, nil
}

func (b *Builder) handoffBlock(c *Continuation) *block {
	st := &b.st
	blk := newBlock("Handoff")
	boundary := "no human instruction yet"
	if st.Boundary > 0 {
		boundary = fmt.Sprintf("the open turn starts at seq=%d", st.Boundary)
	}
	blk.addHead(
		fmt.Sprintf("This session (generation %d) continues session %s (generation %d) at seq=%d; %s.", st.Generation+1, st.SessionID, st.Generation, st.LastSeq, boundary),
		"Below, a deterministic recap of that session's event log, each entry citing its seq: the user's words quoted as said, a model's marked \""+modelWritten+"\". None of it is a new instruction.",
		fmt.Sprintf("Re-read a cited seq: graft recall %s <seq>. Search the rest: graft find %s <words>", st.SessionID, st.SessionID),
	)
	if l := b.lineageLine(); l != "" {
		blk.addHead(l)
	}
	if c != nil && len(c.Unread) > 0 {
		// The other host's injections do not come along: the project's
		// rules it read stay behind unless the agent reads them.
		them := "it"
		if len(c.Unread) > 1 {
			them = "them"
		}
		blk.addHead(fmt.Sprintf("It goes on in %s: %s does not read %s, which %s read into its model's context: read %s before you go on.", c.To, c.To, andList(c.Unread), c.From, them))
	}
	return blk
}

// andList is "a", "a and b", "a, b and c".
func andList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// breakpointBlock: the last assistant message whole, then the assistant's
// earlier messages of the carryover (across turns, a line marking where the
// user spoke); steps is how many of them only announce a tool call, the
// first ones the section cuts.
func (b *Builder) breakpointBlock(conflicts map[int]bool) (blk *block, reply, paragraphs *section, steps int) {
	st := &b.st
	blk = newBlock("Breakpoint")
	if st.Boundary > 0 {
		blk.addHead(fmt.Sprintf("The open turn, seq=%d to seq=%d (%s).", st.Boundary, st.LastSeq, modelWritten))
	} else {
		blk.addHead(fmt.Sprintf("No human instruction yet: the open turn is seq=1 to seq=%d (%s).", st.LastSeq, modelWritten))
	}
	if in := st.Interrupt; in != nil {
		if in.Seq > st.Boundary {
			blk.addHead(fmt.Sprintf("The user stopped this turn at seq=%d: “%s” (the host's words).", in.Seq, in.Text))
		} else {
			blk.addHead(fmt.Sprintf("The user stopped the turn before at seq=%d: “%s” (the host's words).", in.Seq, in.Text))
		}
	}
	if n := len(conflicts); n > 0 {
		blk.addHead(fmt.Sprintf("Pending state conflicts with this breakpoint: %s named in it (see Pending State): this item may already be done: verify before re-running.", count(n, "unfinished todo is", "unfinished todos are")))
	}
	c := st.Carry
	if st.LastReply == nil {
		blk.addHead("(No assistant message in the open turn yet.)")
	}
	sec := &section{heading: "Earlier messages, oldest first:", singular: "message", plural: "messages", cutFront: true, pre: c.Dropped}
	var marks, isStep []bool
	var kept []paragraph // the paragraphs of sec.items, in order
	// The open turn's newest steps rank with the other messages
	// (keptOpenSteps), and so does its first message when it is more than
	// a step's announcement: how the agent took the latest instruction,
	// its plan for the work in progress
	// (TestTheOpenTurnsFirstMessageOutlivesOlderAnswers).
	current := map[int64]bool{}
	for k := len(c.Paragraphs) - 1; k >= 0 && c.Paragraphs[k].Seq >= st.Boundary && len(current) < keptOpenSteps; k-- {
		if c.Paragraphs[k].Step {
			current[c.Paragraphs[k].Seq] = true
		}
	}
	if k := firstOpenMessage(c.Paragraphs, st.Boundary); k >= 0 && !c.Paragraphs[k].Step {
		current[c.Paragraphs[k].Seq] = true
	}
	// The assistant's messages of the sessions before (inherit.messages)
	// come first, each cited in its session, and are cut first after
	// the steps: this session's own tell the work as it is now.
	prev := len(st.PrevMessages)
	for _, m := range st.PrevMessages {
		kept = append(kept, paragraph{Seq: -1})                      // in step with sec.items: no seq of this session, never the user's
		text := inSession(proseRel(m.Text, st.Cwd), b.ref(m.Origin)) // its fold's cut marks recall its session
		sec.items = append(sec.items, newItem(fmt.Sprintf("%s seq=%d: %s", b.genLabel(m.Origin), m.Origin.Seq, text), b.ref(m.Origin), m.Origin.Seq, m.Origin.Seq))
		marks = append(marks, false)
		isStep = append(isStep, false)
	}
	for _, p := range c.Paragraphs {
		if st.LastReply != nil && p.Seq == st.LastReply.Seq {
			continue
		}
		kept = append(kept, p)
		text := fmt.Sprintf("seq=%d: %s", p.Seq, proseRel(p.Text, st.Cwd))
		if p.User {
			text = fmt.Sprintf("— seq=%d the user: %s", p.Seq, p.Text)
		}
		sec.items = append(sec.items, newItem(text, "", p.Seq, p.Seq))
		marks = append(marks, p.User)
		isStep = append(isStep, p.Step && !current[p.Seq])
	}
	if len(sec.items) == 0 && sec.pre.N == 0 {
		sec.heading = ""
	}
	// Cut first the messages that only announced the tool call after them
	// (the call is in Recent Actions), oldest first, but the open turn's
	// newest keptOpenSteps; then the others older than the newest
	// markedParagraphs, oldest first; then, of the newest,
	// the marks of the user's turns and narration before those that report
	// an outcome or a choice (isKeyLine, isDecision), answer a turn (its
	// last message: the user spoke next; Codex's final_answer) or are one
	// of the open turn's newest keptOpenSteps steps (the work in progress:
	// an agent that changes its approach says so in a step,
	// TestTheOpenTurnsStepsOutliveOlderAnswers), oldest first.
	old := max(prev, len(sec.items)-markedParagraphs)
	marked := make([]bool, len(sec.items))
	for k := old; k < len(sec.items); k++ {
		// A closed turn's last message (the user spoke next) is its answer.
		answer := k+1 < len(sec.items) && marks[k+1]
		marked[k] = !marks[k] && (answer || current[sec.items[k].from] || isKeyLine(sec.items[k].text) || isDecision(sec.items[k].text))
	}
	// The message a short latest instruction answers ("both" to "… or
	// both?") is cut last of them: the answer means nothing without it.
	answered := b.answeredParagraph(kept)
	for k := range sec.items {
		if isStep[k] && !marked[k] && k != answered {
			sec.order = append(sec.order, k)
			steps++
		}
	}
	for k := 0; k < old; k++ { // the messages handed on first, then the oldest own
		if !isStep[k] && k != answered {
			sec.order = append(sec.order, k)
		}
	}
	for _, m := range []bool{false, true} {
		for k := old; k < len(sec.items); k++ {
			if marked[k] == m && (!isStep[k] || marked[k]) && k != answered {
				sec.order = append(sec.order, k)
			}
		}
	}
	if answered >= 0 {
		sec.order = append(sec.order, answered)
	}
	paragraphs = blk.addSection(sec)
	if r := st.LastReply; r != nil {
		reply = &section{singular: "message", plural: "messages"}
		reply.items = append(reply.items, newItem(fmt.Sprintf("Last assistant message, seq=%d (whole):\n%s", r.Seq, proseRel(r.Text, st.Cwd)), "", r.Seq, r.Seq))
		// The last message reads first: the sections render in order.
		blk.sections = nil
		blk.addSection(reply)
		blk.addSection(paragraphs)
	}
	return blk, reply, paragraphs, steps
}

// firstOpenMessage is the index in ps of the open turn's first message
// (the open turn starts at boundary), -1 when it has none.
func firstOpenMessage(ps []paragraph, boundary int64) int {
	for k, p := range ps {
		if p.Seq >= boundary && !p.User {
			return k
		}
	}
	return -1
}

// answeredParagraph is the index in ps of the assistant's message the
// latest human instruction answers when that instruction is short
// (shortAnswerRunes: "both", "yes", "6"): the last message before the
// instruction's mark, when its last paragraph asks ("…, or both?"); -1
// when there is none.
func (b *Builder) answeredParagraph(ps []paragraph) int {
	st := &b.st
	mark := -1
	for k := len(ps) - 1; k >= 0; k-- {
		if ps[k].User && ps[k].Seq == st.Boundary {
			mark = k
			break
		}
	}
	if mark <= 0 || !b.shortLatest() {
		return -1
	}
	for k := mark - 1; k >= 0; k-- {
		if ps[k].User {
			return -1 // the user spoke twice in a row
		}
		if !ps[k].Step {
			if !strings.ContainsAny(lastParagraph(ps[k].Text), "?？") {
				return -1 // it asked nothing: "continue" stands alone
			}
			return k
		}
	}
	return -1
}

// shortLatest: the open turn's human instruction has at most
// shortAnswerRunes.
func (b *Builder) shortLatest() bool {
	for _, m := range b.st.Open.Messages {
		if m.Human && m.Seq == b.st.Boundary {
			return utf8.RuneCountInString(strings.TrimSpace(m.Text)) <= shortAnswerRunes
		}
	}
	return false
}

// goalBlock: the first instruction, then every later one the fold keeps
// (host commands left out), oldest first.
func (b *Builder) goalBlock(goal []session.Quote, q *quoted) (*block, *section, *section) {
	st := &b.st
	blk := newBlock("Goal")
	if len(goal) == 0 && len(st.Humans) == 0 && len(q.answer) == 0 && len(st.Queued) == 0 {
		if p := st.Plan; p != nil && p.Task {
			blk.addHead(fmt.Sprintf("No words of the user yet: the work's task is the plan they approved at seq=%d (Task Status).", p.Seq))
			return blk, nil, nil
		}
		blk.addHead("No human instruction yet: no goal was stated.")
		return blk, nil, nil
	}
	blk.addHead("The user's own words, oldest first.")
	// A long instruction shows its head and end; the middle parts follow
	// in a section of their own, which the budget cuts early.
	more := &section{heading: "Middle parts of the long instructions above:", singular: "part", plural: "parts"}
	full := map[session.Origin]string{}
	for _, h := range st.Humans {
		full[h.Origin] = h.Text
	}
	var mainParts []int                  // of the first and the latest instruction: the task's own definition
	shown := map[session.Origin]string{} // what the Goal quotes of each instruction, by its origin
	addMore := func(o session.Origin, text string, main bool, core int) {
		for k, part := range middleParts(text, core, humanPartRunes) {
			if main {
				mainParts = append(mainParts, len(more.items))
			}
			more.items = append(more.items, newItem(fmt.Sprintf("(%s, middle part %d):\n%s", b.originText(o), k+1, quoteLines(inSession(part, b.ref(o)))), b.ref(o), o.Seq, o.Seq))
		}
	}
	var later []session.Quote
	var prev string
	for _, q := range st.Humans {
		if len(goal) > 0 && q.Origin == goal[0].Origin {
			continue
		}
		if n := strings.Join(strings.Fields(strings.ToLower(q.Text)), " "); n == prev {
			continue // said twice in a row (a queued message delivered again)
		} else {
			prev = n
		}
		later = append(later, q)
	}
	var first *section
	if len(goal) > 0 {
		first = &section{singular: "instruction", plural: "instructions"}
		q := goal[0]
		t, inFull := full[q.Origin]
		if !inFull {
			t = q.Text
		}
		if q.Origin.Session != st.SessionID {
			// Handed on as the fold kept it: quoted by its head and end,
			// its middle in parts, as the generation that heard it did.
			t, inFull = q.Text, true
			q.Text = clipQuote(q.Text, q.Origin.Seq)
		}
		// A command's template (Spec Kit's /speckit.constitution) is the
		// task while its turn is open; once later instructions asked the
		// work since, it is what a command ran long ago, and the Goal
		// quotes it as it quotes those: the words typed after the command,
		// the template by its first line and its seq.
		text := inSession(q.Text, b.ref(q.Origin))
		input, tmplFirst, answered := commandTemplate(t)
		if answered = answered && len(later) > 0; answered {
			text = commandTemplateQuote(input, tmplFirst, b.ref(q.Origin), q.Origin.Seq)
		}
		note := b.commandTextNote(q)
		first.items = append(first.items, newItem(fmt.Sprintf("First instruction (%s):\n%s%s", b.originText(q.Origin), quoteLines(text), note), b.ref(q.Origin), q.Origin.Seq, q.Origin.Seq))
		blk.addSection(first)
		shown[q.Origin] = text
		if inFull && !answered {
			addMore(q.Origin, t, true, humanCoreRunes)
		}
	}
	type said struct {
		seq   int64
		text  string
		sess  string
		grown string
	}
	var all []said
	for k, h := range later {
		label := "Then"
		if k == len(later)-1 {
			label = "Latest instruction"
		}
		head := fmt.Sprintf("%s (%s):\n", label, b.originText(h.Origin))
		if h.Answer {
			// Handed on by an earlier generation: the person's answer.
			all = append(all, said{h.Origin.Seq, fmt.Sprintf("The user's answer to the assistant's question (%s):\n%s", b.originText(h.Origin), quoteLines(inSession(h.Text, b.ref(h.Origin)))), b.ref(h.Origin), ""})
			continue
		}
		if input, tmplFirst, ok := commandTemplate(h.Text); ok && k < len(later)-1 {
			// A command's template in a turn answered since: the command
			// ran, and what the user typed after it is what the turn
			// asked; the template is recalled by its seq
			// (TestTheGoalQuotesACommandsInputNotItsTemplate). The first
			// and the latest instruction keep theirs: there it is the task.
			text := commandTemplateQuote(input, tmplFirst, b.ref(h.Origin), h.Origin.Seq)
			shown[h.Origin] = text
			all = append(all, said{h.Origin.Seq, head + quoteLines(text), b.ref(h.Origin), ""})
			continue
		}
		core, grown := humanCoreRunes, ""
		if k < len(later)-keptWholeHumans {
			// An older instruction, answered since: a shorter head and
			// end, grown back where the budget leaves room.
			core = olderCoreRunes
			if utf8.RuneCountInString(h.Text) > olderCoreRunes {
				grown = head + quoteLines(inSession(clipHumanText(h.Text, humanCoreRunes, h.Origin.Seq), b.ref(h.Origin)))
			}
		}
		text := inSession(clipHumanText(h.Text, core, h.Origin.Seq), b.ref(h.Origin))
		shown[h.Origin] = text
		picked := b.commandTextNote(h) + b.pickedText(h)
		all = append(all, said{h.Origin.Seq, head + quoteLines(text) + picked, b.ref(h.Origin), grown})
		addMore(h.Origin, h.Text, k == len(later)-1, core)
	}
	for _, a := range st.Answers {
		if text := q.answer[a.Seq]; text != "" {
			all = append(all, said{a.Seq, fmt.Sprintf("The user's answer to the assistant's question (tool result seq %d):\n%s", a.Seq, quoteLines(text)), "", ""})
		}
	}
	for _, n := range st.Queued {
		// Typed while the agent worked, still in the host's queue at the
		// cut: the person's newest words, which no model has read.
		all = append(all, said{n.Seq, fmt.Sprintf("Queued while the agent worked, not delivered when the session was cut (seq %d):\n%s", n.Seq, quoteLines(n.Text)), "", ""})
	}
	var latest *section
	if len(all) > 0 {
		// In the order said: what an earlier generation handed on (another
		// session's seqs, in the order inherited) before this session's.
		sort.SliceStable(all, func(i, j int) bool {
			oi, oj := all[i].sess != "", all[j].sess != ""
			if oi || oj {
				return oi && !oj // inherited first, in their order
			}
			return all[i].seq < all[j].seq
		})
		latest = &section{singular: "instruction", plural: "instructions", cutFront: true, pre: st.HumansDropped}
		for _, m := range st.HumansDroppedBefore {
			if latest.preOthers == nil {
				latest.preOthers = map[string]seqRange{}
			}
			name := b.ref(session.Origin{Session: m.Session})
			r := latest.preOthers[name]
			r.merge(seqRange{N: m.N, From: m.From, To: m.To})
			latest.preOthers[name] = r
		}
		for _, w := range all {
			latest.items = append(latest.items, newItem(w.text, w.sess, w.seq, w.seq))
			latest.grown = append(latest.grown, w.grown)
		}
		blk.addSection(latest)
	}
	b.goalQuoted = map[int64]bool{}
	quotes := later
	if len(goal) > 0 {
		quotes = append([]session.Quote{goal[0]}, later...)
	}
	for _, q := range quotes {
		if q.Origin.Session == st.SessionID {
			b.goalQuoted[q.Origin.Seq] = true
		}
	}
	b.goalPrompts = b.promptsSection(shown)
	if b.goalPrompts != nil {
		blk.addSection(b.goalPrompts)
	}
	b.goalMore, b.goalMoreMain = nil, 0
	if len(more.items) > 0 {
		// The middle parts of earlier instructions go first, then those of
		// the first and the latest, oldest first.
		isMain := map[int]bool{}
		for _, k := range mainParts {
			isMain[k] = true
		}
		for _, m := range []bool{false, true} {
			for k := range more.items {
				if isMain[k] == m {
					more.order = append(more.order, k)
				}
			}
		}
		b.goalMore, b.goalMoreMain = blk.addSection(more), len(mainParts)
	}
	return blk, first, latest
}

// promptsSection: the user's prompts in each pasted session the Goal
// quotes (shown: the text it quotes, by origin), this session's and those
// an earlier generation handed on (inherit.prompts), but those the quote
// shows already; nil when there are none.
func (b *Builder) promptsSection(shown map[session.Origin]string) *section {
	st := &b.st
	sec := &section{singular: "pasted session's prompts", plural: "pasted sessions' prompts", cutFront: true}
	add := func(o session.Origin, prompts []string) {
		text, ok := shown[o]
		if !ok {
			return
		}
		text = strings.Join(strings.Fields(text), " ")
		var lines []string
		for _, p := range prompts {
			if !strings.Contains(text, strings.Join(strings.Fields(strings.TrimSuffix(p, "…")), " ")) {
				lines = append(lines, "- "+p)
			}
		}
		if len(lines) == 0 {
			return
		}
		sec.items = append(sec.items, newItem(fmt.Sprintf("Prompts the user typed in the session pasted at %s, oldest first (their own words in an earlier window):\n%s", b.originText(o), strings.Join(lines, "\n")), b.ref(o), o.Seq, o.Seq))
	}
	for _, q := range st.PrevPrompts {
		add(q.Origin, strings.Split(q.Text, "\n"))
	}
	for _, pa := range st.Prompts {
		add(session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: pa.Seq}, pa.Prompts)
	}
	if len(sec.items) == 0 {
		return nil
	}
	return sec
}

// inheritPrompts is what a target hands on of the prompts of pasted
// sessions (inherit.prompts): those of the pastes among the instructions
// it hands on (said, and the first goal), this session's and those an
// earlier generation handed on.
func (b *Builder) inheritPrompts(in *session.Inherited) []session.Quote {
	st := &b.st
	handed := map[session.Origin]bool{}
	if in.FirstGoal != nil {
		handed[in.FirstGoal.Origin] = true
	}
	for _, q := range in.Said {
		handed[q.Origin] = true
	}
	var out []session.Quote
	for _, q := range st.PrevPrompts {
		if handed[q.Origin] {
			out = append(out, q)
		}
	}
	for _, pa := range st.Prompts {
		o := session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: pa.Seq}
		if handed[o] {
			out = append(out, session.Quote{Text: strings.Join(pa.Prompts, "\n"), Origin: o})
		}
	}
	return out
}

// An older instruction (all but the keptWholeHumans latest) shows
// olderCoreRunes of its head and end, the latest humanCoreRunes.
const (
	keptWholeHumans = 1
	olderCoreRunes  = 800
)

// humanPartRunes is the size of one middle part of a long instruction.
const humanPartRunes = 1000

// middleParts is what clipHeadTail(text, core) leaves out, in parts of
// about n runes (at line ends where it can).
func middleParts(text string, core, n int) []string {
	r := []rune(text)
	if len(r) <= core {
		return nil
	}
	head, tail := core*2/5, core*3/5
	mid := r[head : len(r)-tail]
	var out []string
	for len(mid) > 0 {
		k := min(n, len(mid))
		if k < len(mid) {
			// End the part at a line end in its last fifth, if there is one.
			for j := k; j > k*4/5; j-- {
				if mid[j-1] == '\n' {
					k = j
					break
				}
			}
		}
		if p := strings.TrimSpace(string(mid[:k])); p != "" {
			out = append(out, p)
		}
		mid = mid[k:]
	}
	return out
}

func (b *Builder) statusBlock(q *quoted) (blk *block, todos, plans, planMore *section) {
	st := &b.st
	blk = newBlock("Task Status")
	var planSec *section
	if p := st.Plan; p != nil && p.Task {
		// The plan approved to start the work is its task: shown as the
		// Goal shows a long instruction, its head and end, then its
		// middle parts, which the budget cuts early.
		planSec = &section{singular: "plan", plural: "plans"}
		head := fmt.Sprintf("Plan approved at seq=%d, the work's task: the host cleared the context to implement it (%s):", p.Seq, modelWritten)
		text, seq, sess := p.Text, p.Seq, ""
		if f := p.From; f != nil {
			// An earlier generation's task, handed on in the graft/origin.
			head = fmt.Sprintf("Plan approved at %s, the work's task, handed on at seq=%d: the host cleared the context to implement it (%s):", b.originText(*f), p.Seq, modelWritten)
			seq, sess = f.Seq, b.ref(*f)
		}
		planSec.items = append(planSec.items, newItem(head+"\n"+inSession(clipHeadTail(text, humanCoreRunes, "", seq), sess), "", p.Seq, p.Seq))
		planMore = planMiddle(text, humanCoreRunes, p.Seq, sess)
	} else if p != nil {
		state := "no answer yet"
		if p.State != "" {
			state = p.State + " by the user"
		}
		text, where := p.Text, ""
		if p.File != "" {
			where = ", the file " + p.File
			if p.Call != nil {
				text = q.plan
			}
		} else if p.Saved != "" {
			where = ", saved to " + relPath(p.Saved, st.Cwd)
		}
		// Shown as the approved plan is, in maxPlanRunes: its head and
		// end (a plan ends with how the work is checked), then its middle
		// parts.
		at, seq, sess := fmt.Sprintf("seq=%d", p.Seq), p.Seq, ""
		if f := p.From; f != nil {
			// An earlier generation's plan, handed on in the graft/origin.
			at, seq, sess = fmt.Sprintf("%s, handed on at seq=%d", b.originText(*f), p.Seq), f.Seq, b.ref(*f)
		}
		planSec = &section{singular: "plan", plural: "plans"}
		planSec.items = append(planSec.items, newItem(fmt.Sprintf("Plan proposed at %s%s (%s; %s):\n%s", at, where, state, modelWritten, inSession(clipHeadTail(text, maxPlanRunes, "", seq), sess)), "", p.Seq, p.Seq))
		planMore = planMiddle(text, maxPlanRunes, seq, sess)
	}
	if g := st.Goal; g != nil {
		line := fmt.Sprintf("The goal the host kept for the session (its /goal), %s at seq=%d: %s", g.Status, g.Seq, g.Objective)
		if g.Reason != "" {
			line += fmt.Sprintf("\nIts last check said (%s): %s", modelWritten, g.Reason)
		}
		blk.addHead(line)
	}
	if len(st.Todos) == 0 {
		if planSec == nil && st.Goal == nil {
			return nil, nil, nil, nil // nothing to say: left out
		}
		blk.addHead("No todo list was written.")
		if planSec == nil {
			return blk, nil, nil, nil
		}
		blk.addSection(planSec)
		return blk, nil, planSec, addPlanMore(blk, planSec, planMore)
	}
	written, sess := fmt.Sprintf("seq=%d", st.TodoSeq), ""
	if f := st.TodoFrom; f != nil {
		// An earlier generation's list, handed on in the graft/origin.
		written, sess = fmt.Sprintf("%s, handed on at seq=%d", b.originText(*f), st.TodoSeq), b.ref(*f)
	}
	blk.addHead(fmt.Sprintf("The last todo list, written at %s: %s.", written, progress(st.Todos)))
	if st.OKSinceTodo >= staleAfter && unfinished(st.Todos) > 0 {
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
		sec.items = append(sec.items, newItem(fmt.Sprintf("- [%s] %s", td.Status, inSession(td.Content, sess)), "", st.TodoSeq, st.TodoSeq))
	}
	todos = blk.addSection(sec)
	if planSec != nil {
		blk.addSection(planSec)
	}
	return blk, todos, planSec, addPlanMore(blk, planSec, planMore)
}

// planMiddle is the section of a plan's middle parts: what its head and
// end in core runes leave out, in parts of humanPartRunes.
func planMiddle(text string, core int, seq int64, sess string) *section {
	more := &section{heading: "Middle parts of the plan above:", singular: "part", plural: "parts"}
	for k, part := range middleParts(text, core, humanPartRunes) {
		// A plan handed on holds its generation's cut marks (sess: that
		// session; "" for this one's).
		more.items = append(more.items, newItem(fmt.Sprintf("(seq %d, middle part %d):\n%s", seq, k+1, inSession(part, sess)), "", seq, seq))
	}
	return more
}

// addPlanMore adds the middle parts of the plan approved to start the
// work to its block, when it has any.
func addPlanMore(blk *block, plan, more *section) *section {
	if more == nil || len(more.items) == 0 {
		return nil
	}
	more.of, more.optional = plan, true
	return blk.addSection(more)
}

// pendingLines are the lines Pending State shows of the output of f, a
// failure not fixed since: the open turn's last failure at length
// (q.last); else, of more than 2 key lines, the line that names the error
// and the one that counts (a test run's verdict), never a wrapper's "Exit
// code 1": Recent Actions shows the rest (restOfFailure).
func pendingLines(f failure, q *quoted) []string {
	if long := q.last[f.Seq]; len(long) > 0 {
		return long
	}
	key := q.key[f.Seq]
	switch {
	case len(key) > 2:
		return pendingKey(key)
	case len(key) == 0 && f.Line != "":
		return []string{f.Line}
	}
	return key
}

// restOfFailure is what Recent Actions shows of the key lines of a failure
// Pending State lists: those Pending State does not show, but a wrapper's
// ("Exit code 1", make's "*** [lint] Error 1"); none left, a pointer
// there. The tape quotes a line once (TestAFailureIsQuotedOnce).
func restOfFailure(key, shown []string) []string {
	if len(key) == 0 {
		return key
	}
	var rest []string
	for _, k := range key {
		if !slices.Contains(shown, k) && !wrapperLine(k) {
			rest = append(rest, k)
		}
	}
	if len(rest) == 0 {
		return []string{"(its output: Pending State)"}
	}
	return rest
}

// outcome is how an action line says a call ended: ok, FAILED, declined
// (the person declined it at the host's prompt: it did not run) or stopped
// (the person stopped it: it may have run in part).
func outcome(a action) string {
	if a.OK && a.Unreported && a.Declined == "" {
		if a.Running {
			return "running" // a poll tells how it ends
		}
		return "ran" // the host did not say how it ended
	}
	return outcomeOf(a.OK, a.Declined)
}

func outcomeOf(ok bool, declined string) string {
	switch {
	case declined == session.DeclinedStopped:
		return "stopped"
	case declined != "":
		return "declined"
	case ok:
		return "ok"
	}
	return "FAILED"
}

// callHead is the line that names a call: "- seq=N Tool status: what"; a
// shell command's "- seq=N status: $ command", since the command says
// what ran and the host's name for its shell tool (Bash, exec_command,
// run_shell_command) says nothing more. status may be "".
func callHead(seq int64, tool, status, what string) string {
	if isShellTool(tool) && what != "" {
		tool, what = "", "$ "+what
	}
	line := "- seq=" + strconv.FormatInt(seq, 10)
	for _, w := range []string{tool, status} {
		if w != "" {
			line += " " + w
		}
	}
	if what != "" {
		line += ": " + what
	}
	return line
}

// actionLine is one action: its seq, tool, what it ran, its outcome and
// the key lines of its output.
func actionLine(seq int64, tool, what string, status string, key []string, note string) string {
	if i := strings.LastIndex(what, messageMark); i >= 0 && slices.ContainsFunc(key, func(k string) bool { return commitLine(strings.TrimSpace(k)) }) {
		what = what[:i] // the commit line names the subject
	}
	line := callHead(seq, tool, status, what)
	for _, k := range key {
		line += "\n    → " + k
	}
	if note != "" {
		line += "\n    (" + note + ")"
	}
	return line
}

func (b *Builder) actionsBlock(q *quoted) (*block, *section) {
	as := b.actions()
	if len(as) == 0 {
		return nil, nil
	}
	blk := newBlock("Recent Actions")
	head := fmt.Sprintf("The last %s, oldest first, with key lines of the output.", count(len(as), "tool call", "tool calls"))
	if slices.ContainsFunc(as, func(a action) bool { return a.Declined != "" }) {
		head += " Declined or stopped: by the person (it did not run, or may have run in part)."
	}
	if slices.ContainsFunc(as, func(a action) bool { return outcome(a) == "ran" }) {
		head += " Ran: its exit not reported."
	}
	if slices.ContainsFunc(as, func(a action) bool { return outcome(a) == "running" }) {
		head += " Running: not done when its call returned."
	}
	blk.addHead(head)
	as, runs := pollRuns(as)
	sec := &section{singular: "action", plural: "actions", cutFront: true}
	sec.order = actionCutOrder(as, func(a action) bool { return len(q.key[a.Seq]) > 0 || !a.OK })
	pending := map[int64]failure{}
	for _, f := range b.listedFailures() {
		pending[f.Seq] = f
	}
	for k, a := range as {
		key := q.key[a.Seq]
		if long := q.last[a.Seq]; a.OK && len(long) > 0 {
			key = long
		}
		switch r := b.reportOf(a); {
		case r != 0 && a.Background != "":
			key = []string{fmt.Sprintf("(launched in the background; its report: Sub-agent Reports, seq=%d)", r)}
		case r != 0:
			key = []string{fmt.Sprintf("(its report: Sub-agent Reports, seq=%d)", r)}
		case a.Background != "" && a.Reported != 0:
			key = []string{fmt.Sprintf("(launched in the background; reported at seq=%d, not kept in Sub-agent Reports)", a.Reported)}
		case a.Background != "" && a.Ended != 0:
			key = []string{fmt.Sprintf("(launched in the background; seq=%d: %s)", a.Ended, a.End)}
		case a.Background != "" && isShellTool(a.Tool):
			key = []string{"(launched in the background; no end reported yet)"}
		case a.Background != "":
			key = []string{"(launched in the background; no report yet)"}
		}
		if f, ok := pending[a.Seq]; ok && !a.OK {
			key = restOfFailure(key, pendingLines(f, q))
		}
		if a.OK && len(as)-k > keptNewestActions {
			key = olderKey(key)
		}
		note, from := q.notes[a.Seq], a.Seq
		if r, ok := runs[a.Seq]; ok {
			from = r.from
			note = strings.TrimPrefix(note+fmt.Sprintf("; polled %d times from seq=%d", r.polls, r.from), "; ")
		}
		sec.items = append(sec.items, newItem(actionLine(a.Seq, a.Tool, a.What, outcome(a), key, note), "", from, a.Seq))
	}
	return blk, blk.addSection(sec)
}

// pollRun is a run of polls folded into its newest: how many, from which seq.
type pollRun struct {
	polls int
	from  int64
}

// pollRuns folds each run of polls of one command into its newest poll:
// polls (action.Poll) of the same command one after the other, no other call
// between. An agent waiting on a long command polls it again and again;
// what the older polls printed was progress, and the newest poll's
// outcome is the command's. runs holds, by the newest poll's seq, the run
// it stands for (TestARunOfPollsOfOneCommandIsOneLine). The fold keeps
// every poll: folded in its ring, they left room to older calls that
// took the room of the messages (two facts fewer on the tuning cases).
func pollRuns(as []action) ([]action, map[int64]pollRun) {
	var out []action
	runs := map[int64]pollRun{}
	for k := 0; k < len(as); k++ {
		a := as[k]
		j := k
		for a.Poll && j+1 < len(as) && as[j+1].Poll && as[j+1].What == a.What {
			j++
		}
		if j > k {
			runs[as[j].Seq] = pollRun{polls: j - k + 1, from: a.Seq}
		}
		out = append(out, as[j])
		k = j
	}
	return out, runs
}

// reportOf is the seq of the sub-agent report a's result gave, when the
// fold keeps it (Sub-agent Reports shows it): the report of a call of the
// same tool right after a's result, as the importers write it, or of a
// call run in the background the report that names it; else 0.
// The call's output is that report, and the tape quotes it once.
func (b *Builder) reportOf(a action) int64 {
	if !a.OK {
		return 0
	}
	for _, r := range b.st.Reports {
		if a.Background != "" && r.CallID == a.Background || a.Background == "" && r.Seq == a.Seq+1 && r.Tool == a.Tool {
			return r.Seq
		}
	}
	return 0
}

// keptOpenSteps is how many of the open turn's newest steps the budget
// ranks with the other messages, not among the steps it cuts first: the
// work in progress, told as it goes (the call after a step may be a read
// or an edit the budget cuts), where a closed turn's steps are history
// its answer sums up.
const keptOpenSteps = 8

// keptNewestActions is how many of the newest commands with an outcome
// (key lines, or a failure) the budget cuts last of all: what was done
// last and how it went.
const keptNewestActions = 3

// actionCutOrder is the order the budget cuts actions in: first the calls
// a later call ran again the same (its outcome is the newer one's), then
// the calls whose output says nothing (reads, edits, searches: quoted
// false), then the failures a later run of the same call fixed, then the
// commands, then the milestones (commits, pushes, tracker updates, tests
// and builds: the outcomes the Milestones block would hold had the fold
// not still had them here), each oldest first; the newest
// keptNewestActions commands whose output is quoted go last.
func actionCutOrder(as []action, quoted func(action) bool) []int {
	again, fixed := superseded(as), fixedLater(as)
	newest := map[int]bool{}
	for k := len(as) - 1; k >= 0 && len(newest) < keptNewestActions; k-- {
		if quoted(as[k]) && !again[k] && !fixed[k] {
			newest[k] = true
		}
	}
	var order []int
	class := func(in func(k int, a action) bool) {
		for k, a := range as {
			if !newest[k] && in(k, a) {
				order = append(order, k)
			}
		}
	}
	// A call that quotes nothing says nothing more than another block
	// does (a read, an edit, a search: Workspace Files), but a shell
	// command that acts says what it did by its command line alone (a
	// server started in the background, a file moved):
	// TestAQuietCommandRanksWithTheCommands.
	says := func(a action) bool { return quoted(a) || actsQuietly(a) }
	class(func(k int, _ action) bool { return again[k] })
	class(func(k int, a action) bool { return !again[k] && !fixed[k] && a.Kind == "" && !says(a) })
	class(func(k int, _ action) bool { return fixed[k] })
	class(func(k int, a action) bool { return !again[k] && !fixed[k] && a.Kind == "" && says(a) })
	class(func(k int, a action) bool { return !again[k] && !fixed[k] && a.Kind != "" })
	for k := range as {
		if newest[k] {
			order = append(order, k)
		}
	}
	return order
}

// searchCommands exit 1 when they find nothing (grep, rg, ag, ack,
// findstr), printing nothing.
var searchCommands = map[string]bool{"rg": true, "grep": true, "egrep": true, "fgrep": true, "ag": true, "ack": true, "findstr": true}

// searchesOnly: every command of the chain is a search (git grep too).
func searchesOnly(what string) bool {
	return eachReads(what, func(w1, w2, _ string) bool { return searchCommands[w1] || w1 == "git" && w2 == "grep" })
}

// actsQuietly: a successful shell command that is no read (readsOnly):
// what it ran is what it did, output or not.
func actsQuietly(a action) bool {
	return a.OK && a.What != "" && isShellTool(a.Tool) && (a.Writes || !readsOnly(a.What))
}

// fixedLater marks the failed actions that a later successful run of the
// same call fixed (sameRunWords, as Pending State judges them).
func fixedLater(as []action) []bool {
	out := make([]bool, len(as))
	for k, a := range as {
		if a.OK || a.What == "" {
			continue
		}
		left := chainCommands(a.What)
		for _, l := range as[k+1:] {
			if !l.OK || l.Tool != a.Tool || l.What == "" {
				continue
			}
			lw := commandList(l.What)
			if left != nil {
				left = chainLeft(left, lw)
			}
			if sameRunWords(a.What, l.What, lw) || left != nil && len(left) == 0 {
				out[k] = true
				break
			}
		}
	}
	return out
}

// superseded marks the successful actions that a later successful one
// of the same tool ran again with the same call (the same command, path
// or pattern): the newer outcome stands for both. A failure is never
// superseded: what failed, and how, is part of the story.
func superseded(as []action) []bool {
	out := make([]bool, len(as))
	seen := map[string]bool{}
	for k := len(as) - 1; k >= 0; k-- {
		a := as[k]
		if a.What == "" || !a.OK {
			continue
		}
		key := a.Tool + "\x00" + a.What
		out[k] = seen[key]
		seen[key] = true
	}
	return out
}

// milestonesBlock: the outcomes of the last version-control, tracker,
// test and build commands of the session that Recent Actions no longer
// holds, oldest first, each by its key lines.
func (b *Builder) milestonesBlock(q *quoted) (*block, *section) {
	st := &b.st
	recent := map[int64]bool{}
	for _, a := range b.actions() {
		recent[a.Seq] = true
	}
	sec := &section{singular: "milestone", plural: "milestones", cutFront: true, items: b.prevItems(st.PrevMilestones)}
	for _, a := range st.Milestones {
		if recent[a.Seq] {
			continue
		}
		key := q.key[a.Seq]
		if a.OK {
			key = olderKey(key)
		}
		sec.items = append(sec.items, newItem(actionLine(a.Seq, a.Tool, a.What, outcome(a), key, q.notes[a.Seq]), "", a.Seq, a.Seq))
	}
	if len(sec.items) == 0 {
		return nil, nil
	}
	blk := newBlock("Milestones")
	blk.addHead("Earlier milestones, oldest first.")
	return blk, blk.addSection(sec)
}

// inheritMilestones are the milestones a target hands on
// (inherit.milestones): those handed on to this session, then this
// session's own that worked (those Recent Actions lists among them; a
// failure crosses as one, inheritFailures), each by its call line and its
// last key lines within maxInheritedMilestoneRunes; the newest
// keptInheritedMilestones.
func (b *Builder) inheritMilestones(q *quoted) []session.CallNote {
	st := &b.st
	out := notesOf(st.PrevMilestones)
	for _, a := range st.Milestones {
		if !a.OK || a.Declined != "" {
			continue
		}
		text := clipAtSeq(actionLine(a.Seq, a.Tool, a.What, outcome(a), olderKey(q.key[a.Seq]), ""), maxInheritedMilestoneRunes, "", a.Seq)
		out = append(out, session.CallNote{Tool: a.Tool, What: a.What, Text: text, Origin: session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: a.Seq}})
	}
	return out[max(0, len(out)-keptInheritedMilestones):]
}

// gitLine names the branch the work is on (the newest meta gitBranch) and
// the commit the session started at (meta gitCommit, Codex's
// session_meta) or, handed on, the one the work started at in an earlier
// session (inherit.place), "" when the host said neither.
func (b *Builder) gitLine() string {
	st := &b.st
	var parts []string
	if st.GitBranch != "" {
		parts = append(parts, "branch "+st.GitBranch)
	}
	if c := st.GitCommit; c != "" {
		short, _ := prefixRunes(c, 12)
		when := " when the session started"
		if st.GitCommitBefore {
			when = " when the work started"
		}
		parts = append(parts, "at commit "+short+when)
	}
	if len(parts) == 0 {
		return ""
	}
	return "Git: " + strings.Join(parts, ", ") + "."
}

// settingsLine names what the host last said the agent may do
// (state.Settings) once a setting changed during the session or one is
// plan mode, when the next window must know them (the host sets its own
// for the new session): each setting, and for one that changed the seq
// it changed at and what it was; plan mode says what it means. "" when
// none changed and none is plan mode, or the host said none.
func (b *Builder) settingsLine() string {
	var parts []string
	changed, plan := false, false
	for _, s := range b.st.Settings {
		part := settingLabel(s.Key) + " " + s.Value
		if s.Was != "" {
			part += fmt.Sprintf(" since seq=%d (was %s)", s.Seq, s.Was)
			changed = true
		}
		parts = append(parts, part)
		plan = plan || s.Value == "plan"
	}
	if !changed && !plan {
		return ""
	}
	line := "Host settings, as the host last said them: " + strings.Join(parts, ", ")
	if plan {
		line += ": the host lets the agent read and plan, not edit, until the person approves a plan"
		if f := b.st.PlanFile; f != "" {
			line += "; the plan goes to " + relPath(f, b.st.Cwd)
		}
	}
	return line + "."
}

// addWorkspaceHeads adds the lines Workspace Files opens with, whether or
// not a file was touched: the git line and the host settings, when known.
func (b *Builder) addWorkspaceHeads(blk *block) {
	for _, h := range []string{b.gitLine(), b.pullRequestsLine(), b.settingsLine()} {
		if h != "" {
			blk.addHead(h)
		}
	}
}

func (b *Builder) filesBlock(q *quoted) (*block, *section, *section, *section) {
	st := &b.st
	blk := newBlock("Workspace Files")
	b.fileNotes = nil
	if len(st.Files) == 0 && st.FilesDropped.N == 0 {
		blk.addHead("No file was read, written or edited by a tool.")
		b.addWorkspaceHeads(blk)
		return blk, nil, nil, b.earlierFiles(blk, nil)
	}
	paths := make([]string, 0, len(st.Files))
	noise := 0
	for p := range st.Files {
		if isNoise(relPath(p, st.Cwd)) {
			noise++
			continue
		}
		paths = append(paths, p)
	}
	b.byRecency(paths)
	where := ""
	if st.Cwd != "" {
		where = " Relative to " + st.Cwd + "."
	}
	blk.addHead("Files written or edited, then only read, most recent first." + where)
	b.addWorkspaceHeads(blk)
	if noise > 0 {
		blk.addHead(fmt.Sprintf("Left out: %s in dependency, build or cache folders.", count(noise, "file", "files")))
	}
	named := b.namedFiles()
	changed := &section{singular: "file", plural: "files", pre: st.FilesDropped}
	lastChanges := &section{heading: "The last changes of the newest files, the lines they add:", singular: "change", plural: "changes", optional: true}
	read := &section{heading: "Only read:", singular: "file", plural: "files"}
	for _, p := range paths {
		f := st.Files[p]
		var ops []string
		for _, op := range []struct {
			name string
			seq  int64
		}{{OpWrite, f.Write}, {OpEdit, f.Edit}, {OpOutside, f.Outside}, {OpRead, f.Read}} {
			if op.seq != 0 {
				ops = append(ops, fmt.Sprintf("%s seq=%d", op.name, op.seq))
			}
		}
		rel := relPath(p, st.Cwd)
		lead := "- " + rel + ": " // the note a target hands on is what follows
		line := lead + strings.Join(ops, ", ")
		if len(f.Conflict) > 0 && f.Outside > max(f.Write, f.Edit) {
			// What git left there, unresolved since as far as the log
			// says: the short form keeps it too.
			line += " (merge conflict markers: " + strings.Join(f.Conflict, ", ") + ")"
		}
		short := line
		symbols, change, adds, labelled := f.Symbols, f.Change, f.Adds, f.Labelled
		if f.Call != nil {
			symbols, change, adds, labelled = q.symbols[p], q.change[p], q.adds[p], q.labelled[p]
		}
		if !named[p] {
			symbols, change, adds, labelled = nil, "", nil, nil
		}
		if long := change; long != "" && (f.Write != 0 || f.Edit != 0) && !isMarkdown(p) && len(lastChanges.items) < keptLongChanges {
			if change = shortChange(long, isMarkdown(p)); change != long {
				at := max(f.Write, f.Edit) // the change's own seq, not a later read's
				lastChanges.items = append(lastChanges.items, newItem(fmt.Sprintf("- %s (seq=%d): %s", rel, at, long), "", at, at))
			}
		} else {
			change = shortChange(change, isMarkdown(p))
		}
		if len(symbols) > 0 {
			line += " (defines " + strings.Join(symbols, ", ") + ")"
		} else if change != "" && (len(adds) == 0 || isMarkdown(p)) {
			// A document's first lines say what it is; its headings
			// past them, what it holds.
			line += " (last change: " + change + ")"
			adds = slices.DeleteFunc(slices.Clone(adds), func(h string) bool { return strings.Contains(change, h) })
		}
		if len(adds) > 0 {
			line += " (its last edit adds " + strings.Join(adds, ", ") + ")"
		}
		if isMarkdown(p) {
			for _, l := range labelled {
				line += "\n    · " + l
			}
		}
		if named[p] {
			names, _ := earlierEditNames(f.Earlier, nil) // read at once: no call
			if q.earlier[p] != nil {
				names = q.earlier[p]
			}
			if n := earlierNames(names, symbols, adds); len(n) > 0 {
				line += " (earlier edits add " + strings.Join(n, ", ") + ")"
			}
		}
		it := newItem(line, "", f.firstSeq(), f.Last)
		if f.Write == 0 && f.Edit == 0 && f.Outside == 0 {
			read.items = append(read.items, it)
		} else {
			changed.items = append(changed.items, it)
			changed.short = append(changed.short, short)
			b.fileNotes = append(b.fileNotes, session.FileNote{Path: rel, Note: line[len(lead):],
				Session: st.SessionID, Generation: st.Generation, Seq: max(f.Write, f.Edit, f.Outside)})
		}
	}
	changedSec := blk.addSection(changed)
	b.lastChanges = nil
	if len(lastChanges.items) > 0 {
		b.lastChanges = blk.addSection(lastChanges)
	}
	var readSec *section
	if len(read.items) > 0 {
		readSec = blk.addSection(read)
	}
	return blk, changedSec, readSec, b.earlierFiles(blk, b.fileNotes)
}

// genLabel names the session of o in a line of another session's:
// "gen G" for an earlier session of the lineage (lineageAliases), else
// "gen G session S".
func (b *Builder) genLabel(o session.Origin) string {
	if a := b.alias(o.Session); a != "" {
		return a
	}
	return fmt.Sprintf("gen %d session %s", o.Generation, o.Session)
}

// lineageLine names the earlier sessions the tape cites by generation,
// oldest first: "" when there are none.
func (b *Builder) lineageLine() string {
	if len(b.lineage) == 0 {
		return ""
	}
	sessions := make([]string, 0, len(b.lineage))
	for s := range b.lineage {
		sessions = append(sessions, s)
	}
	sort.Slice(sessions, func(i, j int) bool { return b.lineage[sessions[i]] < b.lineage[sessions[j]] })
	parts := make([]string, len(sessions))
	for k, s := range sessions {
		parts[k] = b.alias(s) + " is session " + s
	}
	return "The sessions before it, cited by generation (gen G seq N: graft recall <that session> N): " + strings.Join(parts, "; ") + "."
}

// earlierFiles is the section of the files the sessions before wrote or
// edited (inherit.files) that this one did not (own: its notes), newest
// first, each cited in its session; nil when there is none.
func (b *Builder) earlierFiles(blk *block, own []session.FileNote) *section {
	st := &b.st
	mine := map[string]bool{}
	for _, f := range own {
		mine[f.Path] = true
	}
	sec := &section{heading: "Written or edited in the sessions before this one (their seqs are those sessions'):", singular: "file", plural: "files"}
	for _, f := range st.PrevFiles {
		if mine[f.Path] {
			continue
		}
		o := session.Origin{Generation: f.Generation, Session: f.Session, Seq: f.Seq}
		sec.items = append(sec.items, newItem(fmt.Sprintf("- %s (%s): %s", f.Path, b.genLabel(o), f.Note), b.ref(o), f.Seq, f.Seq))
		ops, _, _ := strings.Cut(f.Note, " (")
		sec.short = append(sec.short, fmt.Sprintf("- %s (%s): %s", f.Path, b.genLabel(o), ops))
	}
	if len(sec.items) == 0 {
		return nil
	}
	return blk.addSection(sec)
}

// inheritFiles is what a target hands on of the files written or edited:
// this session's (b.fileNotes, as Workspace Files names them), then those
// the sessions before handed on that it did not touch, newest first, at
// most keptFileNotes, each note within maxFileNoteRunes.
func (b *Builder) inheritFiles() []session.FileNote {
	seen := map[string]bool{}
	var out []session.FileNote
	for _, fs := range [][]session.FileNote{b.fileNotes, b.st.PrevFiles} {
		for _, f := range fs {
			if len(out) == keptFileNotes {
				return out
			}
			if seen[f.Path] {
				continue
			}
			seen[f.Path] = true
			f.Note = clipLine(f.Note, maxFileNoteRunes)
			out = append(out, f)
		}
	}
	return out
}

// inheritMessages is what a target hands on of the assistant's messages
// (inherit.messages): the newest keptMessages of the carryover that are
// more than a step's announcement, then those the sessions before handed
// on, oldest first.
func (b *Builder) inheritMessages() []session.Passage {
	st := &b.st
	var out []session.Passage
	ps := st.Carry.Paragraphs
	for k := len(ps) - 1; k >= 0 && len(out) < keptMessages; k-- {
		p := ps[k]
		if p.User || p.Step || strings.TrimSpace(p.Text) == "" {
			continue
		}
		out = append(out, session.Passage{Text: p.Text, Origin: session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: p.Seq}})
	}
	for k := len(st.PrevMessages) - 1; k >= 0 && len(out) < keptMessages; k-- {
		out = append(out, st.PrevMessages[k])
	}
	slices.Reverse(out)
	return out
}

func (b *Builder) pendingBlock(conflicts map[int]bool, leftovers []Leftover, q *quoted) (blk *block, todos, fails, prevFails, declined, flight *section) {
	st := &b.st
	blk = newBlock("Pending State")
	if unfinished(st.Todos) > 0 {
		list, sess := fmt.Sprintf("seq=%d", st.TodoSeq), ""
		if f := st.TodoFrom; f != nil {
			list, sess = b.originText(*f), b.ref(*f) // handed on by an earlier generation
		}
		todos = &section{heading: fmt.Sprintf("Unfinished todos (list of %s):", list), singular: "todo", plural: "todos"}
		for k, td := range st.Todos {
			if td.Status == session.TodoCompleted {
				continue
			}
			line := fmt.Sprintf("- [%s] %s", td.Status, inSession(td.Content, sess))
			if conflicts[k] {
				line += " — named in the breakpoint: this item may already be done: verify before re-running."
			}
			todos.items = append(todos.items, newItem(line, "", st.TodoSeq, st.TodoSeq))
		}
		blk.addSection(todos)
	}
	b.fixedItems, b.prevFixedItems, b.workarounds = nil, nil, nil
	// A search that printed nothing found nothing: no failure, and no
	// other search worked around it (TestASearchThatFoundNothingIsNoFixedFailure).
	var workedAround []fixedFailure
	for _, x := range st.FixedLast {
		key, read := q.key[x.Failure.Seq]
		if !(read && len(key) == 0 && x.Failure.Line == "" && searchesOnly(x.Failure.What)) {
			workedAround = append(workedAround, x)
		}
	}
	switch {
	case len(workedAround) > 0:
		// What did not work here, and what did.
		fixed := &section{heading: fixedHeading(st.Fixed, len(workedAround)), singular: "fixed failure", plural: "fixed failures", cutFront: true}
		for _, x := range workedAround {
			f := x.Failure
			line := callHead(f.Seq, f.Tool, "FAILED", f.What)
			key := q.key[f.Seq]
			if len(key) == 0 && f.Line != "" {
				key = []string{f.Line}
			}
			if e := errorLineOf(key); e != "" {
				line += "\n    → " + e
			}
			line += fmt.Sprintf("\n    fixed by seq=%d: %s", x.BySeq, x.ByWhat)
			fixed.items = append(fixed.items, newItem(line, "", f.Seq, x.BySeq))
			b.workarounds = append(b.workarounds, session.CallNote{Tool: f.Tool, What: f.What, Text: clipAtSeq(line, maxInheritedFailureRunes, "", f.Seq), Origin: session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: f.Seq}})
		}
		b.fixedItems = blk.addSection(fixed)
	case st.Fixed > 0:
		blk.addHead(fmt.Sprintf("%s fixed by a later run of the same call: not listed.", count(st.Fixed, "failure was", "failures were")))
	}
	if len(st.PrevWorkarounds) > 0 {
		// What did not work in the sessions before, and what did.
		prev := &section{heading: "Worked around in the sessions before, each with the call that fixed it:", singular: "workaround handed on", plural: "workarounds handed on", cutFront: true, items: b.prevItems(st.PrevWorkarounds)}
		b.prevFixedItems = blk.addSection(prev)
	}
	if listed := b.listedFailures(); len(listed) > 0 {
		fails = &section{heading: "Failed tool calls not fixed since:", singular: "failure", plural: "failures", cutFront: true}
		// A call that failed again is listed once, at its newest run,
		// which names the runs before it (TestAFailureRepeatedIsListedOnce).
		type call struct{ tool, what string }
		newest := map[call]int{}
		before := map[call][]failure{} // its runs before the newest, oldest first
		for k, f := range listed {
			c := call{f.Tool, f.What}
			if n, again := newest[c]; again {
				before[c] = append(before[c], listed[n])
			}
			newest[c] = k
		}
		for k, f := range listed {
			c := call{f.Tool, f.What}
			if newest[c] != k {
				continue
			}
			var where []string
			if f.Seq > st.Boundary {
				where = append(where, "open turn")
			}
			from := f.Seq
			if b := before[c]; len(b) > 0 {
				var seqs []string
				for _, g := range b {
					seqs = append(seqs, fmt.Sprintf("seq=%d", g.Seq))
				}
				where = append(where, "it failed at "+andList(seqs)+" too")
				from = b[0].Seq
			}
			line := actionLine(f.Seq, f.Tool, f.What, "FAILED", pendingLines(f, q), q.notes[f.Seq])
			if len(where) > 0 {
				line = strings.Replace(line, " FAILED", " FAILED ("+strings.Join(where, "; ")+")", 1)
			}
			fails.items = append(fails.items, newItem(line, "", from, f.Seq))
		}
		blk.addSection(fails)
	}
	if len(st.PrevFailures) > 0 {
		prevFails = &section{heading: "Failed tool calls an earlier session left unfixed, handed on (not run here since):", singular: "failure handed on", plural: "failures handed on", cutFront: true, items: b.prevItems(st.PrevFailures)}
		blk.addSection(prevFails)
	}
	for _, f := range st.Failures {
		if f.Declined == "" {
			continue
		}
		if declined == nil {
			declined = &section{heading: "Calls the person declined at the host's prompt (they did not run) or stopped (they may have run in part): ask before running them again:", singular: "declined call", plural: "declined calls", cutFront: true}
		}
		line := callHead(f.Seq, f.Tool, outcomeOf(false, f.Declined), f.What)
		declined.items = append(declined.items, newItem(line, "", f.Seq, f.Seq))
	}
	if declined != nil {
		blk.addSection(declined)
	}
	if open := b.inFlight(); len(open) > 0 {
		flight = &section{heading: "In flight at the cut (no result yet: check whether they ran):", singular: "call", plural: "calls", cutFront: true}
		for _, c := range open {
			what := c.What
			if c.Long != "" {
				what = c.Long
			}
			line := callHead(c.Seq, c.Tool, "", what)
			// A write or an edit says what it writes: whether it landed
			// is the next window's to check, and the path alone does not
			// tell two edits of a file apart
			// (TestAWriteInFlightSaysWhatItWrites).
			change := c.Change
			if ch, ok := q.flightChange[c.Seq]; ok {
				change = ch
			}
			if change != "" && c.File && slices.ContainsFunc(c.Touches, func(t fileTouch) bool { return t.Op != OpRead }) {
				line += " (it writes: " + shortChange(change, slices.ContainsFunc(c.Touches, func(t fileTouch) bool { return isMarkdown(t.Path) })) + ")"
			}
			flight.items = append(flight.items, newItem(line, "", c.Seq, c.Seq))
		}
		blk.addSection(flight)
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
	if todos == nil && fails == nil && prevFails == nil && declined == nil && flight == nil && len(leftovers) == 0 {
		blk.addHead("Nothing pending.")
	}
	return blk, todos, fails, prevFails, declined, flight
}

// markedParagraphs is how many of the newest paragraphs are read for an
// outcome or a choice, which keeps them past plain narration.
const markedParagraphs = 60

// inFlight are the open turn's calls without a result (todo lists aside),
// the newest maxInFlight, oldest first: the Pending State names them.
func (b *Builder) inFlight() []openCall {
	st := &b.st
	var open []openCall
	for _, c := range st.Calls {
		if c.Seq > st.Boundary && !isTodoTool(c.Tool) {
			open = append(open, c)
		}
	}
	sort.Slice(open, func(i, j int) bool { return open[i].Seq < open[j].Seq })
	if len(open) > maxInFlight {
		open = open[len(open)-maxInFlight:]
	}
	return open
}

// maxInFlight is how many calls without a result the Pending State names.
const maxInFlight = 5

func (b *Builder) hostSummaryBlock() (blk *block, paragraphs, recap *section) {
	st := &b.st
	hs := st.HostSummary
	if hs == nil && st.Recap == nil {
		return nil, nil, nil
	}
	blk = newBlock("Host Summary")
	if r := st.Recap; r != nil {
		// The recap the host wrote for the person who came back (Claude
		// Code's away_summary): the work, where it stands and what comes
		// next, in a few lines.
		recap = &section{heading: fmt.Sprintf("The host's newest recap for the person, seq=%d (%s):", r.Seq, modelWritten), singular: "recap", plural: "recaps"}
		recap.items = append(recap.items, newItem(r.Text, "", r.Seq, r.Seq))
		blk.addSection(recap)
	}
	if hs == nil {
		return blk, nil, recap
	}
	// The heading is its section's: a recap's section stands before it.
	// Cut first what the summary holds that is no account of the work:
	// Claude Code's summary opens with the model's "Analysis:" notes, then
	// "Summary:" and its sections, and quotes code, which the files hold:
	// the notes and the code blocks go first, then the paragraphs from the
	// end (what the summary alone still carries is the older context: the
	// request, the constraints, the decisions; the state at its end is the
	// one the blocks above have newer).
	sec := &section{heading: fmt.Sprintf("The host's own compaction summary, seq=%d, what the previous window worked from (%s):", hs.Seq, modelWritten), singular: "paragraph", plural: "paragraphs"}
	ps := withLabelsJoined(paragraphsOf(hs.Text))
	summaryAt := -1
	for k, p := range ps {
		if strings.HasPrefix(p, "Summary:") || strings.HasPrefix(p, "<summary>") {
			summaryAt = k
			break
		}
	}
	first := map[int]bool{}
	for k, p := range ps {
		sec.items = append(sec.items, newItem(p, "", hs.Seq, hs.Seq))
		if summaryAt > 0 && k > 0 && k < summaryAt || k > 0 && isCodeParagraph(p) {
			sec.order = append(sec.order, k)
			first[k] = true
		}
	}
	for k := len(ps) - 1; k >= 0; k-- {
		if !first[k] {
			sec.order = append(sec.order, k)
		}
	}
	return blk, blk.addSection(sec), recap
}

// withLabelsJoined is ps with each paragraph that ends in a label ("1.
// **Primary Request and Intent:**", "Summary:") joined to the one after
// it: a label says nothing without the text it heads, and the budget
// cuts paragraphs one by one.
func withLabelsJoined(ps []string) []string {
	var out []string
	carry := ""
	for _, p := range ps {
		if carry != "" {
			p = carry + "\n\n" + p
			carry = ""
		}
		lines := strings.Split(strings.TrimRight(p, " \n"), "\n")
		last := strings.TrimSpace(lines[len(lines)-1])
		last = strings.TrimRight(strings.TrimSuffix(last, "**"), " ")
		if strings.HasSuffix(last, ":") && utf8.RuneCountInString(last) <= 80 {
			carry = p
			continue
		}
		out = append(out, p)
	}
	if carry != "" {
		out = append(out, carry)
	}
	return out
}

// isCodeParagraph: a paragraph most of whose lines are code: inside a
// fence, or indented deeper than the list lines around them (a summary
// quotes code that way).
func isCodeParagraph(p string) bool {
	lines := strings.Split(p, "\n")
	if len(lines) < 3 {
		return false
	}
	code, fence := 0, false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			fence = !fence
			code++
			continue
		}
		if fence || len(l)-len(strings.TrimLeft(l, " \t")) >= 6 && !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") {
			code++
		}
	}
	return code*3 >= len(lines)*2
}

// paragraphsOf splits text at blank lines, each paragraph trimmed.
func paragraphsOf(text string) []string {
	var out []string
	for p := range strings.SplitSeq(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (b *Builder) refsBlock(q *quoted) (*block, *section) {
	st := &b.st
	var items []item
	for _, r := range st.Refs { // one per What: the fold keeps the latest look-up
		text, ok := q.ref[r.Seq]
		if !ok || text == "" {
			continue
		}
		items = append(items, newItem(callHead(r.Seq, r.Tool, "", r.What)+"\n"+text, "", r.Seq, r.Seq))
	}
	if len(items) == 0 {
		return nil, nil
	}
	blk := newBlock("Looked Up")
	blk.addHead("Look-ups of what the user named.")
	sec := &section{singular: "look-up", plural: "look-ups", cutFront: true, items: items}
	return blk, blk.addSection(sec)
}

// maxEditReads is how many written or edited files, most recent first,
// have the input of their last write or edit read at Build (no budget
// shows more files than that with room for their definitions).
const maxEditReads = 40

// readEdits reads the last write or edit of the most recently changed
// files the fold only located (fileEntry.Call), for their definitions.
func (b *Builder) readEdits(src Outputs, q *quoted) error {
	st := &b.st
	if src == nil {
		return nil
	}
	inputs := map[int64]json.RawMessage{} // a call the tail and a file both show is read once
	// A patch of several files is split into its files' parts once, each
	// keyed as the fold keys its file (fileKey: the patch names a file
	// relative to the session's folder, the fold by its whole path).
	split := map[int64]map[string]json.RawMessage{}
	parts := func(seq int64, tool string, in json.RawMessage) map[string]json.RawMessage {
		ps, ok := split[seq]
		if !ok {
			ps = patchInputs(tool, in)
			for _, p := range slices.Sorted(maps.Keys(ps)) {
				if k := fileKey(p, st.Cwd); k != p {
					if _, taken := ps[k]; !taken {
						ps[k] = ps[p]
					}
				}
			}
			split[seq] = ps
		}
		return ps
	}
	read := func(c *callRef) (json.RawMessage, error) {
		if c.Size > maxEditInput+64<<10 {
			return nil, nil // its input is past maxEditInput: editTexts names nothing of it
		}
		if in, ok := inputs[c.Seq]; ok {
			return in, nil
		}
		in, err := src.Input(c.Seq, c.Off, c.Size)
		if err != nil {
			return nil, fmt.Errorf("tape: reading the input of seq %d: %w", c.Seq, err)
		}
		inputs[c.Seq] = in
		return in, nil
	}
	for _, e := range ringLast(st.Tail, keptTail) {
		if !e.Call || !e.Edit {
			continue
		}
		in, err := read(&callRef{Seq: e.Seq, Tool: e.Who, Off: e.Off, Size: e.Size})
		if err != nil {
			return err
		}
		if in != nil {
			q.tailChange[e.Seq] = editChange(e.Who, in)
		}
	}
	for _, c := range b.inFlight() {
		if !c.File || c.Off < 0 || c.Size == 0 {
			continue // held at once (c.Change), or no write
		}
		in, err := read(&callRef{Seq: c.Seq, Tool: c.Tool, Off: c.Off, Size: c.Size})
		if err != nil {
			return err
		}
		if in != nil {
			q.flightChange[c.Seq] = editChange(c.Tool, in)
		}
	}
	for p := range b.namedFiles() {
		f := st.Files[p]
		if c := f.Call; c != nil {
			in, err := read(c)
			if err != nil {
				return err
			}
			if in != nil {
				tool, pin := inputFor(c.Tool, in, parts(c.Seq, c.Tool, in), p) // of a patch of several files, p's part
				q.symbols[p], q.change[p], q.adds[p] = editSymbols(tool, pin), editChange(tool, pin), editAdds(tool, pin)
				if isMarkdown(p) {
					q.labelled[p] = labelledLines(tool, pin)
				}
			}
		}
		names, err := earlierEditNames(f.Earlier, func(c *callRef) (defs, adds []string, err error) {
			in, err := read(c)
			if err != nil || in == nil {
				return nil, nil, err
			}
			tool, pin := inputFor(c.Tool, in, parts(c.Seq, c.Tool, in), p)
			return editSymbols(tool, pin), editAdds(tool, pin), nil
		})
		if err != nil {
			return err
		}
		q.earlier[p] = names
	}
	return nil
}

// earlierEditNames are the names a file's earlier writes and edits put
// in, newest edit first: the definitions of them all, then the other
// names (TestEarlierEditsNameTheirDefinitionsFirst). An edit read at once
// holds its names; one the fold only located is read by read (nil: it
// names nothing).
func earlierEditNames(es []earlierEdit, read func(*callRef) (defs, adds []string, err error)) ([]string, error) {
	var defs, names []string
	for k := len(es) - 1; k >= 0; k-- {
		d, n := es[k].Defines, es[k].Names
		if c := es[k].Call; c != nil && read != nil {
			var err error
			if d, n, err = read(c); err != nil {
				return nil, err
			}
		}
		defs, names = append(defs, d...), append(names, n...)
	}
	return append(defs, names...), nil
}

// earlierNames are names, in order, without those already said and past
// maxEarlierNames.
func earlierNames(names []string, said ...[]string) []string {
	seen := map[string]bool{}
	for _, s := range said {
		for _, n := range s {
			seen[n] = true
		}
	}
	var out []string
	for _, n := range names {
		if len(out) == maxEarlierNames {
			break
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// maxEarlierNames bounds the names a file's earlier edits add to its line.
const maxEarlierNames = 8

// namedFiles are the files whose definitions the tape names: the
// maxEditReads most recently changed ones (written or edited, not under a
// dependency folder), whether the fold read their last change at once or
// Build reads it (readEdits).
func (b *Builder) namedFiles() map[string]bool {
	st := &b.st
	var paths []string
	for p, f := range st.Files {
		if (f.Write != 0 || f.Edit != 0) && !isNoise(relPath(p, st.Cwd)) {
			paths = append(paths, p)
		}
	}
	b.byRecency(paths)
	named := map[string]bool{}
	for _, p := range paths[:min(len(paths), maxEditReads)] {
		named[p] = true
	}
	return named
}

// actions are the last commands and the last other calls, in seq order.
func (b *Builder) actions() []action {
	st := &b.st
	cmds, quiet := ringLast(st.Actions, keptCommands), ringLast(st.Quiet, keptQuiet)
	out := make([]action, 0, len(cmds)+len(quiet))
	i, j := 0, 0
	for i < len(cmds) || j < len(quiet) {
		if j == len(quiet) || i < len(cmds) && cmds[i].Seq < quiet[j].Seq {
			out = append(out, cmds[i])
			i++
		} else {
			out = append(out, quiet[j])
			j++
		}
	}
	return out
}

// byRecency sorts file paths most recently touched first, then by name.
func (b *Builder) byRecency(paths []string) {
	files := b.st.Files
	sort.Slice(paths, func(i, j int) bool {
		a, c := files[paths[i]], files[paths[j]]
		if a.Last != c.Last {
			return a.Last > c.Last
		}
		return paths[i] < paths[j]
	})
}

// olderKeyLines is how many key lines a call that worked keeps past the
// newest keptNewestActions of Recent Actions, and in Milestones: its last
// ones (ringLast). What was done last is quoted at length (maxKeyLines); an older
// outcome in fewer lines leaves room for more of them.
const olderKeyLines = 3

// olderKey is an older call's key lines: its last olderKeyLines, but
// when the run's largest verdict of a shape that repeats (cargo's "test
// result" per test binary: largestRepeatedVerdict) is not among them, that
// verdict and the last lines after it
// (TestAnOlderCallKeepsItsLargestVerdict).
func olderKey(key []string) []string {
	if len(key) <= olderKeyLines {
		return key
	}
	if k := largestRepeatedVerdict(key); k >= 0 && k < len(key)-olderKeyLines {
		return append([]string{key[k]}, key[len(key)-olderKeyLines+1:]...)
	}
	return ringLast(key, olderKeyLines)
}

// fixedHeading heads the failures a later call fixed, of which the last
// shown were worked around another way: "3 failures were fixed by a later
// call; the last 2 worked around another way, each with the call that
// fixed it:". A later call is no run of the same call there.
func fixedHeading(fixed, shown int) string {
	switch {
	case fixed == 1:
		return "1 failure was fixed by a later call, which worked around it another way:"
	case shown == 1:
		return fmt.Sprintf("%d failures were fixed by a later call; the last worked around another way, with the call that fixed it:", fixed)
	}
	return fmt.Sprintf("%d failures were fixed by a later call; the last %d worked around another way, each with the call that fixed it:", fixed, shown)
}
