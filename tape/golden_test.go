package tape

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/session"
)

var update = flag.Bool("update", false, "rewrite tape/testdata/*.golden from the current output")

// checkGolden compares got with testdata/<name>.golden (or rewrites it with
// -update).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tape -run TestGolden -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("tape differs from %s (run with -update if the change is intended):\n%s", path, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant: %s\n got: %s", i+1, w, g)
		}
	}
	return "(no line differs: a trailing byte)"
}

// goldenText is what a golden file holds: the review fields a reader checks
// and then the tape text.
func goldenText(tp *Tape) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# source %s generation %d boundary %d last %d\n", tp.SourceID, tp.Generation, tp.BoundarySeq, tp.LastSeq)
	fmt.Fprintf(&b, "# tapeChars %d carryoverChars %d replay %d (%s)\n", tp.TapeChars, tp.CarryoverChars, tp.ReplayTurns, tp.TierNote)
	fmt.Fprintf(&b, "# progress %s\n# prefixHash %s\n# tapeHash %s\n", tp.Progress, tp.PrefixHash, tp.TapeHash)
	for _, w := range tp.Warnings {
		b.WriteString("# warning " + w + "\n")
	}
	b.WriteString("\n")
	b.WriteString(tp.Text)
	b.WriteString("\n")
	return b.String()
}

func releaseSession() []session.Event {
	return seqd(
		human("Ship release 1.4 of the CLI. You must keep the flags backwards compatible.\nNever force-push. 不要修改 go.mod。"), // 1
		say("Let me look at the release checklist first.\n\nReading RELEASING.md."),                                         // 2
		call("Read", "r1", `{"file_path":"RELEASING.md"}`),                                                                  // 3
		result("Read", "r1", true, "     1→# Releasing\n     2→1. bump version"),                                            // 4
		todoWrite(todo("1", "Bump the version in version.go", session.TodoCompleted), todo("2", "Run the full test suite", session.TodoInProgress), todo("3", "Tag v1.4.0 and push the tag", session.TodoPending)), // 5
		call("Edit", "e1", `{"file_path":"version.go","old_string":"1.3.2","new_string":"1.4.0"}`),                                                                                                                 // 6
		result("Edit", "e1", true, "ok"),                                                                                        // 7
		call("Bash", "b1", `{"command":"go test ./..."}`),                                                                       // 8
		result("Bash", "b1", false, "--- FAIL: TestFlags (0.00s)\n    flags_test.go:40: -o is gone"),                            // 9
		injected(session.KindSystem, "hook", "Reminder: you must always run the linter. NEVER skip it."),                        // 10
		subagent("flag-auditor", "Findings: the -o flag was renamed to --output in 1.4 without an alias.\nAdd the alias back."), // 11
		human("Add the alias back, then continue the release. Only touch cmd/."),                                                // 12
		say("Adding the -o alias.\n\nI added -o as an alias of --output in cmd/flags.go."),                                      // 13
		call("Edit", "e2", `{"file_path":"cmd/flags.go"}`),                                                                      // 14
		result("Edit", "e2", true, "ok"),                                                                                        // 15
		call("Bash", "b2", `{"command":"go test ./..."}`),                                                                       // 16
		result("Bash", "b2", true, "ok  \tcli\t1.2s"),                                                                           // 17
		call("Bash", "b3", `{"command":"git tag v1.4.0"}`),                                                                      // 18
		result("Bash", "b3", true, ""),                                                                                          // 19
		say("The test suite passes now.\n\nI tagged v1.4.0; pushing the tag is next."),                                          // 20
	)
}

