package qwen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/importer"
	mapper "github.com/graft-project/graft/importer/qwen"
)

// Name is Qwen Code's name in graft.
const Name adapter.Name = "qwen"

// Environment variables Qwen Code 0.24.4 reads for its folders (doc.go).
const (
	EnvHome       = "QWEN_HOME"        // its global folder (settings.json), else ~/.qwen
	EnvRuntimeDir = "QWEN_RUNTIME_DIR" // where projects/ (the sessions) go, else the global folder
)

// Adapter is Qwen Code's adapter.Adapter.
type Adapter struct{}

func (Adapter) Name() adapter.Name         { return Name }
func (Adapter) Title() string              { return "Qwen Code" }
func (Adapter) Program() string            { return "qwen" }
func (Adapter) InstructionFiles() []string { return []string{"QWEN.md", "AGENTS.md"} }

// GoalCommand is the person's /goal (seen on the real program: hosts'
// goal tests).
func (Adapter) GoalCommand(objective string) string { return "/goal " + objective }

// UserInstructionFiles are QWEN.md and AGENTS.md of Home, its global
// folder.
func (Adapter) UserInstructionFiles() ([]string, error) {
	home, err := Home()
	if err != nil {
		return nil, err
	}
	return adapter.Existing(false, filepath.Join(home, "QWEN.md"), filepath.Join(home, "AGENTS.md"))
}

// Root is the folder whose projects/ holds the sessions: $QWEN_RUNTIME_DIR,
// else Home.
func (Adapter) Root() (string, error) {
	if d := os.Getenv(EnvRuntimeDir); d != "" {
		return expandTilde(d), nil
	}
	return Home()
}

// RootVar is QWEN_HOME, the folder of the settings file graft's hooks go
// in (and of the sessions, unless QWEN_RUNTIME_DIR moves them).
func (Adapter) RootVar() string { return EnvHome }

// Home is Qwen Code's global folder: $QWEN_HOME, else ~/.qwen. It holds
// settings.json.
func Home() (string, error) {
	if d := os.Getenv(EnvHome); d != "" {
		return expandTilde(d), nil
	}
	return adapter.HomeDir(EnvHome, ".qwen")
}

// expandTilde expands a leading ~ as Qwen Code does for its variables.
func expandTilde(d string) string {
	if d == "~" || strings.HasPrefix(d, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, d[1:])
		}
	}
	return d
}

// TranscriptRoot is <root>/projects.
func (Adapter) TranscriptRoot(root string) string { return filepath.Join(root, "projects") }

// FindTranscript finds <root>/projects/<folder of cwd>/chats/<id>.jsonl
// (what `qwen --resume <id>` opens in cwd), else the one file of that name
// in any project folder.
func (a Adapter) FindTranscript(root, id, cwd string) (string, error) {
	projects := a.TranscriptRoot(root)
	if cwd != "" {
		if real, rerr := adapter.RealDir(cwd); rerr == nil {
			p := filepath.Join(projects, ProjectDirName(real), "chats", id+".jsonl")
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p, nil
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("hosts: %w", err)
			}
		}
	}
	matches, err := filepath.Glob(filepath.Join(projects, "*", "chats", id+".jsonl"))
	if err != nil {
		return "", err
	}
	return adapter.OneMatch(Name, id, projects, matches)
}

// SessionID reads the id of <uuid>.jsonl.
func (Adapter) SessionID(path string) string {
	name, ok := strings.CutSuffix(filepath.Base(path), ".jsonl")
	if !ok || len(name) != 36 {
		return ""
	}
	if id := strings.ToLower(name); adapter.ValidSessionID(id) == nil {
		return id
	}
	return ""
}

func (Adapter) TranscriptName() string { return "<uuid>.jsonl" }

// Growth: Qwen Code appends to its session file, its compressions and
// resumes included.
func (Adapter) Growth() adapter.Growth { return adapter.Appends }

func (Adapter) Mapper() importer.Mapper { return mapper.NewMapper(mapper.Config{}) }

func (Adapter) Import(o adapter.ImportOptions) (*importer.Summary, error) {
	return mapper.Import(o.File())
}

func (Adapter) ResumeCommand(id string) string { return "qwen --resume " + id }

// LineTokens reads an assistant record's usageMetadata.promptTokenCount:
// the prompt of the request that record answered.
func (Adapter) LineTokens(line []byte) (int64, bool) {
	if !bytes.Contains(line, []byte(`"usageMetadata"`)) {
		return 0, false
	}
	var rec struct {
		Type  string `json:"type"`
		Usage *struct {
			Prompt *int64 `json:"promptTokenCount"`
		} `json:"usageMetadata"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "assistant" || rec.Usage == nil || rec.Usage.Prompt == nil {
		return 0, false
	}
	return *rec.Usage.Prompt, true
}

// ProjectDirName is the folder under projects/ that Qwen Code keeps the
// sessions of project root cwd (a real path) in: every character outside
// [a-zA-Z0-9] replaced by '-' (a JavaScript string's UTF-16 units, so a
// character outside the BMP becomes "--"). No cut, no hash.
func ProjectDirName(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// GoalGoesOn implements adapter.GoalCarrier: Qwen Code restores the goal
// on --resume and goes on working at it at once.
func (Adapter) GoalGoesOn() string {
	return "Qwen Code restores it on resume and goes on working at it at once, before you type"
}
