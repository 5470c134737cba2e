package tape

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// bigSession has every block full: 30 turns, files, failures, reports,
// constraints, a long open turn ending in a call.
func bigSession() []session.Event {
	var evs []session.Event
	for turn := 1; turn <= 30; turn++ {
		evs = append(evs, human(fmt.Sprintf("Turn %d: refactor module %d. You must keep module %d's API stable. %s", turn, turn, turn, strings.Repeat("Context words here. ", 10))))
		for step := 1; step <= 4; step++ {
			id := fmt.Sprintf("c%d-%d", turn, step)
			evs = append(evs,
				say(fmt.Sprintf("Thinking about step %d.\n\nStep %d of turn %d: %s", step, step, turn, strings.Repeat("detail ", 20))),
				call("Edit", id, fmt.Sprintf(`{"file_path":"pkg/m%d/f%d.go"}`, turn, step)),
				result("Edit", id, step != 3, "output "+strings.Repeat("x", 200)),
			)
		}
		evs = append(evs, subagent("explorer", fmt.Sprintf("Summary: module %d is fine. %s", turn, strings.Repeat("Finding. ", 30))))
		evs = append(evs, todoWrite(todo("1", fmt.Sprintf("Refactor module %d", turn), session.TodoInProgress), todo("2", "Write tests", session.TodoPending), todo("3", "Old item", session.TodoCompleted)))
	}
	// A long open turn.
	for step := 1; step <= 40; step++ {
		evs = append(evs, say(fmt.Sprintf("Open step %d.\n\nFinal paragraph of open step %d: %s", step, step, strings.Repeat("carry ", 30))))
	}
	// Its last call's output is in no block above: the tail quotes it.
	evs = append(evs, call("Bash", "last", `{"command":"go test ./..."}`), result("Bash", "last", true, "ok  \tpkg/m30\t0.4s\n"+strings.Repeat("=== RUN TestModule30\n", 20)))
	return seqd(evs...)
}

var cutLineRE = regexp.MustCompile(`\[cut: (\d+) [a-z]+; recall ([^\]]+)\]`)

func TestBudgetNeverExceeded(t *testing.T) {
	evs := bigSession()
	b := fold(t, "big", evs)
	for _, budget := range []int{MinBudget, 5000, 8000, DefaultBudget, 30000, MaxBudget} {
		for _, opts := range []Options{{Budget: budget}, {Budget: budget, RecentTurns: MaxRecentTurns}} {
			tp, err := b.Build(opts, nil)
			if err != nil {
				t.Fatalf("budget %d: %v", budget, err)
			}
			if tp.TapeChars > budget || len([]rune(tp.Text)) != tp.TapeChars {
				t.Fatalf("budget %d: TapeChars %d, text %d runes", budget, tp.TapeChars, len([]rune(tp.Text)))
			}
			if budget < 30000 && !cutLineRE.MatchString(tp.Text) {
				t.Fatalf("budget %d: no cut line in a tape that had to be cut", budget)
			}
			// Every cut line names seqs that exist.
			for _, m := range cutLineRE.FindAllStringSubmatch(tp.Text, -1) {
				for _, part := range strings.Split(m[2], ", ") {
					if !regexp.MustCompile(`^(session \S+ )?seq=\d+(\.\.\d+)?$`).MatchString(part) {
						t.Fatalf("budget %d: cut line %q does not name a seq range", budget, m[0])
					}
				}
			}
		}
	}
}

// The default budget applies when Budget is 0.
func TestDefaultBudget(t *testing.T) {
	tp := build(t, "big", bigSession(), Options{}, nil)
	if tp.TapeChars > DefaultBudget || tp.TapeChars < DefaultBudget-2000 {
		t.Fatalf("TapeChars = %d, want just under %d", tp.TapeChars, DefaultBudget)
	}
}

