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
// whatever the records' order. testdata/commands.jsonl holds the records
// of the state that lives between two records: a custom command's
// slash_command result and its text (0.24.4's and 0.5.0's shapes), and a
// call Qwen Code 0.13.0 cancelled with its ui_telemetry event.
func FuzzQwenImportResumes(f *testing.F) {
	testfixtures.FuzzResumes(f, "0a1b2c3d-0000-4000-8000-000000000000.jsonl", importer.ErrNotTranscript, func(st *session.Store, home, path, id string) error {
		_, err := Import(Options{Store: st, Home: home, Path: path, ID: id})
		return err
	}, "importer/qwen/testdata/commands.jsonl", "importer/qwen/testdata/goal-0.24.jsonl", "importer/qwen/testdata/session.jsonl", "importer/qwen/testdata/shapes.jsonl", "importer/qwen/testdata/synthetic.jsonl")
}
