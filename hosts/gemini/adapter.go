package gemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/importer"
	mapper "github.com/graft-project/graft/importer/gemini"
)

// Name is Gemini CLI's name in graft.
const Name adapter.Name = "gemini"

const title = "Gemini CLI"

// HomeVar is the variable that moves the home Gemini CLI keeps .gemini in
// (else the user's home directory).
const HomeVar = "GEMINI_CLI_HOME"

// Adapter is Gemini CLI's adapter.Adapter.
type Adapter struct{}

var _ adapter.Claimer = Adapter{}

func (Adapter) Name() adapter.Name         { return Name }
func (Adapter) Title() string              { return title }
func (Adapter) Program() string            { return "gemini" }
func (Adapter) InstructionFiles() []string { return []string{"GEMINI.md"} }

// UserInstructionFiles is <home>/.gemini/GEMINI.md.
func (a Adapter) UserInstructionFiles() ([]string, error) {
	root, err := a.Root()
	if err != nil {
		return nil, err
	}
	return adapter.Existing(false, filepath.Join(root, "GEMINI.md"))
}

// Root is <$GEMINI_CLI_HOME, else the home directory>/.gemini.
func (Adapter) Root() (string, error) {
	home, err := adapter.HomeDir(HomeVar, "")
	if err != nil {
		return "", fmt.Errorf("gemini: finding the home directory: %w", err)
	}
	return filepath.Join(home, ".gemini"), nil
}

func (Adapter) RootVar() string { return HomeVar }

// TranscriptRoot is the folder under root that holds every project's
// session files (tmp/<project>/chats/).
func (Adapter) TranscriptRoot(root string) string { return filepath.Join(root, "tmp") }

// SessionID is the session id of session file path, read from its header:
// a file name holds only its first 8 characters. "" when the file has no
// header naming a uuid.
func (Adapter) SessionID(path string) string {
	h, err := ReadHeader(path)
	if err != nil {
		return ""
	}
	if id := strings.ToLower(h.SessionID); adapter.ValidSessionID(id) == nil {
		return id
	}
	return ""
}

func (Adapter) TranscriptName() string {
	return "session-<time>-<first 8 of the uuid>.jsonl, whose first line names the uuid"
}

// Growth: Gemini CLI only appends to a session file; what a $set or a
// $rewindTo takes back is recorded by the mapper, not applied.
func (Adapter) Growth() adapter.Growth { return adapter.Appends }

func (Adapter) Mapper() importer.Mapper { return mapper.NewMapper(mapper.Config{}) }

func (Adapter) Import(o adapter.ImportOptions) (*importer.Summary, error) {
	return mapper.Import(o.File())
}

func (Adapter) ResumeCommand(id string) string { return "gemini --resume " + id }

// LineTokens is a gemini message's tokens.input (its request's
// promptTokenCount, cached tokens included). A $set that replaces the
// message list reports nothing: the next reply tells the new size.
func (Adapter) LineTokens(line []byte) (int64, bool) {
	if !bytes.Contains(line, []byte(`"tokens"`)) {
		return 0, false
	}
	var r struct {
		ID     string         `json:"id"`
		Type   string         `json:"type"`
		Tokens *mapper.Tokens `json:"tokens"`
	}
	if json.Unmarshal(line, &r) != nil || r.ID == "" || r.Type != "gemini" || r.Tokens == nil {
		return 0, false
	}
	return r.Tokens.Input, true
}

var errSlugTaken = errors.New("gemini: no project folder can be claimed")
var errNotSession = errors.New("gemini: not a Gemini CLI session file")

// listed is a record as the host's listing reads it (Resumable).
type listed struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Content     json.RawMessage `json:"content"`
	ToolCalls   []any           `json:"toolCalls"`
	Thoughts    []any           `json:"thoughts"`
	Set         json.RawMessage `json:"$set"`
	RewindTo    *string         `json:"$rewindTo"`
	SessionID   string          `json:"sessionId"`
	LastUpdated string          `json:"lastUpdated"`
}

// resumable is the host's judgement of a message: a user text that does
// not start with '/', '?', <session_context> or <hook_context>; a gemini
// message with text, tool calls or thoughts.
func (r *listed) resumable() bool {
	text := strings.TrimSpace(mapper.ContentText(r.Content))
	switch r.Type {
	case "user":
		return text != "" && !mapper.IgnoredUserText(text)
	case "gemini":
		return text != "" || len(r.ToolCalls) > 0 || len(r.Thoughts) > 0
	}
	return false
}

