package qwen

import (
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// FuzzQwenImportResumes puts Qwen Code's records from the repository's
// transcripts together in the order the fuzzer picks, and checks that a
// follow which resumes from its cursor imports what one run imports
// (testfixtures.ImportsAgree): the mapper's state goes through the cursor
// whatever the records' order.
func FuzzQwenImportResumes(f *testing.F) {
	testfixtures.FuzzResumes(f, "0a1b2c3d-0000-4000-8000-000000000000.jsonl", importer.ErrNotTranscript, func(st *session.Store, home, path, id string) error {
		_, err := Import(Options{Store: st, Home: home, Path: path, ID: id})
		return err
	}, "importer/qwen/testdata/goal-0.24.jsonl", "importer/qwen/testdata/session.jsonl", "importer/qwen/testdata/shapes.jsonl", "importer/qwen/testdata/synthetic.jsonl")
}