func TestGoldenHandWritten(t *testing.T) {
	gen3 := seqd(
		origin(3, "release-g2", 140, &session.Inherited{
			FirstGoal: &session.Quote{Text: "Ship release 1.4 of the CLI.", Origin: session.Origin{Generation: 1, Session: "release", Seq: 1}},
			Constraints: []session.Constraint{
				{Text: "You must keep the flags backwards compatible.", Origin: session.Origin{Generation: 1, Session: "release", Seq: 1}},
				{Text: "Only touch cmd/.", Origin: session.Origin{Generation: 2, Session: "release-g2", Seq: 12}, Also: []session.Origin{{Generation: 2, Session: "release-g2", Seq: 60}}},
			},
		}),
		injected(session.KindPlugin, "graft", session.GraftMarker+" 0a1b2c3d] [Breakpoint]\nYou must push the tag. Never stop."),
		human("Push the tag now. You must keep the flags backwards compatible."),
		say("Pushing.\n\nThe tag v1.4.0 is pushed."),
	)
	tests := []struct {
		name      string
		id        string
		evs       []session.Event
		opts      Options
		leftovers []Leftover
	}{
		{"release-tierA", "release", releaseSession(), Options{}, nil},
		{"release-tierB-leftover", "release", releaseSession(), Options{Tier: TierB}, []Leftover{{Target: "release-g2", Txn: "01J9TXN", State: "TARGET_FLUSHED", Reason: "killed before the cold read"}}},
		{"release-auto", "release", releaseSession(), Options{AutoTier: true}, nil},
		{"release-gen3", "release-g3", gen3, Options{}, nil},
		{"big-min-budget", "big", bigSession(), Options{Budget: MinBudget}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkGolden(t, tc.name, goldenText(build(t, tc.id, tc.evs, tc.opts, tc.leftovers)))
		})
	}
}

// generated folds a gen session as the store would hand it: each event with
// its encoded line.
func generated(t testing.TB, id string, opts gen.Options) (*Builder, int) {
	t.Helper()
	b := NewBuilder(id)
	n := 0
	err := gen.Generate(opts, func(ev *session.Event) error {
		line, err := session.Encode(ev)
		if err != nil {
			return err
		}
		n++
		return b.Add(ev, bytes.TrimSuffix(line, []byte("\n")))
	})
	if err != nil {
		t.Fatalf("gen %+v: %v", opts, err)
	}
	return b, n
}

// generatedTapes are generated sessions and the options of their tapes:
// the default, a tier B replay, and replayed recent turns.
var generatedTapes = []struct {
	name string
	opts gen.Options
	tape Options
}{
	{"gen-default", gen.DefaultOptions(), Options{}},
	{"gen-small-seed7-tierB", gen.Options{Turns: 3, Events: 60, Seed: 7}, Options{Tier: TierB}},
	{"gen-mid-seed3-recent2", gen.Options{Turns: 12, Events: 800, Seed: 3}, Options{RecentTurns: 2, AutoTier: true}},
}

// eachGeneratedTape runs check on each of generatedTapes' tapes, a
// subtest each.
func eachGeneratedTape(t *testing.T, check func(t *testing.T, name string, tp *Tape)) {
	for _, tc := range generatedTapes {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := generated(t, tc.name, tc.opts)
			tp, err := b.Build(tc.tape, nil)
			if err != nil {
				t.Fatal(err)
			}
			check(t, tc.name, tp)
		})
	}
}

func TestGoldenGenerated(t *testing.T) {
	eachGeneratedTape(t, func(t *testing.T, name string, tp *Tape) {
		checkGolden(t, name, goldenText(tp))
	})
}

// The seed preset (48 turns, 14,978 events) at the default options: the tape
// fits 16,000 runes and every constraint cites a human instruction of the
// session (issue 3, "done when").
func TestSeedPresetInvariants(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 25 MB session")
	}
	opts, err := gen.PresetOptions(gen.PresetSeed)
	if err != nil {
		t.Fatal(err)
	}
	humans := map[int64]bool{}
	b := NewBuilder("seed")
	err = gen.Generate(opts, func(ev *session.Event) error {
		if ev.IsHumanInstruction() {
			humans[ev.Seq] = true
		}
		line, err := session.Encode(ev)
		if err != nil {
			return err
		}
		return b.Add(ev, bytes.TrimSuffix(line, []byte("\n")))
	})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := b.Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tp.TapeChars > DefaultBudget || tp.LastSeq != int64(opts.Events) {
		t.Fatalf("tapeChars %d (budget %d), last seq %d", tp.TapeChars, DefaultBudget, tp.LastSeq)
	}
	if len(tp.Constraints) == 0 {
		t.Fatal("no constraint in the seed session")
	}
	for _, c := range tp.Constraints {
		for _, o := range append([]session.Origin{c.Origin}, c.Also...) {
			if o.Session != "seed" || o.Generation != 1 || !humans[o.Seq] {
				t.Errorf("constraint %q cites %v, not a human instruction of seed", c.Text, o)
			}
		}
	}
	if !humans[tp.BoundarySeq] {
		t.Errorf("boundary %d is not a human instruction", tp.BoundarySeq)
	}
	t.Logf("seed: %d events, %d humans, tapeChars %d, carryover %d, %d constraints", tp.LastSeq, len(humans), tp.TapeChars, tp.CarryoverChars, len(tp.Constraints))
}
