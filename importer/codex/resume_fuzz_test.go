package codex

import (
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// FuzzCodexImportResumes puts Codex's records from the repository's
// transcripts together in the order the fuzzer picks, and checks that a
// follow which resumes from its cursor imports what one run imports
// (testfixtures.ImportsAgree): the mapper's state goes through the cursor
// whatever the records' order.
func FuzzCodexImportResumes(f *testing.F) {
	testfixtures.FuzzResumes(f, "rollout-2026-01-01T00-00-00-0199b2c4-6a51-7d23-9f0e-000000000000.jsonl", importer.ErrNotTranscript, func(st *session.Store, home, path, id string) error {
		_, err := Import(Options{Store: st, Home: home, Path: path, ID: id})
		return err
	}, "importer/codex/testdata/goal-0.171.jsonl", "importer/codex/testdata/codemode-0.171.jsonl", "importer/codex/testdata/goal-complete-0.171.jsonl", "importer/codex/testdata/rollout-2025-10-05T09-12-44-0199b2c4-6a51-7d23-9f0e-3a1c5b7e2d10.jsonl", "testdata/fixtures/hosts/codex-0.169.0.jsonl", "testdata/fixtures/hosts/codex-0.169.0-compacted.jsonl")
}
