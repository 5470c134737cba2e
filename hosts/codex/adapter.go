package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/importer"
	mapper "github.com/graft-project/graft/importer/codex"
)

// Name is Codex's name in graft.
const Name adapter.Name = "codex"

// Adapter is Codex's adapter.Adapter.
type Adapter struct{}

func (Adapter) Name() adapter.Name         { return Name }
func (Adapter) Title() string              { return "Codex" }
func (Adapter) Program() string            { return "codex" }
func (Adapter) InstructionFiles() []string { return []string{"AGENTS.md"} }

// GoalCommand is the person's /goal (seen on the real program: hosts'
// goal tests).
func (Adapter) GoalCommand(objective string) string { return "/goal " + objective }

// UserInstructionFiles is $CODEX_HOME/AGENTS.override.md, else
// $CODEX_HOME/AGENTS.md: Codex reads the first it finds.
func (a Adapter) UserInstructionFiles() ([]string, error) {
	root, err := a.Root()
	if err != nil {
		return nil, err
	}
	return adapter.Existing(true, filepath.Join(root, "AGENTS.override.md"), filepath.Join(root, "AGENTS.md"))
}

// Root is $CODEX_HOME, else ~/.codex.
func (Adapter) Root() (string, error) { return adapter.HomeDir("CODEX_HOME", ".codex") }
func (Adapter) RootVar() string       { return "CODEX_HOME" }

// TranscriptRoot is <codex home>/sessions.
func (Adapter) TranscriptRoot(root string) string { return filepath.Join(root, "sessions") }

// FindTranscript finds sessions/**/rollout-*-<id>.jsonl.
func (a Adapter) FindTranscript(root, id, _ string) (string, error) {
	dir := a.TranscriptRoot(root)
	var matches []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipAll
			}
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), "-"+id+".jsonl") {
			matches = append(matches, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hosts: searching %s: %w", dir, err)
	}
	return adapter.OneMatch(Name, id, dir, matches)
}

// SessionID reads the uuid that ends rollout-…-<uuid>.jsonl.
func (Adapter) SessionID(path string) string {
	name, ok := strings.CutSuffix(filepath.Base(path), ".jsonl")
	if !ok || len(name) < 36 {
		return ""
	}
	if id := strings.ToLower(name[len(name)-36:]); adapter.ValidSessionID(id) == nil {
		return id
	}
	return ""
}

func (Adapter) TranscriptName() string { return "rollout-…-<uuid>.jsonl" }

// Growth: Codex appends to its rollout, compactions included.
func (Adapter) Growth() adapter.Growth { return adapter.Appends }

func (Adapter) Mapper() importer.Mapper { return mapper.NewMapper(mapper.Config{}) }

func (Adapter) Import(o adapter.ImportOptions) (*importer.Summary, error) {
	return mapper.Import(o.File())
}

func (Adapter) ResumeCommand(id string) string { return "codex resume " + id }

// LineTokens reads the last token_count event: last_token_usage, else
// total_token_usage, input_tokens.
func (Adapter) LineTokens(line []byte) (int64, bool) {
	if !bytes.Contains(line, []byte(`"token_count"`)) {
		return 0, false
	}
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			Type string `json:"type"`
			Info *struct {
				Last  *adapter.UsageCounts `json:"last_token_usage"`
				Total *adapter.UsageCounts `json:"total_token_usage"`
			} `json:"info"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "event_msg" || rec.Payload.Type != "token_count" || rec.Payload.Info == nil {
		return 0, false
	}
	if u := rec.Payload.Info.Last; u != nil {
		return u.Input, true
	}
	if u := rec.Payload.Info.Total; u != nil {
		return u.Input, true
	}
	return 0, false
}
