package tape

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// FuzzBuild folds sessions made from the fuzzer's bytes and checks what the
// tape promises whatever the session holds (docs/DESIGN.md §4):
//
//   - Build either fits the budget or says ErrBudget; the text is valid
//     UTF-8 and TapeChars is its runes;
//   - building twice gives the same tape, and so does a builder restored
//     from a snapshot taken anywhere in the fold and fed the rest;
//   - every hard constraint and every quote of the Goal comes from a human
//     event of the session (the human-origin rule: a model's words, a
//     tool's output or the host's text never become an instruction);
//   - every seq the tape cites is one of the session's;
//   - and all of that again for the next generation: a target of the
//     tape, its graft/origin handing on the tape's inherit, then more of
//     the fuzzer's events; its constraints and Goal quotes come from a
//     human event of either session, and a seq it cites in the session
//     before ("session fz seq=N") is one of that session's.
//
// The events' texts are the fuzzer's bytes made valid UTF-8 (the store
// hands the builder decoded JSON strings, which always are), mixed with
// words the tape's rules look for, and without "seq=": a quoted "seq=9"
// would be no citation of the tape's.
func FuzzBuild(f *testing.F) {
	f.Add([]byte("\x00\x20hello\x01\x30\x02\x05must\x03\x04\x40\x05\x02"))
	f.Add([]byte("\x00\x10\x09\x0a\x0b\x03\x01\x50\x03\x02\x60\x05\x03\x11\x22\x06\x30\x07\x20\x08\x10\x01\x90"))
	f.Add([]byte(strings.Repeat("\x00\x40\x03\x01\x90\x01\xff\x05\x04", 12)))
	f.Add([]byte("\x08\x30\x0c\x0d\x00\x09\x0e\x0f\x03\x02\x20\x04\x01\x10\x02\x80\x07\x30\x00\x05\x13"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{data: data}
		evs := fuzzSession(r)
		if len(evs) == 0 {
			return // the store holds no empty session: append refuses no events
		}
		opts := Options{Budget: []int{MinBudget, 6000, DefaultBudget}[int(r.byte())%3]}
		if r.byte()%2 == 1 {
			opts.Tier = TierB
		}
		cut := int(r.byte()) % (len(evs) + 1)

		b := fold(t, "fz", evs)
		tp, err := b.Build(opts, nil)
		if err != nil {
			if !errors.Is(err, ErrBudget) {
				t.Fatalf("Build: %v", err)
			}
			return
		}
		checkShape(t, tp, opts.Budget)
		again, err := b.Build(opts, nil)
		if err != nil || !reflect.DeepEqual(again, tp) {
			t.Fatalf("a second Build of the same fold differs (err %v)", err)
		}
		checkRestored(t, "fz", evs, cut, opts, tp)

		human := map[session.Origin]bool{}
		humans(human, "fz", evs)
		checkOrigins(t, tp, human)
		checkCited(t, tp.Text, int64(len(evs)))

		// The next generation, folded from its target's log.
		more := fuzzSession(r)
		next := append([]session.Event{origin(2, "fz", int64(len(evs)), &tp.Inherit)}, more...)
		next = seqd(next...)
		b2 := fold(t, "fz2", next)
		tp2, err := b2.Build(opts, nil)
		if err != nil {
			if !errors.Is(err, ErrBudget) {
				t.Fatalf("Build of the next generation: %v", err)
			}
			return
		}
		checkShape(t, tp2, opts.Budget)
		checkRestored(t, "fz2", next, int(r.byte())%(len(next)+1), opts, tp2)
		humans(human, "fz2", next)
		checkOrigins(t, tp2, human)
		// A file of the session before is listed with its seqs there
		// ("- path (gen 1): edit seq=N"; "(gen 1 session fz)" where the
		// generation does not name it alone).
		var own []string
		for _, l := range strings.Split(tp2.Text, "\n") {
			if strings.Contains(l, " (gen 1): ") || strings.Contains(l, " (gen 1 session fz): ") {
				checkCited(t, l, int64(len(evs)))
				continue
			}
			for _, m := range beforeSeqRE.FindAllString(l, -1) {
				checkCited(t, m, int64(len(evs)))
			}
			own = append(own, beforeSeqRE.ReplaceAllString(l, ""))
		}
		checkCited(t, strings.Join(own, "\n"), int64(len(next)))
	})
}

