package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/importer"
	mapper "github.com/graft-project/graft/importer/claudecode"
)

// Name is Claude Code's name in graft.
const Name adapter.Name = "claude-code"

// Adapter is Claude Code's adapter.Adapter.
type Adapter struct{}

var _ adapter.Continuer = Adapter{}

func (Adapter) Name() adapter.Name         { return Name }
func (Adapter) Title() string              { return "Claude Code" }
func (Adapter) Program() string            { return "claude" }
func (Adapter) InstructionFiles() []string { return []string{"CLAUDE.md"} }

// GoalCommand is the person's /goal (seen on the real program: hosts'
// goal tests).
func (Adapter) GoalCommand(objective string) string { return "/goal " + objective }

// UserInstructionFiles is <config>/CLAUDE.md, the person's memory for
// every project.
func (a Adapter) UserInstructionFiles() ([]string, error) {
	root, err := a.Root()
	if err != nil {
		return nil, err
	}
	return adapter.Existing(false, filepath.Join(root, "CLAUDE.md"))
}

// Root is $CLAUDE_CONFIG_DIR, else ~/.claude.
func (Adapter) Root() (string, error) { return adapter.HomeDir("CLAUDE_CONFIG_DIR", ".claude") }
func (Adapter) RootVar() string       { return "CLAUDE_CONFIG_DIR" }

// TranscriptRoot is <config>/projects.
func (Adapter) TranscriptRoot(root string) string { return filepath.Join(root, "projects") }

// FindTranscript finds <config>/projects/<folder of cwd>/<id>.jsonl, else
// the one file of that name in any project folder.
func (a Adapter) FindTranscript(root, id, cwd string) (string, error) {
	projects := a.TranscriptRoot(root)
	if cwd != "" {
		if real, rerr := adapter.RealDir(cwd); rerr == nil {
			p := filepath.Join(projects, ProjectDirName(real), id+".jsonl")
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
	}
	matches, err := filepath.Glob(filepath.Join(projects, "*", id+".jsonl"))
	if err != nil {
		return "", err
	}
	return adapter.OneMatch(Name, id, projects, matches)
}

// Newest is the newest transcript (by modification time) of working
// directory cwd's project folder: the session `claude --continue` takes.
func (Adapter) Newest(root, cwd string) (string, error) {
	folder := filepath.Join(root, "projects", ProjectDirName(cwd))
	ents, err := os.ReadDir(folder)
	if err != nil {
		return "", fmt.Errorf("%w: no Claude Code project folder for %s (%v)", adapter.ErrNoTranscript, cwd, err)
	}
	var best string
	var bestTime int64
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || adapter.ValidSessionID(id) != nil || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			return "", err
		}
		if t := fi.ModTime().UnixNano(); best == "" || t > bestTime {
			best, bestTime = filepath.Join(folder, e.Name()), t
		}
	}
	if best == "" {
		return "", fmt.Errorf("%w: no Claude Code transcript in %s", adapter.ErrNoTranscript, folder)
	}
	return best, nil
}

func (Adapter) ContinueCommand() string { return "claude --continue" }

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

// Growth: Claude Code appends to its transcript, compactions included.
func (Adapter) Growth() adapter.Growth { return adapter.Appends }

func (Adapter) Mapper() importer.Mapper { return mapper.NewMapper(mapper.Config{}) }

func (Adapter) Import(o adapter.ImportOptions) (*importer.Summary, error) {
	return mapper.Import(mapper.Options{Store: o.Store, Home: o.Home, Path: o.Path, ID: o.ID, KeepThinking: o.KeepThinking,
		Progress: o.Progress, Ctx: o.Ctx, LockWait: o.LockWait, Others: o.Others})
}

func (Adapter) ResumeCommand(id string) string { return "claude --resume " + id }

// LineTokens reads an assistant record's message.usage: input + cache
// creation + cache read tokens.
func (Adapter) LineTokens(line []byte) (int64, bool) {
	if !bytes.Contains(line, []byte(`"usage"`)) {
		return 0, false
	}
	var rec struct {
		Type    string `json:"type"`
		Message struct {
			Usage *adapter.UsageCounts `json:"usage"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "assistant" || rec.Message.Usage == nil {
		return 0, false
	}
	u := rec.Message.Usage
	return u.Input + u.CacheCreation + u.CacheRead, true
}

// maxDirName is where Claude Code cuts a project folder's name and
// appends the path's hash.
const maxDirName = 200

// ProjectDirName is the folder under <config>/projects/ that Claude Code
// keeps the transcripts of working directory path in (path must be real:
// symlinks resolved). See doc.go.
func ProjectDirName(path string) string {
	units := utf16.Encode([]rune(path))
	name := make([]byte, len(units))
	for k, u := range units {
		switch {
		case u >= 'a' && u <= 'z', u >= 'A' && u <= 'Z', u >= '0' && u <= '9':
			name[k] = byte(u)
		default:
			name[k] = '-'
		}
	}
	if len(name) <= maxDirName {
		return string(name)
	}
	var h int32
	for _, u := range units {
		h = (h << 5) - h + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return string(name[:maxDirName]) + "-" + strconv.FormatInt(abs, 36)
}