func TestBudgetCutsLowestPriorityFirst(t *testing.T) {
	b := fold(t, "big", bigSession())
	full, err := b.Build(Options{Budget: MaxBudget}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// At the largest budget only the builder's own bound cuts: the reports
	// beyond the last 5.
	if cuts := cutLineRE.FindAllString(full.Text, -1); len(cuts) != 1 || !strings.HasPrefix(cuts[0], "[cut: 25 reports; recall seq=14..") {
		t.Fatalf("cut lines at the largest budget: %q", cuts)
	}
	// Just under the full size: only the conversation tail, the lowest
	// rank, loses events.
	tight, err := b.Build(Options{Budget: full.TapeChars - 30}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tight.Events) != len(full.Events) {
		t.Fatalf("%d blocks at budget %d, %d at the largest", len(tight.Events), full.TapeChars-30, len(full.Events))
	}
	for k := range full.Events {
		title := strings.SplitN(full.Events[k].Text, "\n", 2)[0]
		same := full.Events[k].Text == tight.Events[k].Text
		if strings.Contains(title, "[Conversation Tail]") {
			if same {
				t.Fatalf("conversation tail not cut at budget %d", full.TapeChars-30)
			}
			continue
		}
		if !same {
			t.Fatalf("block %s changed though the conversation tail could absorb the cut", title)
		}
	}
	// Next the recall index, once the tail is gone whole.
	noTail := 0
	for _, ev := range full.Events {
		if strings.Contains(ev.Text, "[Conversation Tail]") {
			noTail = full.TapeChars - len([]rune(ev.Text)) - 2
		}
	}
	recall, err := b.Build(Options{Budget: noTail - 30}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(recall.Text, "[Conversation Tail]") {
		t.Fatalf("budget %d: the conversation tail is still there", noTail-30)
	}
	if !regexp.MustCompile(`\[cut: (1 entry|\d+ entries); recall seq=1(\.\.\d+)?\]`).MatchString(blockText(t, recall, "Recall Index")) {
		t.Fatalf("budget %d: recall cut line:\n%s", noTail-30, blockText(t, recall, "Recall Index"))
	}
	// At the minimum budget the breakpoint's earlier messages are cut and
	// everything of lower priority is gone but what the room the cuts
	// left takes back (fit's refill): less than the shortest message the
	// breakpoint cut, which it would have taken back first.
	min, err := b.Build(Options{Budget: MinBudget}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`Earlier messages, oldest first:\n\[cut: \d+ messages`).MatchString(blockText(t, min, "Breakpoint")) {
		t.Fatalf("the breakpoint's earlier messages are not cut at the minimum budget:\n%s", blockText(t, min, "Breakpoint"))
	}
	// The earlier messages' entries: each from its "seq=" or "— seq="
	// line to the next.
	_, earlier, found := strings.Cut(blockText(t, full, "Breakpoint"), "Earlier messages, oldest first:\n")
	if !found {
		t.Fatalf("no earlier messages at the largest budget:\n%s", blockText(t, full, "Breakpoint"))
	}
	shortest := MaxBudget
	for _, entry := range regexp.MustCompile(`(?m)^(— )?seq=`).Split(earlier, -1)[1:] {
		if n := utf8.RuneCountInString(entry); n < shortest {
			shortest = n
		}
	}
	kept := 0
	for _, title := range []string{"Recall Index", "Sub-agent Reports", "Workspace Files"} {
		text, _ := min.Block(title) // a block left out whole keeps nothing
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "- ") {
				kept += utf8.RuneCountInString(line) + 1
			}
		}
	}
	if kept >= shortest {
		t.Fatalf("blocks ranked below the breakpoint keep %d runes of entries at the minimum budget, the breakpoint cut a message of %d:\n%s", kept, shortest, min.Text)
	}
	// The anchor line survives every cut.
	if !strings.Contains(blockText(t, min, "Anchor + Hard Constraints"), "[ANCHOR] Core constraints originate from generation 1 session big, seq=1;") {
		t.Fatal("anchor line cut")
	}
	bp := blockText(t, min, "Breakpoint")
	m := regexp.MustCompile(`\[cut: (\d+) messages; recall seq=(\d+)\.\.(\d+)\]`).FindStringSubmatch(bp)
	if m == nil {
		t.Fatalf("breakpoint not cut at the minimum budget:\n%s", bp)
	}
	// The carryover runs across the turns: 30 turns of 4 messages, 40
	// more in the open turn, and a mark for each of turns 2 to 30 where
	// the user spoke: 189 entries, the last shown whole as the last
	// message. The cut starts at the first message (seq 2) and ends just
	// before the first one still shown.
	const carried = 30*4 + 40 + 29 - 1
	last := full.LastSeq - 2 // the last call and its result follow it
	if !strings.Contains(bp, fmt.Sprintf("Last assistant message, seq=%d (whole):", last)) {
		t.Fatalf("breakpoint at the minimum budget lost the last message:\n%s", bp)
	}
	last--
	shown := regexp.MustCompile(`(?m)^seq=(\d+): `).FindAllStringSubmatch(bp, -1)
	if len(shown) == 0 {
		// No room left for any: the cut line names them all.
		if !strings.Contains(bp, fmt.Sprintf("[cut: %d messages; recall seq=2..%d]", carried, last)) {
			t.Fatalf("breakpoint cut line at the minimum budget:\n%s", bp)
		}
		return
	}
	num := func(s string) int64 {
		t.Helper()
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("number %q in the breakpoint: %v", s, err)
		}
		return v
	}
	firstShown, cutTo, cutFrom, n := num(shown[0][1]), num(m[3]), num(m[2]), int(num(m[1]))
	// The cut line spans the entries cut: from the first message to the
	// newest one cut. The refill takes back the newest messages, or, when
	// the newest does not fit, the open turn's first message (its plan,
	// TestTheOpenTurnsFirstMessageOutlivesOlderAnswers) or a closed turn's
	// last message (its answer, which the ranking cuts last of the older
	// ones).
	wantTo := last
	if shown[len(shown)-1][1] == strconv.FormatInt(last, 10) {
		wantTo = firstShown - 1
	} else {
		openFirst := strconv.FormatInt(full.BoundarySeq+1, 10)
		for _, s := range shown {
			if s[1] != openFirst && !regexp.MustCompile(`(?m)^seq=`+s[1]+`: Thinking about step 4\.`).MatchString(bp) {
				t.Fatalf("at the minimum budget the breakpoint kept seq=%s, neither the newest message, the open turn's first nor a closed turn's last:\n%s", s[1], bp)
			}
		}
	}
	if cutFrom != 2 || cutTo != wantTo || n+len(shown) != carried {
		t.Fatalf("cut %d messages seq=%d..%d, shown from seq=%s to %s (boundary %d, last %d)", n, cutFrom, cutTo, shown[0][1], shown[len(shown)-1][1], full.BoundarySeq, last)
	}
}

