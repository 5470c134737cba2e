package hosts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/hosts/claudecode"
	"github.com/graft-project/graft/hosts/codex"
	"github.com/graft-project/graft/hosts/gemini"
	"github.com/graft-project/graft/hosts/qwen"
	"github.com/graft-project/graft/importer"
)

// registry holds every host graft knows, in the order help texts name
// them: a new host is its package (hosts/adapter/doc.go) and one line here.
var registry = []adapter.Adapter{
	claudecode.Adapter{},
	codex.Adapter{},
	gemini.Adapter{},
	qwen.Adapter{},
}

// Host names an agent host.
type Host = adapter.Name

// The two first hosts' names, kept for the callers that name one (the
// Claude Code plugin, the crash suite, the benchmarks, tests).
const (
	ClaudeCode = claudecode.Name
	Codex      = codex.Name
)

// Hosts lists the hosts' names, in the order help texts name them.
var Hosts = func() []Host {
	out := make([]Host, len(registry))
	for k, a := range registry {
		out[k] = a.Name()
	}
	return out
}()

// Adapters lists the hosts' adapters, in the order of Hosts.
func Adapters() []adapter.Adapter { return append([]adapter.Adapter(nil), registry...) }

// Others are the hosts but h, by name and mapper: a first import of a
// file that is not h's names the one whose records it holds
// (importer.Check).
func Others(h Host) []importer.Other {
	var out []importer.Other
	for _, a := range registry {
		if a.Name() != h {
			out = append(out, importer.Other{Name: string(a.Name()), Mapper: a.Mapper()})
		}
	}
	return out
}

// Of is the adapter of host h; ErrUnknownHost when graft knows no such
// host.
func Of(h Host) (adapter.Adapter, error) {
	for _, a := range registry {
		if a.Name() == h {
			return a, nil
		}
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownHost, h)
}

// ParseHost checks a host name given by a person.
func ParseHost(s string) (Host, error) {
	if a, err := Of(Host(s)); err == nil {
		return a.Name(), nil
	}
	return "", fmt.Errorf("%w %q: want %s", ErrUnknownHost, s, Names(", ", " or "))
}

// Names lists the hosts' names for a person, joined by sep, the last two
// by last: Names(", ", " or ") is "claude-code or codex", Names("|", "|")
// "claude-code|codex".
func Names(sep, last string) string {
	names := make([]string, len(registry))
	for k, a := range registry {
		names[k] = string(a.Name())
	}
	return join(names, sep, last)
}

// Titles lists what people call the hosts, as Names does: Titles(", ",
// " or ") is "Claude Code or Codex".
func Titles(sep, last string) string {
	titles := make([]string, len(registry))
	for k, a := range registry {
		titles[k] = a.Title()
	}
	return join(titles, sep, last)
}

func join(words []string, sep, last string) string {
	if len(words) < 2 {
		return strings.Join(words, sep)
	}
	return strings.Join(words[:len(words)-1], sep) + last + words[len(words)-1]
}

// Root is the folder of host h, absolute: where its exports go
// ($CLAUDE_CONFIG_DIR, $CODEX_HOME, … or the host's default).
func Root(h Host) (string, error) {
	a, err := Of(h)
	if err != nil {
		return "", err
	}
	dir, err := a.Root()
	if err != nil {
		return "", fmt.Errorf("hosts: finding the %s folder: %w", h, err)
	}
	return filepath.Abs(dir)
}

// ResumeCommand is the command that resumes host session id in host; ""
// for a host graft does not know.
func ResumeCommand(host Host, id string) string {
	a, err := Of(host)
	if err != nil {
		return ""
	}
	return a.ResumeCommand(id)
}

// ClaudeProjectDirName is claudecode.ProjectDirName (the tests and the
// benchmarks lay out Claude Code's folders with it).
func ClaudeProjectDirName(path string) string { return claudecode.ProjectDirName(path) }

// InstructionFilesLeft are the instruction files in dir (their paths)
// that host from reads on its own and host to does not: a handoff from
// one to the other leaves their rules behind. Files dir does not hold are
// not named; an error is one of reading dir.
func InstructionFilesLeft(from, to adapter.Adapter, dir string) ([]string, error) {
	var paths []string
	for _, name := range from.InstructionFiles() {
		if !slices.Contains(to.InstructionFiles(), name) {
			paths = append(paths, filepath.Join(dir, name))
		}
	}
	return adapter.Existing(false, paths...)
}

// Detect names the host of the transcript at path for an import that
// names none: the one whose records its first lines are
// (importer.Detect; importer.ErrUnknownTranscript when no one host's,
// ErrNoTranscript when there is no regular file there).
func Detect(path string) (Host, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s does not exist", ErrNoTranscript, path)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoTranscript, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%w: %s is not a regular file (%s)", ErrNoTranscript, path, fi.Mode().Type())
	}
	var among []importer.Other
	for _, a := range registry {
		among = append(among, importer.Other{Name: string(a.Name()), Mapper: a.Mapper()})
	}
	name, err := importer.Detect(path, among)
	if err != nil {
		return "", err
	}
	return Host(name), nil
}
