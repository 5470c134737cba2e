package qwen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Environment variables Qwen Code 0.24.4 reads for its directories
// (doc.go, "Where sessions live").
const (
	EnvHome       = "QWEN_HOME"        // its global directory, else ~/.qwen
	EnvRuntimeDir = "QWEN_RUNTIME_DIR" // where projects/ (the sessions) go, else the global directory
)

// ErrNoSession is returned when no session file of an id is found.
var ErrNoSession = errors.New("qwen: no such session file")

// Home is Qwen Code's global directory: $QWEN_HOME, else ~/.qwen. It holds
// settings.json, where graft's hooks go.
func Home() (string, error) {
	if d := os.Getenv(EnvHome); d != "" {
		return filepath.Abs(expandTilde(d))
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("qwen: finding the home directory: %w", err)
	}
	return filepath.Join(h, ".qwen"), nil
}

// RuntimeDir is the directory whose projects/ folder holds the sessions:
// $QWEN_RUNTIME_DIR, else Home. (A runtime directory set in settings.json
// is not read: graft passes such a directory explicitly.)
func RuntimeDir() (string, error) {
	if d := os.Getenv(EnvRuntimeDir); d != "" {
		return filepath.Abs(expandTilde(d))
	}
	return Home()
}

func expandTilde(d string) string {
	if d == "~" || strings.HasPrefix(d, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, strings.TrimPrefix(d[1:], "/"))
		}
	}
	return d
}

// ProjectDirName is the folder under projects/ that Qwen Code keeps the
// sessions of project root cwd in: every character outside [a-zA-Z0-9]
// replaced by '-' (a JavaScript string's UTF-16 units, so a character
// outside the BMP becomes "--"). No cut, no hash.
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

// ChatsDir is the folder of project root cwd's sessions under runtime
// directory dir: <dir>/projects/<ProjectDirName(cwd)>/chats.
func ChatsDir(dir, cwd string) string {
	return filepath.Join(dir, "projects", ProjectDirName(cwd), "chats")
}

// SessionPath is where session id of project root cwd lives:
// <dir>/projects/<ProjectDirName(cwd)>/chats/<id>.jsonl.
func SessionPath(dir, cwd, id string) string {
	return filepath.Join(ChatsDir(dir, cwd), id+".jsonl")
}

var sessionIDPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// ValidSessionID says why id is not a Qwen Code session id (a uuid), nil
// when it is one.
func ValidSessionID(id string) error {
	if !sessionIDPattern.MatchString(id) {
		return fmt.Errorf("qwen: %q is not a Qwen Code session id (a uuid)", id)
	}
	return nil
}

// FindSession finds the file of session id the way `qwen --resume <id>`
// does when run in cwd: <dir>/projects/<folder of cwd>/chats/<id>.jsonl;
// failing that (cwd "" or elsewhere), the one file of that name in any
// project folder. dir is the runtime directory; "" takes RuntimeDir().
func FindSession(dir, cwd, id string) (string, error) {
	if err := ValidSessionID(id); err != nil {
		return "", err
	}
	if dir == "" {
		var err error
		if dir, err = RuntimeDir(); err != nil {
			return "", err
		}
	}
	if cwd != "" {
		p := SessionPath(dir, cwd, id)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("qwen: %w", err)
		}
	}
	projects := filepath.Join(dir, "projects")
	matches, err := filepath.Glob(filepath.Join(projects, "*", "chats", id+".jsonl"))
	if err != nil {
		return "", err
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", fmt.Errorf("%w: no %s session %s under %s", ErrNoSession, HostName, id, projects)
	}
	slices.Sort(matches)
	return "", fmt.Errorf("%w: %d %s sessions named %s (%s); pass one path", ErrNoSession, len(matches), HostName, id, strings.Join(matches, ", "))
}

// ResumeCommand is the command that resumes session id in Qwen Code (run
// in the session's project directory).
func ResumeCommand(id string) string { return "qwen --resume " + id }
