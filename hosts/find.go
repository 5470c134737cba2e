package hosts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/graft-project/graft/hosts/adapter"
)

// FindTranscript finds the transcript of a host session the way the host
// does (adapter.Adapter.FindTranscript), under the host's folder as the
// environment names it.
func FindTranscript(host Host, id, cwd string) (string, error) {
	id = strings.ToLower(id)
	if err := ValidHostSessionID(id); err != nil {
		return "", err
	}
	a, err := Of(host)
	if err != nil {
		return "", err
	}
	root, err := a.Root()
	if err != nil {
		return "", err
	}
	return a.FindTranscript(root, id, cwd)
}

// NewestTranscript is the transcript the host itself resumes as the
// newest session of working directory cwd (claude --continue); ok is
// false when the host resumes no such thing (adapter.Continuer).
func NewestTranscript(host Host, cwd string) (path string, ok bool, err error) {
	a, err := Of(host)
	if err != nil {
		return "", false, err
	}
	c, ok := a.(adapter.Continuer)
	if !ok {
		return "", false, nil
	}
	root, err := a.Root()
	if err != nil {
		return "", true, err
	}
	path, err = c.Newest(root, cwd)
	return path, true, err
}

// CheckTranscriptPath says why path is not host's own transcript of the
// session id ("" when it is): a regular file, not a symlink, under the
// host's transcript root (adapter.Adapter.TranscriptRoot) as the real
// paths go, named for the session when id is given.
func CheckTranscriptPath(host Host, path, id string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return err.Error()
	}
	if !fi.Mode().IsRegular() {
		return "not a regular file (a symlink, a directory or a device)"
	}
	a, err := Of(host)
	if err != nil {
		return fmt.Sprintf("unknown host %q", host)
	}
	dir, err := a.Root()
	if err != nil {
		return err.Error()
	}
	root := a.TranscriptRoot(dir)
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
	if id != "" && strings.ToLower(a.SessionID(path)) != strings.ToLower(id) {
		return fmt.Sprintf("its name is not that of session %s", id)
	}
	return ""
}

// HostSessionIDFromPath reads the host session id from a transcript's name.
func HostSessionIDFromPath(host Host, path string) (string, error) {
	a, err := Of(host)
	if err != nil {
		return "", err
	}
	if id := a.SessionID(path); id != "" {
		return id, nil
	}
	return "", fmt.Errorf("%w: %s transcript %s: its name holds no session uuid (want %s); give the host session id", ErrHostSessionID, host, path, a.TranscriptName())
}