// checkShape: the tape's text is valid UTF-8, TapeChars its runes, within
// the budget.
func checkShape(t *testing.T, tp *Tape, budget int) {
	t.Helper()
	if !utf8.ValidString(tp.Text) {
		t.Fatalf("the tape text of %s is not valid UTF-8", tp.SourceID)
	}
	if n := utf8.RuneCountInString(tp.Text); tp.TapeChars != n || n > budget {
		t.Fatalf("the tape of %s: TapeChars %d, text %d runes, budget %d", tp.SourceID, tp.TapeChars, n, budget)
	}
}

// checkRestored: a fold of session id's evs snapshotted at event cut,
// restored and fed the rest builds want.
func checkRestored(t *testing.T, id string, evs []session.Event, cut int, opts Options, want *Tape) {
	t.Helper()
	snap, err := fold(t, id, evs[:cut]).Snapshot()
	if err != nil {
		t.Fatalf("snapshot of %s at %d: %v", id, cut, err)
	}
	resumed, err := Restore(snap)
	if err != nil {
		t.Fatalf("restore of %s at %d: %v", id, cut, err)
	}
	for k := cut; k < len(evs); k++ {
		if err := resumed.Add(&evs[k], rawLine(t, &evs[k])); err != nil {
			t.Fatalf("add seq %d of %s after a restore at %d: %v", evs[k].Seq, id, cut, err)
		}
	}
	if got, err := resumed.Build(opts, nil); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s restored at event %d: the tape differs from a fold from the start (err %v)", id, cut, err)
	}
}

// humans adds the origins of session id's human instructions in evs.
func humans(into map[session.Origin]bool, id string, evs []session.Event) {
	for _, ev := range evs {
		if ev.Type == session.TypeUserMessage && ev.Source.Kind == session.KindUser {
			into[session.Origin{Session: id, Seq: ev.Seq}] = true
		}
	}
}

// checkOrigins: every hard constraint and Goal quote of tp comes from a
// human event (human, by session and seq).
func checkOrigins(t *testing.T, tp *Tape, human map[session.Origin]bool) {
	t.Helper()
	for _, c := range tp.Constraints {
		if !human[session.Origin{Session: c.Origin.Session, Seq: c.Origin.Seq}] {
			t.Errorf("hard constraint %q comes from %v, no human event", c.Text, c.Origin)
		}
	}
	for _, q := range tp.Goal {
		if !human[session.Origin{Session: q.Origin.Session, Seq: q.Origin.Seq}] {
			t.Errorf("the Goal quotes %q from %v, no human event", q.Text, q.Origin)
		}
	}
}

// checkCited: every seq text cites is within 1..last.
func checkCited(t *testing.T, text string, last int64) {
	t.Helper()
	for _, m := range citedSeqRE.FindAllStringSubmatch(text, -1) {
		for _, s := range m[1:] {
			if s == "" {
				continue
			}
			if n, err := strconv.ParseInt(s, 10, 64); err != nil || n < 1 || n > last {
				t.Errorf("the tape cites %q; the session's seqs are 1..%d", m[0], last)
			}
		}
	}
}

// beforeSeqRE is a seq the next generation cites in the session before:
// "gen 1 seq=N" (the Handoff block names the session), "session fz
// seq=N", the anchor's "session fz, seq=N", and the boundary its
// graft/origin names.
var beforeSeqRE = regexp.MustCompile(`(?:gen 1|session fz,?|grafted from fz at boundary) seq=\d+(?:\.\.\d+)?`)

// citedSeqRE is a seq the tape cites: "seq=12", "seq=3..40".
var citedSeqRE = regexp.MustCompile(`seq=(\d+)(?:\.\.(\d+))?`)

// fuzzReader hands out the fuzzer's bytes and, past their end, the same
// again: a short input makes a long session, one the budget has to cut.
type fuzzReader struct {
	data []byte
	at   int
}

func (r *fuzzReader) byte() byte {
	if len(r.data) == 0 {
		return 0
	}
	c := r.data[r.at%len(r.data)]
	r.at++
	return c
}

