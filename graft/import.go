package graft

import (
	"context"
	"errors"
	"fmt"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// ImportOptions are the options of Import.
type ImportOptions struct {
	// ID is the session to import into; "" takes the transcript's file
	// name, sanitised (importer.DefaultID).
	ID string
	// KeepThinking keeps the model's thinking as assistant messages
	// (source.name "thinking").
	KeepThinking bool
	// Progress, when set, is called as a transcript is read: its path (the
	// transcript, or a Claude Code sub-agent's), the bytes read and its
	// size.
	Progress func(path string, read, total int64)
}

// ImportResult is what Import did.
type ImportResult struct {
	// Summary is the import's; after a failure, what was imported before
	// it (nil when nothing was).
	Summary *importer.Summary
	// Followed is set when the transcript's host session is bound to a
	// graft session and was followed into it (hosts.Follow) instead of
	// being imported by its name.
	Followed *hosts.FollowResult
}

// Import brings a host's transcript into a native session, incrementally
// (package importer): each run appends only the lines the host wrote since
// the last one.
//
// A transcript whose host session is bound to a graft session (graft
// exported it, or imported it before) goes into that session, as the hooks
// do, so a resumed export goes on in its graft target: only without ID and
// KeepThinking, and only when the file's name holds the host's session
// uuid. When that session was handed off, nothing is merged and the error
// matches session.ErrRetired.
//
// ctx is checked before the import starts and about every MiB read
// (importer.Options.Ctx): package importer appends each batch whole, so a
// cancelled import into an existing session keeps the batches it appended
// (a new session is not created), and the next run goes on from there. A transcript followed into its bound session is not
// cancelled once it started (hosts.Follow).
func (s *Service) Import(ctx context.Context, host hosts.Host, path string, o ImportOptions) (*ImportResult, error) {
	a, err := hosts.Of(host)
	if err != nil {
		return nil, fmt.Errorf("graft: import: unknown host %q: want %s", host, hosts.Names(", ", " or "))
	}
	if err := cancelled(ctx, "import of "+path); err != nil {
		return nil, err
	}
	if res, done, err := s.importBound(host, path, o); done {
		return res, err
	}
	sum, err := a.Import(adapter.ImportOptions{
		Store: s.store, Home: s.Home, Path: path, ID: o.ID, KeepThinking: o.KeepThinking,
		Progress: o.Progress, Ctx: ctx, Others: hosts.Others(host),
	})
	return &ImportResult{Summary: sum}, err
}

// importBound follows a transcript bound to a graft session into it (see
// Import); done is false when the import is a plain one.
func (s *Service) importBound(host hosts.Host, path string, o ImportOptions) (res *ImportResult, done bool, err error) {
	if o.ID != "" || o.KeepThinking {
		return nil, false, nil
	}
	hid, err := hosts.HostSessionIDFromPath(host, path)
	if err != nil {
		return nil, false, nil
	}
	if _, err := s.Bindings().Load(host, hid); errors.Is(err, hosts.ErrNoBinding) {
		return nil, false, nil
	} else if err != nil {
		return nil, true, err
	}
	fr, err := s.Follow(host, path, hid, "", pathProgress(o.Progress, path))
	if err != nil {
		return nil, true, err
	}
	if fr.HandedOffTo != "" {
		what := "no human instruction was added since (the end of the handed-off turn is not merged)"
		if fr.Stray != nil {
			what = fmt.Sprintf("%d new line(s) with %d human instruction(s) of this transcript are not merged", fr.Stray.Lines, fr.Stray.Humans)
		}
		return nil, true, fmt.Errorf("%w: %s session %s continues graft session %s, which was handed off: the work goes on in %s; %s",
			session.ErrRetired, host, hid, fr.Session, fr.HandedOffTo, what)
	}
	return &ImportResult{Summary: fr.Import, Followed: fr}, true, nil
}

// pathProgress is progress for one transcript, path; nil when progress is.
func pathProgress(progress func(path string, read, total int64), path string) func(read, total int64) {
	if progress == nil {
		return nil
	}
	return func(read, total int64) { progress(path, read, total) }
}
