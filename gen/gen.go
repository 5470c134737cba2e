package gen

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/graft-project/graft/session"
)

// baseTime is where every generated clock starts; the seed moves it by up to
// a year so sessions of different seeds do not share timestamps.
var baseTime = time.Date(2025, time.March, 3, 9, 0, 0, 0, time.UTC)

// tsLayout keeps every ts the same width (RFC 3339, milliseconds, UTC).
const tsLayout = "2006-01-02T15:04:05.000Z07:00"

const (
	// closingTailEvents is the end of the last turn: a todo write, three
	// successful tool pairs, and an assistant message.
	closingTailEvents = 8
	// lastTurnMin is what the plan gives the last turn when the events
	// allow it: the human instruction, some work, the closing tail.
	lastTurnMin = 1 + 3 + closingTailEvents
	// corpusHead is the part of a corpus where an output may start, so
	// that a big output always fits after it.
	corpusHead = 256 << 10
)

// Generate emits exactly opts.Events events in exactly opts.Turns turns, in
// seq order starting at 1, each passing session.Event.Validate. The same
// options give the same events byte for byte. emit may keep the event; an
// error from emit stops the generation and is returned with the seq.
func Generate(opts Options, emit func(*session.Event) error) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	g := newGenerator(opts, emit)
	budgets := g.planTurns()
	for t, budget := range budgets {
		if err := g.turn(t, budget, t == len(budgets)-1); err != nil {
			return err
		}
	}
	if g.seq != int64(opts.Events) {
		return fmt.Errorf("gen: internal error: emitted %d events, planned %d", g.seq, opts.Events)
	}
	return nil
}

type generator struct {
	opts Options
	prof profile
	emit func(*session.Event) error
	plan *source // turn budgets only, so they do not shift with content
	rng  *source // everything else, in emission order

	seq   int64
	clock time.Time
	// est is a lower bound of the JSONL bytes emitted so far; big outputs
	// are placed where it falls behind the profile.
	est int64

	code, logs *corpus
	project    string
	branch     string

	todos      []session.Todo
	todoNextID int
	// said are the constraints spoken so far; a later turn may repeat one.
	said            []string
	constraintTurns int
	lastFailed      bool
}

func newGenerator(opts Options, emit func(*session.Event) error) *generator {
	prof := profiles[opts.Preset]
	corpusRng := newSource(opts.Seed, 3)
	g := &generator{
		opts: opts,
		prof: prof,
		emit: emit,
		plan: newSource(opts.Seed, 1),
		rng:  newSource(opts.Seed, 2),
	}
	g.clock = baseTime.Add(time.Duration(corpusRng.intn(365*24)) * time.Hour)
	g.code = newSourceCorpus(corpusRng, corpusHead+prof.bigMax)
	g.logs = newLogCorpus(corpusRng, g.clock, corpusHead+prof.bigMax)
	g.project = pick(g.rng, projects)
	g.branch = "fix/" + pick(g.rng, []string{"journal-fsync", "torn-tail", "enospc", "recovery-scan"})
	return g
}

// planTurns splits the events over the turns: 2 each at least, the closing
// minimum for the last, the rest by uneven weights (some turns are long).
func (g *generator) planTurns() []int {
	n, spare := g.opts.Turns, g.opts.Events-2*g.opts.Turns
	budgets := make([]int, n)
	for t := range budgets {
		budgets[t] = 2
	}
	extra := min(spare, lastTurnMin-2)
	budgets[n-1] += extra
	spare -= extra
	weights := make([]int, n)
	sum := 0
	for t := range weights {
		w := g.plan.between(20, 100)
		if g.plan.chance(0.15) {
			w *= 4
		}
		weights[t] = w
		sum += w
	}
	given := 0
	for t := range budgets {
		share := int(int64(spare) * int64(weights[t]) / int64(sum))
		budgets[t] += share
		given += share
	}
	for t := 0; given < spare; t = (t + 1) % n {
		budgets[t]++
		given++
	}
	return budgets
}

