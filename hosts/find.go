package hosts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FindTranscript finds the transcript of a host session the way the host
// does: Claude Code's <config>/projects/<folder of cwd>/<id>.jsonl, else the
// one file of that name in any project folder; Codex's
// sessions/**/rollout-*-<id>.jsonl. dir is the config dir (Claude Code) or
// the Codex home; "" takes the environment's.
func FindTranscript(host Host, id, cwd, dir string) (string, error) {
	id = strings.ToLower(id)
	if err := ValidHostSessionID(id); err != nil {
		return "", err
	}
	var err error
	switch host {
	case ClaudeCode:
		if dir == "" {
			if dir, err = ClaudeConfigDir(); err != nil {
				return "", err
			}
		}
		projects := filepath.Join(dir, "projects")
		if cwd != "" {
			if real, rerr := RealDir(cwd); rerr == nil {
				p := filepath.Join(projects, ClaudeProjectDirName(real), id+".jsonl")
				if _, err := os.Stat(p); err == nil {
					return p, nil
				}
			}
		}
		matches, err := filepath.Glob(filepath.Join(projects, "*", id+".jsonl"))
		if err != nil {
			return "", err
		}
		return oneMatch(host, id, projects, matches)
	case Codex:
		if dir == "" {
			if dir, err = CodexHome(); err != nil {
				return "", err
			}
		}
		root := filepath.Join(dir, "sessions")
		var matches []string
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == root {
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
			return "", fmt.Errorf("hosts: searching %s: %w", root, err)
		}
		return oneMatch(host, id, root, matches)
	}
	return "", fmt.Errorf("%w %q", ErrUnknownHost, host)
}

func oneMatch(host Host, id, where string, matches []string) (string, error) {
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", fmt.Errorf("%w: no %s transcript of session %s under %s", ErrNoTranscript, host, id, where)
	}
	slices.Sort(matches)
	return "", fmt.Errorf("%w: %d %s transcripts of session %s (%s); pass one with --transcript", ErrNoTranscript, len(matches), host, id, strings.Join(matches, ", "))
}

// NewestClaudeTranscript is the newest transcript (by modification time) of
// working directory cwd's Claude Code project folder: the session
// `claude --continue` takes.
func NewestClaudeTranscript(cwd, dir string) (string, error) {
	var err error
	if dir == "" {
		if dir, err = ClaudeConfigDir(); err != nil {
			return "", err
		}
	}
	folder := filepath.Join(dir, "projects", ClaudeProjectDirName(cwd))
	ents, err := os.ReadDir(folder)
	if err != nil {
		return "", fmt.Errorf("%w: no Claude Code project folder for %s (%v)", ErrNoTranscript, cwd, err)
	}
	var best string
	var bestTime int64
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || ValidHostSessionID(id) != nil || !e.Type().IsRegular() {
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
		return "", fmt.Errorf("%w: no Claude Code transcript in %s", ErrNoTranscript, folder)
	}
	return best, nil
}

// CheckTranscriptPath says why path is not host's own transcript of the
// session id ("" when it is): a regular file, not a symlink, under the
// host's transcript root (Claude Code: <config>/projects/<folder>/,
// Codex: <home>/sessions/…) as the real paths go, named for the session
// (<id>.jsonl; Codex rollout-…-<id>.jsonl) when id is given. dir is the
// config or home directory ("" for the environment's).
func CheckTranscriptPath(host Host, path, id, dir string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return err.Error()
	}
	if !fi.Mode().IsRegular() {
		return "not a regular file (a symlink, a directory or a device)"
	}
	var root string
	switch host {
	case ClaudeCode:
		if dir == "" {
			if dir, err = ClaudeConfigDir(); err != nil {
				return err.Error()
			}
		}
		root = filepath.Join(dir, "projects")
	case Codex:
		if dir == "" {
			if dir, err = CodexHome(); err != nil {
				return err.Error()
			}
		}
		root = filepath.Join(dir, "sessions")
	default:
		return fmt.Sprintf("unknown host %q", host)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Sprintf("the host's transcript root %s: %v", root, err)
	}
	realDir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return err.Error()
	}
	if rel, err := filepath.Rel(realRoot, realDir); err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "not under the host's transcript root " + root
	}
	if id != "" {
		base := strings.ToLower(filepath.Base(path))
		want := strings.ToLower(id) + ".jsonl"
		if host == ClaudeCode && base != want || host == Codex && !strings.HasSuffix(base, "-"+want) {
			return fmt.Sprintf("its name is not that of session %s", id)
		}
	}
	return ""
}
