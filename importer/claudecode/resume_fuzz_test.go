package claudecode

import (
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// FuzzClaudeCodeImportResumes puts Claude Code's records from the repository's
// transcripts together in the order the fuzzer picks, and checks that a
// follow which resumes from its cursor imports what one run imports
// (testfixtures.ImportsAgree): the mapper's state goes through the cursor
// whatever the records' order.
func FuzzClaudeCodeImportResumes(f *testing.F) {
	testfixtures.FuzzResumes(f, "0ccf1a04-0000-4000-8000-000000000000.jsonl", importer.ErrNotTranscript, func(st *session.Store, home, path, id string) error {
		_, err := Import(Options{Store: st, Home: home, Path: path, ID: id})
		return err
	}, "testdata/fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", "testdata/fixtures/claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl", "testdata/fixtures/claude-code/short.jsonl", "testdata/fixtures/claude-code/subagent.jsonl", "testdata/fixtures/claude-code/tool_heavy.jsonl", "testdata/fixtures/hosts/claude-code-2.1.328.jsonl", "testdata/fixtures/hosts/claude-code-2.1.332-midturn.jsonl", "importer/claudecode/testdata/goal-2.1.332.jsonl", "importer/claudecode/testdata/rejection-2.1.332.jsonl", "importer/claudecode/testdata/synthetic.jsonl", "importer/claudecode/testdata/tasks.jsonl")
}