// turn emits exactly budget events: a human instruction and the work it
// starts. The last turn stays open: it ends with the closing tail, not with
// another human instruction.
func (g *generator) turn(t, budget int, last bool) error {
	end := g.seq + int64(budget)
	left := func() int { return int(end - g.seq) }
	if t == 0 && budget >= 4 {
		if err := g.inject(sessionStart); err != nil {
			return err
		}
	}
	if err := g.human(t, last); err != nil {
		return err
	}
	tail := 1
	closing := last && left() >= closingTailEvents
	if closing {
		tail = closingTailEvents
	}
	if left() > tail && g.rng.chance(0.2) {
		if err := g.inject(pick(g.rng, injections)); err != nil {
			return err
		}
	}
	if left() > tail {
		if err := g.assistant(stepOpening); err != nil {
			return err
		}
	}
	if left() > tail && (g.unfinished() == 0 || g.rng.chance(0.3)) {
		g.newPlan()
		if err := g.writeTodos(); err != nil {
			return err
		}
	}
	for left() > tail {
		if err := g.unit(left() - tail); err != nil {
			return err
		}
	}
	if closing {
		return g.closingTail()
	}
	return g.assistant(stepFinal)
}

// unit emits one piece of work of at most room events.
func (g *generator) unit(room int) error {
	r := g.rng.intn(100)
	switch {
	case room >= 4 && r < 5:
		return g.parallelReads()
	case room >= 3 && r < 9:
		return g.delegate()
	case room >= 2 && r < 66:
		return g.toolPair(g.randomTool())
	case r < 84:
		return g.assistant(stepInterim)
	case r < 92 && g.unfinished() > 0:
		g.advanceTodos()
		return g.writeTodos()
	case r < 96:
		return g.report()
	default:
		return g.inject(pick(g.rng, injections))
	}
}

// put stamps seq and ts, checks the event and hands it to emit.
func (g *generator) put(ev *session.Event) error {
	g.seq++
	ev.Seq = g.seq
	g.clock = g.clock.Add(g.gap(ev))
	ev.TS = g.clock.Format(tsLayout)
	if err := ev.Validate(); err != nil {
		return fmt.Errorf("gen: internal error: seq %d: %w", g.seq, err)
	}
	g.est += estimate(ev)
	if err := g.emit(ev); err != nil {
		return fmt.Errorf("gen: emitting seq %d: %w", g.seq, err)
	}
	return nil
}

// gap is the time before an event: people think in minutes, tools answer
// in seconds.
func (g *generator) gap(ev *session.Event) time.Duration {
	ms := func(lo, hi int) time.Duration { return time.Duration(g.rng.between(lo, hi)) * time.Millisecond }
	switch {
	case ev.IsHumanInstruction():
		return ms(30_000, 1_200_000)
	case ev.Type == session.TypeAssistantMessage:
		return ms(2_000, 40_000)
	case ev.Type == session.TypeToolResult:
		return ms(100, 5_000) + time.Duration(len(ev.Tool.Output)/1024)*time.Millisecond
	}
	return ms(50, 3_000)
}

// estimate is a lower bound of the event's JSONL size: the payload strings
// plus the smallest envelope (seq, ts, type, source) Encode writes.
func estimate(ev *session.Event) int64 {
	n := 80 + len(ev.Text) + len(ev.Agent)
	if ev.Tool != nil {
		n += len(ev.Tool.Name) + len(ev.Tool.CallID) + len(ev.Tool.Input) + len(ev.Tool.Output)
	}
	for _, td := range ev.Todos {
		n += len(td.Content) + len(td.Status)
	}
	return int64(n)
}

// fill replaces the {placeholders} of a text template.
func (g *generator) fill(tmpl string) string {
	if !strings.Contains(tmpl, "{") {
		return tmpl
	}
	return strings.NewReplacer(
		"{project}", g.project,
		"{file}", pick(g.rng, projectFiles),
		"{pkg}", pick(g.rng, packages),
		"{func}", pick(g.rng, funcs),
		"{test}", pick(g.rng, tests),
		"{todo}", g.nextTodo(),
		"{n}", strconv.Itoa(g.rng.between(2, 40)),
	).Replace(tmpl)
}

var packages = []string{"internal/journal", "internal/store", "internal/recovery", "internal/fsutil", "api"}