// Project is the folder Gemini CLI keeps a working directory's sessions in.
type Project struct {
	// Root is the working directory, a real path; Slug its folder name
	// under tmp/ (and history/).
	Root, Slug string
	// Chats is <root>/tmp/<slug>/chats.
	Chats string
	// Claim are the ownership markers that make Gemini CLI take Slug for
	// Root the next time it starts there, when it has not yet: an export
	// creates each that does not exist (never replacing one).
	Claim []adapter.File
}

// projectRootFile is the ownership marker of a project folder: it holds
// the project's path, without a newline.
const projectRootFile = ".project_root"

// ProjectOf finds the folder of working directory cwd (a real path) under
// root as Gemini CLI 0.61.0 does (doc.go, "Where sessions live"): the slug
// projects.json maps it to, if the slug's markers do not name another
// path; else a folder under tmp/ or history/ whose marker names it; else
// the slug Gemini would claim, with the markers to write.
func ProjectOf(root, cwd string) (*Project, error) {
	p := &Project{Root: cwd}
	reg, err := readRegistry(root)
	if err != nil {
		return nil, err
	}
	bases := []string{filepath.Join(root, "tmp"), filepath.Join(root, "history")}
	if slug, ok := reg[cwd]; ok && slugRe.MatchString(slug) {
		owned, err := ownedBy(bases, slug, cwd)
		if err != nil {
			return nil, err
		}
		if owned {
			p.Slug = slug
		}
	}
	if p.Slug == "" {
		if p.Slug, err = markedFor(bases, cwd); err != nil {
			return nil, err
		}
	}
	if p.Slug == "" {
		if p.Slug, err = claimSlug(bases, reg, cwd); err != nil {
			return nil, err
		}
	}
	p.Chats = filepath.Join(root, "tmp", p.Slug, "chats")
	for _, b := range bases {
		m := filepath.Join(b, p.Slug, projectRootFile)
		if _, err := os.Lstat(m); errors.Is(err, fs.ErrNotExist) {
			p.Claim = append(p.Claim, adapter.File{Path: m, Data: []byte(cwd)})
		} else if err != nil {
			return nil, fmt.Errorf("gemini: %w", err)
		}
	}
	return p, nil
}

var slugRe = regexp.MustCompile(`^[a-z0-9-]+$`)

// readRegistry reads projects.json ({"projects": {path: slug}}); a missing
// or unreadable one is empty, as Gemini CLI resets it then.
func readRegistry(root string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(root, "projects.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	var r struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(b, &r) != nil || r.Projects == nil {
		return map[string]string{}, nil
	}
	return r.Projects, nil
}

// ownedBy reports whether no marker of slug names another path than cwd.
func ownedBy(bases []string, slug, cwd string) (bool, error) {
	for _, b := range bases {
		owner, err := os.ReadFile(filepath.Join(b, slug, projectRootFile))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return false, nil // Gemini treats an unreadable marker as another owner
		}
		if strings.TrimSpace(string(owner)) != cwd {
			return false, nil
		}
	}
	return true, nil
}

// markedFor is the first folder (in name order) under bases whose marker
// names cwd.
func markedFor(bases []string, cwd string) (string, error) {
	for _, b := range bases {
		ents, err := os.ReadDir(b)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("gemini: %w", err)
		}
		for _, e := range ents {
			owner, err := os.ReadFile(filepath.Join(b, e.Name(), projectRootFile))
			if err == nil && strings.TrimSpace(string(owner)) == cwd {
				return e.Name(), nil
			}
		}
	}
	return "", nil
}

// claimSlug is the slug Gemini CLI gives a new project: its base name
// lower-cased, every run of characters outside [a-z0-9] one '-', then
// "-1", "-2", … past the slugs projects.json holds and the folders whose
// marker names another path.
func claimSlug(bases []string, reg map[string]string, cwd string) (string, error) {
	slug := Slugify(filepath.Base(cwd))
	taken := map[string]bool{}
	for _, s := range reg {
		taken[s] = true
	}
	for k := 0; k < 10000; k++ {
		cand := slug
		if k > 0 {
			cand = fmt.Sprintf("%s-%d", slug, k)
		}
		if taken[cand] {
			continue
		}
		ok, err := ownedBy(bases, cand, cwd)
		if err != nil {
			return "", err
		}
		if ok {
			return cand, nil
		}
	}
	return "", fmt.Errorf("%w for %s under %v", errSlugTaken, cwd, bases)
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slugify is Gemini CLI's project slug of a folder name.
func Slugify(name string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		return "project"
	}
	return s
}

// Header is the first record of a session file.
type Header struct {
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	StartTime   string `json:"startTime"`
	LastUpdated string `json:"lastUpdated"`
	Kind        string `json:"kind"`
}

