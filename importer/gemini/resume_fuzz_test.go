package gemini

import (
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// FuzzGeminiImportResumes puts Gemini CLI's records from the repository's
// transcripts together in the order the fuzzer picks, and checks that a
// follow which resumes from its cursor imports what one run imports
// (testfixtures.ImportsAgree): the mapper's state goes through the cursor
// whatever the records' order.
func FuzzGeminiImportResumes(f *testing.F) {
	testfixtures.FuzzResumes(f, "session-2026-01-01T00-00-0a1b2c3d.jsonl", importer.ErrNotTranscript, func(st *session.Store, home, path, id string) error {
		_, err := Import(Options{Store: st, Home: home, Path: path, ID: id})
		return err
	}, "importer/gemini/testdata/plan-0.61.jsonl", "importer/gemini/testdata/session-recorded.jsonl", "importer/gemini/testdata/shapes.jsonl", "importer/gemini/testdata/shell-exit-0.61.jsonl", "importer/gemini/testdata/synthetic.jsonl", "importer/gemini/testdata/tracker-0.61.jsonl")
}