func (g *generator) human(t int, last bool) error {
	var text string
	switch {
	case t == 0:
		text = g.fill(pick(g.rng, goals)) + " " + g.constraint(english)
	case last:
		k := g.rng.intn(len(closingInstructions))
		text = closingInstructions[k]
		if g.rng.chance(0.5) {
			text += " " + g.constraint(language(k))
		}
	default:
		// The first three constraint-carrying turns speak English, Chinese
		// and Russian in turn, so every session with 3 turns has all three.
		carries := t < 3 || g.rng.chance(0.3)
		lang := english
		if carries {
			lang = language(g.constraintTurns % 3)
		} else if r := g.rng.intn(100); r >= 70 {
			lang = chinese + language(r%2)
		}
		text = g.fill(pick(g.rng, instructionsByLanguage[lang]))
		if carries {
			text += " " + g.constraint(lang)
		}
	}
	if t > 0 && len(g.said) > 1 && g.rng.chance(0.15) {
		text += " " + pick(g.rng, g.said) // said again: the same constraint, a later origin
	}
	return g.put(&session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: text})
}

func (g *generator) constraint(lang language) string {
	c := pick(g.rng, constraintsByLanguage[lang])
	g.constraintTurns++
	for _, s := range g.said {
		if s == c {
			return c
		}
	}
	g.said = append(g.said, c)
	return c
}

func (g *generator) inject(in injection) error {
	return g.put(&session.Event{
		Type:   session.TypeUserMessage,
		Source: session.Source{Kind: in.kind, Name: in.name},
		Text:   g.fill(in.text),
	})
}

type step int

const (
	stepOpening step = iota // right after a human instruction
	stepInterim             // between tool calls
	stepFinal               // closes a turn
)

// assistant emits a message of one to four paragraphs; interim and final
// ones end with a paragraph that says what comes next, which is what a
// tape's carryover keeps.
func (g *generator) assistant(kind step) error {
	var paras []string
	switch kind {
	case stepOpening:
		paras = append(paras, g.fill(pick(g.rng, openingParagraphs)))
		if g.rng.chance(0.5) {
			paras = append(paras, g.fill(pick(g.rng, middleParagraphs)))
		}
	case stepInterim, stepFinal:
		if g.lastFailed {
			paras = append(paras, g.fill(pick(g.rng, afterFailureParagraphs)))
		}
		for range g.rng.between(1, 2) {
			paras = append(paras, g.fill(pick(g.rng, middleParagraphs)))
		}
		paras = append(paras, g.fill(pick(g.rng, finalParagraphs)))
	}
	g.lastFailed = false
	return g.put(&session.Event{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: strings.Join(paras, "\n\n")})
}

func (g *generator) unfinished() int {
	n := 0
	for _, td := range g.todos {
		if td.Status != session.TodoCompleted {
			n++
		}
	}
	return n
}

func (g *generator) nextTodo() string {
	for _, td := range g.todos {
		if td.Status != session.TodoCompleted {
			return td.Content
		}
	}
	return "the CHANGELOG entry"
}

// newPlan drops finished items and adds 3 to 6 new pending ones (no two
// alike), then starts the first.
func (g *generator) newPlan() {
	kept := g.todos[:0:0]
	for _, td := range g.todos {
		if td.Status != session.TodoCompleted {
			kept = append(kept, td)
		}
	}
	g.todos = kept
	want := len(g.todos) + g.rng.between(3, 6)
	for tries := 0; len(g.todos) < want && tries < 4*len(todoContents); tries++ {
		if c := g.fill(pick(g.rng, todoContents)); !g.hasTodo(c) {
			g.addTodo(c, session.TodoPending)
		}
	}
	g.advanceTodos()
}

func (g *generator) hasTodo(content string) bool {
	for _, td := range g.todos {
		if td.Content == content {
			return true
		}
	}
	return false
}

func (g *generator) addTodo(content, status string) {
	g.todoNextID++
	g.todos = append(g.todos, session.Todo{ID: strconv.Itoa(g.todoNextID), Content: content, Status: status})
}

// advanceTodos completes the item in progress and starts the next pending.
func (g *generator) advanceTodos() {
	for k := range g.todos {
		if g.todos[k].Status == session.TodoInProgress {
			g.todos[k].Status = session.TodoCompleted
			break
		}
	}
	for k := range g.todos {
		if g.todos[k].Status == session.TodoPending {
			g.todos[k].Status = session.TodoInProgress
			break
		}
	}
}

func (g *generator) writeTodos() error {
	list := make([]session.Todo, len(g.todos))
	copy(list, g.todos) // the event keeps this list; later writes change g.todos
	return g.put(&session.Event{Type: session.TypeTodoWrite, Source: session.Source{Kind: session.KindAssistant}, Todos: list})
}