// ReadHeader reads the header of session file path (its first line).
func ReadHeader(path string) (*Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", adapter.ErrNoTranscript, err)
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 1<<20)).ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("gemini: reading %s: %w", path, err)
	}
	var h Header
	if json.Unmarshal(line, &h) != nil || h.SessionID == "" || h.ProjectHash == "" {
		return nil, fmt.Errorf("%w: %s: the first line is no {sessionId, projectHash} header", errNotSession, path)
	}
	return &h, nil
}

// FindTranscript finds the session file of session id under root the way
// `gemini --resume <id>` does: among the session-*.jsonl files of cwd's
// project (any project's when cwd is "" or holds none), those whose header
// names id and that hold something to resume (Resumable); of several, the
// one updated last. A resume in another minute than the file name's leaves
// a stub with the same id and nothing to resume: it is never the answer.
func (a Adapter) FindTranscript(root, id, cwd string) (string, error) {
	id = strings.ToLower(id)
	if err := adapter.ValidSessionID(id); err != nil {
		return "", err
	}
	if cwd != "" {
		if real, err := adapter.RealDir(cwd); err == nil {
			if p, err := ProjectOf(root, real); err == nil {
				if path, err := findIn([]string{p.Chats}, id); err == nil || !errors.Is(err, adapter.ErrNoTranscript) {
					return path, err
				}
			}
		}
	}
	all, err := filepath.Glob(filepath.Join(a.TranscriptRoot(root), "*", "chats"))
	if err != nil {
		return "", fmt.Errorf("gemini: %w", err)
	}
	return findIn(all, id)
}

func findIn(dirs []string, id string) (string, error) {
	type cand struct {
		path string
		at   time.Time
	}
	var found []cand
	if len(dirs) == 0 {
		return "", fmt.Errorf("%w: no %s project folder under which session %s could be", adapter.ErrNoTranscript, title, id)
	}
	for _, d := range dirs {
		names, err := filepath.Glob(filepath.Join(d, "session-*.jsonl"))
		if err != nil {
			return "", fmt.Errorf("gemini: %w", err)
		}
		for _, p := range names {
			if !strings.Contains(filepath.Base(p), id[:8]) {
				continue
			}
			h, err := ReadHeader(p)
			if err != nil || strings.ToLower(h.SessionID) != id {
				continue
			}
			ok, last, err := Resumable(p)
			if err != nil {
				return "", err
			}
			if ok {
				found = append(found, cand{p, last})
			}
		}
	}
	if len(found) == 0 {
		return "", fmt.Errorf("%w: no %s session %s under %s", adapter.ErrNoTranscript, title, id, strings.Join(dirs, ", "))
	}
	slices.SortStableFunc(found, func(a, b cand) int { return b.at.Compare(a.at) })
	return found[0].path, nil
}

// Resumable reports whether session file path holds a message Gemini CLI
// resumes (a user text that does not start with '/', '?',
// <session_context> or <hook_context>; a gemini message with text, tool
// calls or thoughts), as its listing judges it, and the last lastUpdated
// it names.
func Resumable(path string) (ok bool, lastUpdated time.Time, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, time.Time{}, fmt.Errorf("%w: %v", adapter.ErrNoTranscript, err)
	}
	defer f.Close()
	msgs := map[string]bool{}
	var order []string
	set := func(id string, r bool) {
		if _, seen := msgs[id]; !seen {
			order = append(order, id)
		}
		msgs[id] = r
	}
	rd := bufio.NewReader(f)
	for {
		line, rerr := rd.ReadBytes('\n')
		if len(line) > 0 {
			var rec listed
			if json.Unmarshal(line, &rec) == nil {
				switch {
				case rec.RewindTo != nil:
					k := slices.Index(order, *rec.RewindTo)
					if k < 0 {
						k = 0
					}
					for _, id := range order[k:] {
						delete(msgs, id)
					}
					order = order[:k]
				case rec.ID != "":
					set(rec.ID, rec.resumable())
				case rec.Set != nil:
					var s struct {
						Messages    *[]listed `json:"messages"`
						LastUpdated string    `json:"lastUpdated"`
					}
					if json.Unmarshal(rec.Set, &s) == nil {
						if s.Messages != nil {
							msgs, order = map[string]bool{}, nil
							for _, m := range *s.Messages {
								if m.ID != "" {
									set(m.ID, m.resumable())
								}
							}
						}
						if t, err := time.Parse(time.RFC3339Nano, s.LastUpdated); err == nil {
							lastUpdated = t
						}
					}
				case rec.SessionID != "":
					if t, err := time.Parse(time.RFC3339Nano, rec.LastUpdated); err == nil {
						lastUpdated = t
					}
				}
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return false, time.Time{}, fmt.Errorf("gemini: reading %s: %w", path, rerr)
		}
	}
	for _, r := range msgs {
		if r {
			return true, lastUpdated, nil
		}
	}
	return false, lastUpdated, nil
}