// fuzzWords are what the tape's rules look for: constraints as people say
// them, outcomes, failures, documents, templates, paths, host text.
var fuzzWords = []string{
	"You must keep the API stable. ", "never push to main", "don't touch vendor/", "use pnpm, not npm. ",
	"\n\n", "\n", "```go\nfunc main() {}\n```\n", "## User Input\n\n```text\n$ARGUMENTS\n```\n",
	"Error: cannot find module", "FAILED", "test result: ok. 3 passed; 0 failed", "Decision: one queue",
	"src/main.go", "/compact", "<system-reminder>", "TODO: later", "é", "日本語のテキスト", "\t",
	"[graft:tape 0123abcd] [Goal]", "git commit -m 'fix'", "[main 1a2b3c4] fix", "All checks passed!",
	"- [ ] write tests\n", "**Status**: open\n", "Exit code 1\n", strings.Repeat("long line ", 300),
	"yes", "B", "ok go on",
}

// text is up to 8 pieces, each a word of fuzzWords or up to 64 of the
// fuzzer's bytes, made valid UTF-8, with no "seq=" in it.
func (r *fuzzReader) text() string {
	var s strings.Builder
	for n := int(r.byte()) % 9; n > 0; n-- {
		c := r.byte()
		if c%2 == 0 {
			s.WriteString(fuzzWords[int(c/2)%len(fuzzWords)])
			continue
		}
		for k := int(c) % 65; k > 0; k-- {
			s.WriteByte(r.byte())
		}
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s.String(), "\uFFFD"), "seq=", "seq:")
}

// maxFuzzHuman bounds the long instructions fuzzSession repeats a text
// into (bytes; a text longer than that is kept once).
const maxFuzzHuman = 32 << 10

var fuzzTools = []string{"Bash", "Edit", "Write", "Read", "Grep", "apply_patch", "shell_command", "Task", "WebFetch"}

// fuzzSession is 4 to 67 events (the first byte says how many): the person's words and commands, the
// assistant's messages and thinking, tool calls with or without their
// results, todo lists, sub-agent reports and the host's own text.
func fuzzSession(r *fuzzReader) []session.Event {
	if len(r.data) == 0 {
		return nil
	}
	var evs []session.Event
	for n, events := 0, 4+int(r.byte())%64; n < events; n++ {
		switch r.byte() % 10 {
		case 0:
			evs = append(evs, human(r.text()))
		case 1:
			evs = append(evs, say(r.text()))
		case 2:
			ev := say(r.text())
			ev.Source.Name = "thinking"
			evs = append(evs, ev)
		case 3, 4:
			name := fuzzTools[int(r.byte())%len(fuzzTools)]
			id := "c" + strconv.Itoa(n)
			in, err := json.Marshal(map[string]string{"command": r.text(), "file_path": "src/" + strconv.Itoa(int(r.byte()%4)) + ".go", "content": r.text()})
			if err != nil {
				panic(err) // a map of strings always encodes
			}
			evs = append(evs, call(name, id, string(in)))
			if r.byte()%5 != 0 { // else the call is in flight
				evs = append(evs, result(name, id, r.byte()%3 != 0, r.text()))
			}
		case 5:
			var items []session.Todo
			for k := int(r.byte())%4 + 1; k > 0; k-- {
				status := []string{session.TodoPending, session.TodoInProgress, session.TodoCompleted}[int(r.byte())%3]
				items = append(items, todo(strconv.Itoa(k), r.text(), status))
			}
			evs = append(evs, todoWrite(items...))
		case 6:
			evs = append(evs, subagent("explorer", r.text()))
		case 7:
			evs = append(evs, injected(session.KindSystem, "system-reminder", r.text()))
		case 8:
			evs = append(evs, human("/"+[]string{"compact", "speckit.plan", "review", "clear"}[int(r.byte())%4]+" "+r.text()))
		case 9:
			// A long instruction, past every clip, but within
			// maxFuzzHuman: a session of such pastes (a 3-byte input
			// makes 44 of 300 KB) costs seconds a run, and the fuzz
			// coordinator takes a worker that slow for hung.
			t, n := r.text(), int(r.byte())%40+1
			if len(t) > 0 {
				n = min(n, max(1, maxFuzzHuman/len(t)))
			}
			evs = append(evs, human(strings.Repeat(t, n)))
		}
		// What hosts record beside a message: where it ran, what the agent may do.
		if c := r.byte(); c%4 == 0 && len(evs) > 0 {
			evs[len(evs)-1].Meta = map[string]string{
				"cwd":            []string{"/work/repo", "/work/repo/sub", "C:\\Users\\me\\repo"}[int(c/4)%3],
				"permissionMode": []string{"default", "plan", "acceptEdits"}[int(c/12)%3],
				"gitBranch":      "feature/x",
			}
		}
	}
	return seqd(evs...)
}