// closingTail ends the open last turn: the last todo write still has the
// push in progress and items pending, then three successful tool calls (the
// push among them) that make the list stale, then an assistant step.
func (g *generator) closingTail() error {
	for k := range g.todos {
		if g.todos[k].Status == session.TodoInProgress {
			g.todos[k].Status = session.TodoCompleted
		}
	}
	g.addTodo(todoChangelog, session.TodoCompleted)
	g.addTodo(todoPush, session.TodoInProgress)
	g.addTodo(todoPR, session.TodoPending)
	if err := g.writeTodos(); err != nil {
		return err
	}
	module := "github.com/acme/" + g.project
	uses := []toolUse{
		g.bash("make test", true, "ok  \t"+module+"/internal/journal\t1.204s\nok  \t"+module+"/internal/recovery\t0.877s\nok  \t"+module+"/api\t0.093s\nmake test: ok"),
		g.bash("git push origin "+g.branch, true, "To github.com:acme/"+g.project+".git\n   3f2a1c4..9b8e7d0  "+g.branch+" -> "+g.branch),
		g.bash("git status --short --branch", true, "## "+g.branch+"...origin/"+g.branch),
	}
	for _, u := range uses {
		if err := g.toolPair(u); err != nil {
			return err
		}
	}
	text := "The full suite is green and CHANGELOG.md has the entry.\n\n" +
		"The branch is pushed: origin/" + g.branch + " is at 9b8e7d0.\n\n" +
		"Next: open the pull request against main and link the soak-run log."
	return g.put(&session.Event{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: text})
}

// report emits a sub-agent report: mostly one that opens with a report
// keyword; some bury the keyword, some are file or log dumps.
func (g *generator) report() error {
	var text string
	switch r := g.rng.intn(100); {
	case r < 70:
		text = g.fill(pick(g.rng, keywordReports))
	case r < 80:
		text = g.fill(pick(g.rng, buriedKeywordReports))
	case r < 90:
		text = g.code.slice(g.rng.between(1, g.code.headLines()), g.rng.between(20, 200))
	default:
		text = g.logs.slice(g.rng.between(1, g.logs.headLines()), g.rng.between(20, 300))
	}
	agent := pick(g.rng, agents)
	return g.put(&session.Event{Type: session.TypeSubagentReport, Source: session.Source{Kind: session.KindSubagent, Name: agent}, Agent: agent, Text: text})
}

// delegate is a Task tool call whose sub-agent reports before the call
// returns.
func (g *generator) delegate() error {
	agent := pick(g.rng, agents)
	u := toolUse{
		name: "Task",
		input: map[string]any{
			"description":   "Audit the write paths",
			"prompt":        g.fill("Find every write path in {pkg} and report which ones skip the directory fsync. Start your answer with Summary:."),
			"subagent_type": agent,
		},
		ok:     true,
		output: "Sub-agent " + agent + " finished; its report is above.",
	}
	id, err := g.call(u)
	if err != nil {
		return err
	}
	if err := g.report(); err != nil {
		return err
	}
	return g.result(u, id)
}

func (g *generator) callID() string { return "toolu_01" + g.rng.token(22) }

func (g *generator) call(u toolUse) (string, error) {
	input, err := json.Marshal(u.input)
	if err != nil {
		return "", fmt.Errorf("gen: encoding the input of a %s call: %w", u.name, err)
	}
	id := g.callID()
	return id, g.put(&session.Event{
		Type:   session.TypeToolCall,
		Source: session.Source{Kind: session.KindAssistant},
		Tool:   &session.Tool{Name: u.name, CallID: id, Input: input},
	})
}

func (g *generator) result(u toolUse, id string) error {
	ok := u.ok
	if !ok {
		g.lastFailed = true
	}
	return g.put(&session.Event{
		Type:   session.TypeToolResult,
		Source: session.Source{Kind: session.KindTool},
		Tool:   &session.Tool{Name: u.name, CallID: id, OK: &ok, Output: u.output},
	})
}

func (g *generator) toolPair(u toolUse) error {
	id, err := g.call(u)
	if err != nil {
		return err
	}
	return g.result(u, id)
}

// parallelReads is two calls issued together, answered in order.
func (g *generator) parallelReads() error {
	a, b := g.read(false), g.read(false)
	ida, err := g.call(a)
	if err != nil {
		return err
	}
	idb, err := g.call(b)
	if err != nil {
		return err
	}
	if err := g.result(a, ida); err != nil {
		return err
	}
	return g.result(b, idb)
}