func TestBudgetTooSmallForWhatIsNeverCut(t *testing.T) {
	var left []Leftover
	for i := 0; i < 10; i++ {
		// Targets and transactions are named as graft names them (36
		// characters); the tape shows at most 10 leftovers, each whole
		// but its reason.
		left = append(left, Leftover{Target: fmt.Sprintf("0b9d6c1e-7f3a-4c2b-9e1d-5a8f2c7b%04d", i), Txn: fmt.Sprintf("5e2a9c4f-1b7d-4e8a-a3c6-9d0f7b2e%04d", i), State: "PREPARING", Reason: strings.Repeat("crashed ", 40)})
	}
	_, err := fold(t, "s", seqd(human("Hi."))).Build(Options{Budget: MinBudget}, left)
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("err = %v, want ErrBudget", err)
	}
}

func TestCutLine(t *testing.T) {
	s := &section{singular: "constraint", plural: "constraints", pre: seqRange{N: 2, From: 10, To: 12}}
	s.items = []item{newItem("a", "", 14, 14), newItem("b", "g1", 5, 5), newItem("c", "g1", 9, 9), newItem("d", "", 20, 20)}
	s.init()
	if got := s.cutLine(); got != "[cut: 2 constraints; recall seq=10..12]" {
		t.Fatalf("pre only: %q", got)
	}
	s.cutNext() // d
	s.cutNext() // c
	s.cutNext() // b
	if got, want := s.cutLine(), "[cut: 5 constraints; recall seq=10..20, session g1 seq=5..9]"; got != want {
		t.Fatalf("cut line %q, want %q", got, want)
	}
	one := &section{singular: "entry", plural: "entries", cutFront: true, items: []item{newItem("x", "", 7, 7)}}
	one.init()
	one.cutNext()
	if got := one.cutLine(); got != "[cut: 1 entry; recall seq=7]" {
		t.Fatalf("single: %q", got)
	}
}

