package tape

import (
	"strings"
	"testing"
)

// SplitText gives back the blocks a tape was built of, each its event's
// text (marker line included), in order, from Tape.Text alone: the
// fidelity benchmark reads where a prepared tape spends its room.
func TestSplitTextGivesBackTheBlocks(t *testing.T) {
	eachGeneratedTape(t, func(t *testing.T, _ string, tp *Tape) {
		parts := SplitText(tp.Text)
		if len(parts) != len(tp.Events) {
			t.Fatalf("%d parts, the tape has %d blocks", len(parts), len(tp.Events))
		}
		for k, p := range parts {
			if p.Text != tp.Events[k].Text {
				t.Errorf("part %d is not block %d's text:\n%.200s\nwant:\n%.200s", k, k, p.Text, tp.Events[k].Text)
			}
			if title := strings.TrimSuffix(strings.SplitN(tp.Events[k].Text, "] [", 2)[1], "]"); !strings.HasPrefix(title, p.Title) || p.Title == "" {
				t.Errorf("part %d titled %q; its marker line says %q", k, p.Title, strings.SplitN(tp.Events[k].Text, "\n", 2)[0])
			}
		}
	})
}

// A line that only looks like a marker (quoted in a block's body, not
// after a blank line, or with no hash) starts no block; text before the
// first marker is no block.
func TestSplitTextNeedsAWholeMarkerLine(t *testing.T) {
	text := "[graft:tape 0123abcd] [Goal]\nThe user's words:\n> [graft:tape 89abcdef] [Breakpoint]\n[graft:tape 89abcdef] [Quoted]\n\n[graft:tape zzzz] [Not hex]\n\n[graft:tape 89abcdef] [Breakpoint]\nbody"
	parts := SplitText(text)
	if len(parts) != 2 || parts[0].Title != "Goal" || parts[1].Title != "Breakpoint" || parts[1].Text != "[graft:tape 89abcdef] [Breakpoint]\nbody" {
		t.Fatalf("parts %+v", parts)
	}
	if !strings.Contains(parts[0].Text, "[Quoted]") || !strings.HasSuffix(parts[0].Text, "[Not hex]") {
		t.Fatalf("the first block lost the lines that only look like markers: %q", parts[0].Text)
	}
	if got := SplitText("no tape here\n\n[graft:tape 0123abcd] [Goal]"); len(got) != 1 || got[0].Title != "Goal" {
		t.Fatalf("text before the first marker: %+v", got)
	}
}
