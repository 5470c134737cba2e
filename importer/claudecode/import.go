package claudecode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

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
	// Ctx, when set, cancels the import (importer.Options.Ctx).
	Ctx context.Context
	// LockWait bounds each wait for the session's lock (importer.Options).
	LockWait time.Duration
	// Others are the other hosts (importer.Options.Others).
	Others []importer.Other
}

// SubAgent is a sub-agent transcript found next to a transcript.
type SubAgent struct {
	// Name is the agent id: the file name without ".jsonl" and, for the
	// agent-<id>.jsonl files Claude Code writes, without "agent-".
	Name string
	Path string
	// Session is the session it is imported into: <id>.agent-<name> for
	// agent-<name>.jsonl, <id>.subagent-<name> for any other file name
	// (doc.go, Sub-agents); "" when no valid id fits, and Problem says why.
	Session string
	Problem string
}

// maxIDLen is the longest session id session.ValidID accepts.
const maxIDLen = 128

// subAgentHashLen is how many hex digits of the file name's sha256 a
// sub-agent id carries when the name is not an id as it is.
const subAgentHashLen = 8

// SubAgents lists <dir>/<uuid>/subagents/*.jsonl of the transcript at path
// (regular files only), sorted by file name, with the session id each is
// imported into. No directory (also when <dir>/<uuid> is not one: a
// transcript named without an extension) means no sub-agents; any other
// error is returned. A sub-agent whose id cannot be made has Problem set.
func SubAgents(path, id string) ([]SubAgent, error) {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	dir := filepath.Join(filepath.Dir(path), base, "subagents")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claudecode: listing sub-agent transcripts in %s: %w", dir, err)
	}
	var subs []SubAgent
	taken := map[string]string{}
	for _, e := range ents { // ReadDir sorts by file name
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		s := SubAgent{Path: filepath.Join(dir, e.Name())}
		s.Session, s.Name, s.Problem = subAgentID(id, e.Name())
		if other, dup := taken[s.Session]; dup && s.Session != "" {
			s.Session, s.Problem = "", fmt.Sprintf("its session id %s is %s's", s.Session, other)
		}
		if s.Session != "" {
			taken[s.Session] = e.Name()
		}
		subs = append(subs, s)
	}
	return subs, nil
}

// subAgentID is the session of sub-agent file name (doc.go, Sub-agents):
// <id>.agent-<name> for agent-<name>.jsonl, <id>.subagent-<name> for
// another name, so that agent-x.jsonl and x.jsonl never share one. A name
// that does not make a valid id (a character outside [A-Za-z0-9._-], or
// too long) has those characters replaced by '-', is cut to fit and ends
// in "-" and 8 hex digits of the file name's sha256.
func subAgentID(id, file string) (sid, name, problem string) {
	name = strings.TrimSuffix(file, ".jsonl")
	kind := "subagent"
	if n, ok := strings.CutPrefix(name, "agent-"); ok {
		name, kind = n, "agent"
	}
	prefix := id + "." + kind + "-"
	if sid := prefix + name; session.ValidID(sid) == nil {
		return sid, name, ""
	}
	sum := sha256.Sum256([]byte(file))
	tag := "-" + hex.EncodeToString(sum[:])[:subAgentHashLen]
	room := maxIDLen - len(prefix) - len(tag)
	if room < 1 {
		return "", name, fmt.Sprintf("no session id of at most %d characters fits %s-<name> after the id %s: choose a shorter --id", maxIDLen, kind, id)
	}
	var b strings.Builder
	for _, r := range name {
		if b.Len() >= room {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	sid = prefix + b.String() + tag
	if err := session.ValidID(sid); err != nil {
		return "", name, fmt.Sprintf("%v: choose a shorter --id", err)
	}
	return sid, name, ""
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
	// A report names its agent by id: agent-<id>.jsonl is that agent's
	// transcript; another file of the same name only when there is none.
	links := make(map[string]string, len(subs))
	for _, conventional := range []bool{true, false} {
		for _, s := range subs {
			isAgent := strings.HasPrefix(filepath.Base(s.Path), "agent-")
			if _, have := links[s.Name]; s.Session != "" && isAgent == conventional && !have {
				links[s.Name] = s.Session
			}
		}
	}
	sum, err := importer.Run(runOptions(o, id, o.Path), NewMapper(Config{KeepThinking: o.KeepThinking, SubSessions: links}))
	if err != nil {
		return sum, err
	}
	for _, s := range subs {
		if s.Session == "" {
			// Never a reason to leave the transcript itself unimported.
			sum.Warn("sub-agent transcript %s not imported: %s", s.Path, s.Problem)
			continue
		}
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
	ro := importer.Options{Store: o.Store, Home: o.Home, ID: id, Source: path, Ctx: o.Ctx, LockWait: o.LockWait, Others: o.Others}
	if o.Progress != nil {
		ro.Progress = func(read, total int64) { o.Progress(path, read, total) }
	}
	return ro
}