// checksSession runs 30 checks, each announced by a step ("Let me run
// check number 3 now.") and, with findings, followed by a message that
// says what came of it.
func checksSession(findings bool) []session.Event {
	evs := []session.Event{human("Run each check and report.")}
	for k := 0; k < 30; k++ {
		id := fmt.Sprintf("c%d", k)
		evs = append(evs, say(fmt.Sprintf("Let me run check number %d now.", k)),
			call("Bash", id, fmt.Sprintf(`{"command":"make check-%d PACKAGES=./internal/... FLAGS=-race TIMEOUT=10m REPORT=build/check-%d.xml"}`, k, k)),
			result("Bash", id, true, fmt.Sprintf("ok: check %d passed, 12 tests", k)))
		if findings {
			evs = append(evs, say(fmt.Sprintf("Check %d passed: the cache of module %d is warm, so the next check reuses it.", k, k)))
		}
	}
	return seqd(append(evs, say("All 30 checks passed."))...)
}

// A message that only announces the tool call after it ("Let me run the
// checks.") says what the call says: it only fills room, so the budget
// cuts every such step before it cuts any action, whatever the room the
// carryover's other messages take. A step the room left after the cuts
// took back (fit) stays only where that room could not hold an action.
func TestStepsGoBeforeAnyAction(t *testing.T) {
	evs := checksSession(false)
	sawActionCut := false
	for budget := 9000; budget >= MinBudget; budget -= 250 {
		tp, err := fold(t, "s", evs).Build(Options{Budget: budget}, nil)
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		if !cutLineRE.MatchString(blockText(t, tp, "Recent Actions")) {
			continue
		}
		sawActionCut = true
		actions := blockText(t, tp, "Recent Actions")
		if bp := blockText(t, tp, "Breakpoint"); strings.Contains(bp, "Let me run check") {
			// The shortest action entry shown: its line and its key line.
			shortest := 0
			for _, e := range strings.Split(actions, "\n- seq=")[1:] {
				if n := utf8.RuneCountInString("- seq="+e) + 1; shortest == 0 || n < shortest {
					shortest = n
				}
			}
			if room := budget - tp.TapeChars; shortest == 0 || room >= shortest {
				t.Fatalf("budget %d: an action was cut while a step stayed, and the room left (%d) holds an action (%d):\n%s\n\n%s", budget, room, shortest, bp, actions)
			}
		}
	}
	if !sawActionCut {
		t.Fatal("no budget cut an action: the test shows nothing")
	}
}

