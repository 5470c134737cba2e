package claudecode

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// Claude Code writes a recap for the person who comes back to a session
// (a system record of subtype away_summary, model-written: "… Next: …",
// 215 to 294 characters in the transcripts seen). It is imported whole as
// a system/event "recap" (session.SourceRecap), for the tape; other
// system records keep their first 200 characters.
func TestARecapIsImportedWhole(t *testing.T) {
	recap := "You're flattening the skills repo layout to match cc-skills-golang so Cursor and other agents install correctly; layout refactor and version bump to 0.3.0 are committed on alisha/refactor. Next: push the branch and test the per-agent installs."
	other := strings.Repeat("a long hook summary line ", 20)
	lines := []string{
		`{"type":"user","uuid":"u1","cwd":"/r","timestamp":"2026-04-24T21:50:00.000Z","message":{"role":"user","content":"Flatten the layout."}}`,
		`{"type":"system","subtype":"away_summary","content":"` + recap + `","uuid":"s1","isMeta":false,"cwd":"/r","timestamp":"2026-04-24T21:56:56.463Z"}`,
		`{"type":"system","subtype":"stop_hook_summary","content":"` + other + `","uuid":"s2","cwd":"/r","timestamp":"2026-04-24T21:57:00.000Z"}`,
	}
	var found bool
	for _, ev := range importLines(t, "recap", lines) {
		if ev.Type != session.TypeSystem {
			continue
		}
		switch ev.Meta["subtype"] {
		case "away_summary":
			found = true
			if ev.Source.Kind != session.KindSystem || ev.Source.Name != session.SourceRecap || ev.Text != recap || ev.IsHumanInstruction() {
				t.Errorf("the recap: source %+v, text %q; want system %q and the text whole", ev.Source, ev.Text, session.SourceRecap)
			}
		case "stop_hook_summary":
			if n := len([]rune(ev.Text)); n > 201 {
				t.Errorf("another system record keeps %d characters, want its first 200", n)
			}
		}
	}
	if !found {
		t.Fatal("no recap imported")
	}
}
