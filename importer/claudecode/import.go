package claudecode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// Options of Import.
type Options struct {
	Store *session.Store
	Home  string
	// Path is the transcript, <dir>/<uuid>.jsonl.
	Path string
	// ID is the session to import into; empty: importer.DefaultID(Path).
	ID           string
	KeepThinking bool
	// Progress, when set, is called per transcript (the main one, then each
	// sub-agent's) with bytes read and its size.
	Progress func(path string, read, total int64)
}

// SubAgent is a sub-agent transcript found next to a transcript.
type SubAgent struct {
	Name    string // agent id: the file name without "agent-" and ".jsonl"
	Path    string
	Session string // <id>.agent-<name>
}

// SubAgents lists <dir>/<uuid>/subagents/*.jsonl of the transcript at path,
// sorted by name, with the session id each is imported into. No directory
// means no sub-agents; any other error is returned.
func SubAgents(path, id string) ([]SubAgent, error) {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	dir := filepath.Join(filepath.Dir(path), base, "subagents")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claudecode: listing sub-agent transcripts in %s: %w", dir, err)
	}
	var subs []SubAgent
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		name := strings.TrimPrefix(strings.TrimSuffix(e.Name(), ".jsonl"), "agent-")
		sid := id + ".agent-" + name
		if err := session.ValidID(sid); err != nil {
			return nil, fmt.Errorf("claudecode: sub-agent transcript %s: %w (choose a shorter --id)", filepath.Join(dir, e.Name()), err)
		}
		subs = append(subs, SubAgent{Name: name, Path: filepath.Join(dir, e.Name()), Session: sid})
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].Name < subs[j].Name })
	return subs, nil
}

// Import imports a Claude Code transcript into session o.ID, then each
// sub-agent transcript next to it into its own session (SubAgents), every
// one incrementally (importer.Run). The summary of each sub-agent import is
// in the returned summary's SubSessions.
func Import(o Options) (*importer.Summary, error) {
	id := o.ID
	if id == "" {
		var err error
		if id, err = importer.DefaultID(o.Path); err != nil {
			return nil, err
		}
	}
	if err := session.ValidID(id); err != nil {
		return nil, err
	}
	subs, err := SubAgents(o.Path, id)
	if err != nil {
		return nil, err
	}
	links := make(map[string]string, len(subs))
	for _, s := range subs {
		links[s.Name] = s.Session
	}
	sum, err := importer.Run(runOptions(o, id, o.Path), NewMapper(Config{KeepThinking: o.KeepThinking, SubSessions: links}))
	if err != nil {
		return sum, err
	}
	for _, s := range subs {
		ss, err := importer.Run(runOptions(o, s.Session, s.Path), NewMapper(Config{KeepThinking: o.KeepThinking, Parent: id}))
		if ss != nil {
			sum.SubSessions = append(sum.SubSessions, ss)
		}
		if err != nil {
			return sum, fmt.Errorf("claudecode: sub-agent transcript %s: %w", s.Path, err)
		}
	}
	return sum, nil
}

func runOptions(o Options, id, path string) importer.Options {
	ro := importer.Options{Store: o.Store, Home: o.Home, ID: id, Source: path}
	if o.Progress != nil {
		ro.Progress = func(read, total int64) { o.Progress(path, read, total) }
	}
	return ro
}