// A builder built twice gives the same tape: Build keeps nothing of a
// build for the next (the service may build again after more Adds, and a
// tape is the same whenever it is built from the same events).
func TestBuildTwiceGivesTheSameTape(t *testing.T) {
	evs := checksSession(true)
	for budget := 16000; budget >= MinBudget; budget -= 500 {
		b := fold(t, "s", evs)
		first, err := b.Build(Options{Budget: budget}, nil)
		if err != nil {
			t.Fatal(err)
		}
		second, err := b.Build(Options{Budget: budget}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if first.Text != second.Text {
			t.Errorf("budget %d: the second build differs: %q, then %q", budget, first.Warnings, second.Warnings)
		}
	}
}

// The last cut frees more than the budget asked for; the room it leaves
// takes back what was cut before it, the latest cut first, each entry
// that fits (fit). Here the small entry A is cut first and leaves the
// tape 49 runes over; the big B then leaves it 952 under: A comes back,
// B stays cut, and the cut line names B alone. Before the rule both
// stayed cut, and a tape could end 1,000 runes short of its budget.
func TestFitTakesBackWhatFits(t *testing.T) {
	blk := newBlock("Test")
	blk.addHead("head")
	a := blk.addSection(&section{singular: "a", plural: "as", items: []item{newItem(strings.Repeat("a", 100), "", 3, 3)}})
	b := blk.addSection(&section{singular: "b", plural: "bs", items: []item{newItem(strings.Repeat("b", 1000), "", 7, 7), newItem("keep", "", 9, 9)}, order: []int{0, 1}})
	blocks := []*block{blk}
	budget := totalRunes(blocks) - 150
	total, cutBy := fit(blocks, []cutStep{{sec: a}, {sec: b, keep: 1}}, budget)
	if total != totalRunes(blocks) || total > budget {
		t.Fatalf("total %d, rendered %d, budget %d", total, totalRunes(blocks), budget)
	}
	if a.ncut != 0 || b.ncut != 1 || cutBy[a] != 0 || cutBy[b] != 1 {
		t.Fatalf("a cut %d (by %d), b cut %d (by %d): want A taken back, B cut", a.ncut, cutBy[a], b.ncut, cutBy[b])
	}
	if got := b.cutLine(); got != "[cut: 1 b; recall seq=7]" {
		t.Fatalf("b's cut line %q", got)
	}
	if got := a.cutLine(); got != "" {
		t.Fatalf("a's cut line %q after it came back", got)
	}
}

// Before the budget cuts a whole file, the files older than the newest 6
// lose their details (what they define, add and hold) and keep their path
// and ops (shrink): a file listed is worth more than the names of an old
// one. Before the rule the oldest files went whole, details and all.
func TestOldFilesShrinkBeforeAnyIsCut(t *testing.T) {
	evs := moduleEdits(func(int) string { return "" })
	shrunkNoCut := false
	for budget := 8000; budget >= MinBudget; budget -= 100 {
		tp := build(t, "s", evs, Options{Budget: budget}, nil)
		files := blockText(t, tp, "Workspace Files")
		if cutLineRE.MatchString(files) || !strings.Contains(files, "- pkg/module00.go: edit seq=") {
			continue
		}
		if strings.Contains(files, "- pkg/module00.go: edit seq=3 (defines") {
			continue // nothing shrunk yet
		}
		shrunkNoCut = true
		for k := 6; k < 12; k++ { // the newest 6
			if !strings.Contains(files, fmt.Sprintf("- pkg/module%02d.go: edit seq=%d (defines Module%02dFunctionNumber0", k, 3+2*k, k)) {
				t.Fatalf("budget %d: module%02d, among the newest 6, lost its details:\n%s", budget, k, files)
			}
		}
	}
	if !shrunkNoCut {
		t.Fatal("no budget showed every file with the older ones shrunk: the test shows nothing")
	}
}

// A look-up's output (a bead, an issue the user named) is something the
// next window can read again by running it; the carryover's messages are
// the only account of what the assistant found and chose. The budget cuts
// the look-ups before the carryover goes down to its last 4 messages.
func TestALookUpGoesBeforeTheCarryover(t *testing.T) {
	spec := "spotter-dov.3 · Implement the debug sidecar\n" + strings.Repeat("- Keep highlight.js as the only syntax highlighter.\n", 40)
	evs := []session.Event{human("Work on bead spotter-dov."), call("Bash", "b1", `{"command":"bd show spotter-dov.3"}`), result("Bash", "b1", true, spec)}
	for k := 1; k <= 8; k++ {
		evs = append(evs, say(fmt.Sprintf("Step %d: I chose the sidecar over a second renderer because the renderer would duplicate the highlighter; %s", k, strings.Repeat("the measurements agree. ", 20))))
	}
	sawLookUpCut := false
	for budget := 12000; budget >= MinBudget; budget -= 100 {
		tp, err := fold(t, "s", seqd(evs...)).Build(Options{Budget: budget}, nil)
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		bp := blockText(t, tp, "Breakpoint")
		lookUp, shown := tp.Block("Looked Up")
		shown = shown && strings.Contains(lookUp, "bd show spotter-dov.3")
		if !shown {
			if !strings.Contains(bp, "[cut: ") {
				sawLookUpCut = true
			}
			continue
		}
		if m := regexp.MustCompile(`\[cut: (\d+) messages?`).FindStringSubmatch(bp); m != nil {
			t.Fatalf("budget %d: the carryover lost %s messages while the look-up stayed:\n%s\n\n%s", budget, m[1], bp, lookUp)
		}
	}
	if !sawLookUpCut {
		t.Fatal("no budget cut the look-up while the carryover was whole: the test shows nothing")
	}
}

// The lines the newest files' last changes add ("The last changes of the
// newest files") are the work done last: the budget shrinks the older
// files' entries to their path and ops before it cuts those lines; it had
// cut them third, before the older files' details and most of the rest.
func TestTheNewestChangesOutliveOlderFilesDetails(t *testing.T) {
	evs := moduleEdits(func(d int) string { return fmt.Sprintf(` return step%d(ctx, \"a longer body line to show\") `, d) })
	both := false
	for budget := 9000; budget >= MinBudget; budget -= 50 {
		tp := build(t, "s", evs, Options{Budget: budget}, nil)
		files := blockText(t, tp, "Workspace Files")
		last := strings.Contains(files, "The last changes of the newest files")
		oldDetails := strings.Contains(files, "- pkg/module00.go: edit seq=3 (defines")
		if !last && oldDetails {
			t.Fatalf("budget %d: the newest files' last changes were cut while an older file keeps its details:\n%s", budget, files)
		}
		if last && !oldDetails && strings.Contains(files, "- pkg/module00.go: edit seq=3") {
			both = true
		}
	}
	if !both {
		t.Fatal("no budget showed the newest changes with the older files shrunk: the test shows nothing")
	}
}

// moduleEdits is a session of 12 edits, of pkg/module00.go to
// pkg/module11.go, each adding 6 functions, the body of function d
// body(d) (JSON-escaped).
func moduleEdits(body func(d int) string) []session.Event {
	evs := []session.Event{human("Refactor the modules.")}
	for k := 0; k < 12; k++ {
		id := fmt.Sprintf("e%d", k)
		var defs strings.Builder
		for d := 0; d < 6; d++ {
			fmt.Fprintf(&defs, "func Module%02dFunctionNumber%d() {%s}\\n", k, d, body(d))
		}
		evs = append(evs, call("Edit", id, fmt.Sprintf(`{"file_path":"pkg/module%02d.go","old_string":"x","new_string":"%s"}`, k, defs.String())), result("Edit", id, true, "ok"))
	}
	return seqd(append(evs, say("Refactored."))...)
}

// The files the sessions before wrote lose their details (what their
// notes say past the ops) before any of them is cut, and go after this
// session's own files are down to 6: a path listed with its session is
// worth more than the names of an old change. Before the rule they went
// whole, notes and all, once this session's own files were down to 14.
func TestTheFilesHandedOnShrinkBeforeTheyGo(t *testing.T) {
	var notes []session.FileNote
	for k := range 6 {
		notes = append(notes, session.FileNote{Path: fmt.Sprintf("pkg/earlier%02d.go", k), Session: "g1", Generation: 1, Seq: int64(10 + k),
			Note: fmt.Sprintf("write seq=%d (defines %s)", 10+k, strings.Repeat(fmt.Sprintf("Earlier%02dFunctionWithALongName, ", k), 8))})
	}
	evs := append([]session.Event{origin(2, "g1", 40, &session.Inherited{Files: notes})}, moduleEdits(func(int) string { return "" })...)
	shrunkNoCut := false
	for budget := 12000; budget >= MinBudget; budget -= 100 {
		tp := build(t, "s", seqd(evs...), Options{Budget: budget}, nil)
		files, ok := tp.Block("Workspace Files")
		if !ok || !strings.Contains(files, "Written or edited in the sessions before this one") {
			continue
		}
		listed := strings.Count(files, "- pkg/earlier")
		if listed == 6 && !strings.Contains(files, "(defines Earlier") {
			shrunkNoCut = true
		}
		if listed < 6 && strings.Contains(files, "(defines Earlier") {
			t.Fatalf("budget %d: a file handed on was cut while another kept its details:\n%s", budget, files)
		}
	}
	if !shrunkNoCut {
		t.Fatal("no budget showed every file handed on with its details shrunk: the rule is not there")
	}
}
