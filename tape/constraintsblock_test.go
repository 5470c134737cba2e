package tape

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// qwenCap is the characters Qwen Code keeps of a PreCompact hook's
// context (hosts/qwen): the cap the constraints block must fit.
const qwenCap = 4000

// typedConstraints is a session of a host whose ids are uuids: a pasted
// instruction with two rules, then typed instructions, each with its own
// constraint, enough that the constraints block passes qwenCap. The
// pasted rules are longer than any typed one, so that the room a cut
// leaves takes no pasted one back before a typed one (fit's refill).
func typedConstraints(typed int) []session.Event {
	evs := []session.Event{human(linesUpTo("Follow these rules. Never commit the generated files of the build tree to the repository. Always run gofmt on every changed file before you make a commit.\n", "context line %d\n", pastedBytes+100)), say("Read.")}
	for k := 0; k < typed; k++ {
		evs = append(evs, human(fmt.Sprintf("Step %d. Never rename the exported symbol Widget%03d in package api.", k, k)), say("Done."))
	}
	return seqd(evs...)
}

const uuidID = "4d5611e5-241a-462a-8d15-5122611a9569"

// The constraints block a host keeps only the first qwenCap characters
// of is rendered within them: the anchor line and the heading whole, the
// oldest typed constraints kept, the pasted-only ones and the newest
// typed ones cut, in that order, and a cut line that names them last.
func TestConstraintsBlockWithinACap(t *testing.T) {
	evs := typedConstraints(60)
	b := fold(t, uuidID, evs)
	tp, err := b.Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	whole := blockText(t, tp, ConstraintsTitle)
	if n := utf8.RuneCountInString(whole); n <= qwenCap || strings.Contains(whole, "[cut: ") {
		t.Fatalf("the tape's block is %d runes (cut line: %v): the test needs a whole block past %d", n, strings.Contains(whole, "[cut: "), qwenCap)
	}
	got, err := b.ConstraintsBlock(Options{}, nil, qwenCap, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(got); n > qwenCap {
		t.Fatalf("the capped block is %d runes, the cap %d:\n%s", n, qwenCap, got)
	}
	wl, gl := strings.Split(whole, "\n"), strings.Split(got, "\n")
	if !strings.HasSuffix(gl[0], "] ["+ConstraintsTitle+"]") || gl[1] != wl[1] || gl[2] != wl[2] || !strings.HasPrefix(gl[1], "[ANCHOR] ") {
		t.Fatalf("the capped block lost its marker, anchor line or heading:\n%s", got)
	}
	// Which constraints are kept: the pasted-only ones (seq 1) are cut
	// first, then the typed ones newest first, so the kept ones are the
	// oldest typed, one run from the first.
	var cut []session.Constraint
	kept := 0
	for k, c := range tp.Constraints {
		line := fmt.Sprintf("- %s (seq %d)", c.Text, c.Origin.Seq) // the anchor line's session
		in := strings.Contains(got, "\n"+line+"\n")
		switch {
		case c.Origin.Seq == 1 && in:
			t.Errorf("the pasted-only constraint %q was kept, typed ones cut:\n%s", c.Text, got)
		case c.Origin.Seq > 1 && in && len(cut) > 0 && cut[len(cut)-1].Origin.Seq > 1:
			t.Errorf("constraint %d (%q) was kept, an older typed one cut:\n%s", k, c.Text, got)
		}
		if in {
			kept++
			if gl[2+kept] != line {
				t.Errorf("kept constraint %d is line %q, want %q", kept, gl[2+kept], line)
			}
		} else {
			cut = append(cut, c)
		}
	}
	if len(cut) == 0 || cut[0].Origin.Seq != 1 {
		t.Fatalf("no constraint of the pasted instruction (seq 1): the test checks no cut order: %+v", tp.Constraints[:3])
	}
	if kept < 10 || len(cut) < 3 {
		t.Fatalf("kept %d, cut %d of %d constraints:\n%s", kept, len(cut), len(tp.Constraints), got)
	}
	if !strings.Contains(got, "Widget000 ") || !strings.Contains(got, "Widget009 ") {
		t.Errorf("the oldest typed constraints were cut:\n%s", got)
	}
	from, to := cut[0].Origin.Seq, cut[0].Origin.Seq
	for _, c := range cut {
		from, to = min(from, c.Origin.Seq), max(to, c.Origin.Seq)
	}
	wantCut := fmt.Sprintf("[cut: %d constraints; recall seq=%d..%d]", len(cut), from, to)
	if last := gl[len(gl)-1]; last != wantCut || len(gl) != 3+kept+1 {
		t.Fatalf("last line %q of %d, want %q after the %d kept:\n%s", last, len(gl), wantCut, kept, got)
	}
	// As long as the cap allows: another constraint would pass it.
	if _, err := b.ConstraintsBlock(Options{}, nil, utf8.RuneCountInString(got), nil); err != nil {
		t.Fatal(err)
	}
	more, err := b.ConstraintsBlock(Options{}, nil, utf8.RuneCountInString(got)+utf8.RuneCountInString(gl[len(gl)-2])+1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(more, "\n") <= strings.Count(got, "\n") {
		t.Errorf("a cap one constraint line larger keeps no more constraints:\n%s", more)
	}

	// A block that fits is the tape's, unchanged.
	for _, limit := range []int{0, utf8.RuneCountInString(whole)} {
		if same, err := b.ConstraintsBlock(Options{}, nil, limit, nil); err != nil || same != whole {
			t.Errorf("cap %d: the block that fits is not the tape's (%v):\n%s", limit, err, same)
		}
	}
	small := fold(t, uuidID, typedConstraints(3))
	st, err := small.Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if same, err := small.ConstraintsBlock(Options{}, nil, qwenCap, nil); err != nil || same != blockText(t, st, ConstraintsTitle) {
		t.Errorf("a small block is not the tape's (%v):\n%s", err, same)
	}

	// A host that counts more than runes (here each '<' as 4, the rest
	// as 2) gets a block within its count.
	count := func(s string) int { return 2*utf8.RuneCountInString(s) + 3*strings.Count(s, "<") }
	wide, err := b.ConstraintsBlock(Options{}, nil, qwenCap, count)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(wide); n > qwenCap || !strings.HasPrefix(wide[strings.LastIndex(wide, "\n")+1:], "[cut: ") {
		t.Fatalf("counted %d, the cap %d, or no cut line last:\n%s", n, qwenCap, wide)
	}

	// The anchor line and the heading do not fit: an error, no block.
	if text, err := b.ConstraintsBlock(Options{}, nil, 200, nil); !errors.Is(err, ErrBudget) || text != "" {
		t.Fatalf("cap 200: %q, %v; want ErrBudget", text, err)
	}
}
