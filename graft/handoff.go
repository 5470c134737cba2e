package graft

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/foldcache"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/version"
	"github.com/graft-project/graft/vfs"
)

// HandoffOptions: one host transcript in, one resumable host session out.
type HandoffOptions struct {
	// Host is where the session lives; To is where it goes on ("": the
	// same host). A session handed off to another host keeps its lineage
	// and origins: the tape is graft's, whatever host reads it.
	Host hosts.Host
	To   hosts.Host
	// Transcript is the host's transcript; with HostSessionID alone it is
	// found the way the host finds it (hosts.FindTranscript).
	Transcript    string
	HostSessionID string
	// Cwd is the working directory of the new host session; it must
	// exist. "" is the directory the session worked in (its events name
	// it) when that still exists, else the process's.
	Cwd     string
	Prepare PrepareOptions
	// Target is the new session's id; "" picks <source>.g<N>.
	Target string
	// Confirm is asked with the review and the notes before the commit;
	// nil commits.
	Confirm func(rv *Review, notes []string) (bool, error)
	// Progress, when set, is called as the transcript is read: its path
	// (given, or found by the host session id), the bytes read, its size.
	Progress func(path string, read, total int64)
}

// HandoffResult is what a handoff did, step by step. Review is set once
// prepared; Commit and Export once committed and exported.
type HandoffResult struct {
	// GraftVersion is the build that ran the handoff (version.Info.Short).
	GraftVersion  string              `json:"graftVersion"`
	Host          hosts.Host          `json:"host"`
	To            hosts.Host          `json:"to"`
	HostSessionID string              `json:"hostSessionId,omitempty"`
	Path          string              `json:"path,omitempty"`
	ResumeCommand string              `json:"resumeCommand,omitempty"`
	Committed     bool                `json:"committed"`
	Follow        *hosts.FollowResult `json:"follow"`
	Review        *Review             `json:"review,omitempty"`
	Commit        *CommitResult       `json:"commit,omitempty"`
	Export        *hosts.ExportResult `json:"export,omitempty"`
	// Notes say what a person should know of where the new host session
	// went (the directory the session worked in, not the current one).
	Notes []string `json:"notes,omitempty"`
	// Finished is set when this run committed nothing: the same handoff
	// committed earlier and was stopped before its export (killed), which
	// this run, or this process's recovery scan, finished. Commit then
	// describes that earlier commit.
	Finished *OwedDone `json:"finished,omitempty"`
}

// Handoff imports what is new in a host transcript (following the session
// it continues), prepares a review, asks Confirm, commits, and exports the
// target as a new host session. ctx cancels the prepare and the commit up
// to its journal record (see Prepare and Commit).
func (s *Service) Handoff(ctx context.Context, o HandoffOptions) (*HandoffResult, error) {
	// Checked first so that a bad directory writes nothing.
	cwd, err := hosts.RealDir(o.Cwd)
	if err != nil {
		return nil, err
	}
	path := o.Transcript
	if path == "" {
		if o.HostSessionID == "" {
			return nil, fmt.Errorf("%w: handoff needs a transcript or a host session id", hosts.ErrNoTranscript)
		}
		if path, err = hosts.FindTranscript(o.Host, o.HostSessionID, cwd); err != nil {
			return nil, err
		}
	}
	fr, err := s.Follow(o.Host, path, o.HostSessionID, "", pathProgress(o.Progress, path))
	if err != nil {
		return nil, err
	}
	to := o.To
	if to == "" {
		to = o.Host
	}
	res := &HandoffResult{GraftVersion: version.Get().Short(), Host: o.Host, To: to, Follow: fr}
	if fr.HandedOffTo != "" {
		// The same handoff again, after it was stopped between its commit
		// and its export: finish that export (issue 24, item 1).
		d, err := s.ownedBy(o.Host, fr.HostSessionID, fr.HandedOffTo)
		if err != nil {
			return res, fmt.Errorf("%s session %s was handed off to %s, whose export is owed but could not be finished: %w", o.Host, fr.HostSessionID, fr.HandedOffTo, err)
		}
		if d != nil {
			return s.finishedHandoff(res, d)
		}
		// The person needs the host session to resume, not graft's id.
		where := fmt.Sprintf("hand off graft session %s instead, or export it (graft export %s %s)", fr.HandedOffTo, o.Host, fr.HandedOffTo)
		if all, lerr := s.Bindings().List(); lerr == nil {
			for _, b := range hosts.OfSession(all, fr.HandedOffTo) {
				if b.Role == hosts.RoleExported {
					where = "resume it there: " + hosts.ResumeCommand(b.Host, b.HostSessionID)
				}
			}
		}
		return res, fmt.Errorf("%w: %s session %s continues graft session %s, which was already handed off: the work goes on in %s (see graft status); %s. New lines of this one are not merged",
			session.ErrRetired, o.Host, fr.HostSessionID, fr.Session, fr.HandedOffTo, where)
	}
	rv, err := s.Prepare(ctx, fr.Session, o.Prepare)
	if err != nil {
		return res, err
	}
	res.Review = rv
	if o.Cwd == "" && rv.Cwd != "" {
		// The new host session goes where the work happened: Claude Code
		// finds a session by the folder of the directory it runs in.
		if real, err := hosts.RealDir(rv.Cwd); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("the session worked in %s, which is gone: the new session is exported into the current directory, %s", rv.Cwd, cwd))
		} else if real != cwd {
			res.Notes = append(res.Notes, fmt.Sprintf("the new session is exported into %s, where the session worked, not into the current directory %s: resume it from there (or hand off with --cwd)", real, cwd))
			cwd = real
		}
	}
	notes, cont, err := instructionNotes(o.Host, to, cwd, true)
	if err != nil {
		return res, err
	}
	res.Notes = append(res.Notes, notes...)
	if n, err := goalNote(rv.HostGoal, to, cwd); err != nil {
		return res, err
	} else if n != "" {
		res.Notes = append(res.Notes, n)
	}
	if cont != nil {
		// The agent is told too: the tape names the files to read first.
		// The folder the new session goes to is known only now (rv.Cwd),
		// so the tape is prepared again (its fold from the cache); the
		// first review is left to expire.
		p := o.Prepare
		p.Tape.Continues = cont
		if rv, err = s.Prepare(ctx, fr.Session, p); err != nil {
			return res, err
		}
		res.Review = rv
	}
	if o.Confirm != nil {
		// The person decides with the review and the notes: where the new
		// session goes, and what of the project does not go with it.
		ok, err := o.Confirm(rv, res.Notes)
		if err != nil || !ok {
			return res, err
		}
	}
	owe, err := oweOf(to, fr.HostSessionID, cwd)
	if err != nil {
		return res, err
	}
	cr, d, err := s.commitOwing(ctx, rv.PreparedID, rv.TapeHash, o.Target, owe)
	if cr != nil {
		res.Commit, res.Committed = cr, true
	}
	if err != nil {
		return res, err
	}
	res.Export = d.Export
	res.HostSessionID, res.Path, res.ResumeCommand = d.Export.HostSessionID, d.Export.Path, d.Export.ResumeCommand
	return res, nil
}

// commitOwing commits a prepared review with the export it owes owe's
// host session as part of the commit's durable intent (the record, then
// the catalog with the lineage, say the target is owed, so that a kill
// before the export is finished by whoever comes next), then writes that
// export. The one commit-then-export of graft handoff and MCP's
// graft_commit. A failed export leaves the commit result and the export
// owed.
func (s *Service) commitOwing(ctx context.Context, preparedID, tapeHash, target string, owe *journal.Owe) (*CommitResult, *OwedDone, error) {
	cr, err := s.commit(ctx, preparedID, tapeHash, target, owe)
	if err != nil {
		return nil, nil, err
	}
	owed := catalog.Owed{Target: cr.TargetID, Txn: cr.TxnID, Source: cr.Source, Host: owe.Host, Cwd: owe.Cwd, Root: owe.Root, HostSession: owe.HostSession}
	d, err := s.finishOwed(owed, exportWait)
	if err != nil {
		return cr, nil, fmt.Errorf("the graft %s → %s is committed, but exporting it failed; the export stays owed (graft status names it) and the next graft command retries it, or run graft export %s %s --cwd %s once fixed: %w", cr.Source, cr.TargetID, owe.Host, cr.TargetID, owe.Cwd, err)
	}
	if d.Export == nil {
		return cr, nil, fmt.Errorf("the graft %s → %s is committed, but not exported: %s", cr.Source, cr.TargetID, d.Void)
	}
	return cr, d, nil
}

// CommitToHost is Commit for a source that lives in a host (its primary
// binding, as the hooks or a handoff bound it): the target is owed to that
// host, or to host to when set (the work goes on in another host), as a
// new host session in cwd (the binding's directory when it still exists),
// and written before it returns. ex is nil when the source lives in no
// host and to is unset; a failed export returns the commit result with
// the error, the export staying owed. notes name the instruction files of
// the project the source's host reads and another host to does not
// (instructionNotes). A review prepared for the work to go on in another
// host (ContinuationTo: its tape tells the agent so) is committed to that
// host only.
func (s *Service) CommitToHost(ctx context.Context, preparedID, tapeHash, target, cwd string, to hosts.Host) (cr *CommitResult, ex *hosts.ExportResult, notes []string, err error) {
	rv, err := s.PreparedReview(preparedID)
	if err != nil {
		return nil, nil, nil, err
	}
	b, cwd, err := s.hostOf(rv.Source, cwd)
	if err != nil {
		return nil, nil, nil, err
	}
	if b == nil && to != "" {
		return nil, nil, nil, fmt.Errorf("%w: %s lives in no host session, so none is handed off to %s: commit it, then graft export %s <target>", ErrInvalidOptions, rv.Source, to, to)
	}
	cont := rv.Options.Continues
	if b == nil {
		if cont != nil {
			return nil, nil, nil, fmt.Errorf("%w: review %s was prepared for the work to go on in %s, but %s lives in no host session any more: prepare it again", ErrInvalidOptions, preparedID, cont.To, rv.Source)
		}
		cr, err := s.Commit(ctx, preparedID, tapeHash, target)
		return cr, nil, nil, err
	}
	if to == "" {
		to = b.Host
	}
	if cont != nil {
		h, err := hosts.Of(to)
		if err != nil {
			return nil, nil, nil, err
		}
		if h.Title() != cont.To {
			return nil, nil, nil, fmt.Errorf("%w: review %s was prepared for the work to go on in %s (its tape tells the agent so), not in %s: commit it to that host, or prepare again", ErrInvalidOptions, preparedID, cont.To, to)
		}
	}
	owe, err := oweOf(to, b.HostSessionID, cwd)
	if err != nil {
		return nil, nil, nil, err
	}
	if notes, _, err = instructionNotes(b.Host, to, cwd, cont != nil); err != nil {
		return nil, nil, nil, err
	}
	if n, err := goalNote(rv.HostGoal, to, cwd); err != nil {
		return nil, nil, nil, err
	} else if n != "" {
		notes = append(notes, n)
	}
	cr, d, err := s.commitOwing(ctx, preparedID, tapeHash, target, owe)
	if err != nil {
		return cr, nil, notes, err
	}
	return cr, d.Export, notes, nil
}

// hostOf is the host session source lives in (its primary binding), nil
// when none, and the directory its new host session goes to: the
// binding's when it still exists, else cwd.
func (s *Service) hostOf(source, cwd string) (*hosts.Binding, string, error) {
	all, err := s.Bindings().List()
	if err != nil {
		return nil, cwd, err
	}
	b := hosts.Primary(all, source)
	if b != nil && b.Cwd != "" {
		if _, err := hosts.RealDir(b.Cwd); err == nil {
			cwd = b.Cwd
		}
	}
	return b, cwd, nil
}

// ContinuationTo is what the tape of source tells the agent when the work
// goes on in host to, not in the host source lives in (MCP's graft_prepare
// with to; graft handoff --to finds the same): the instruction files that
// host read in the session's folder and to does not, to read first
// (tape.Options.Continues; nil for the same host or none left behind), and
// the notes for the person. A source that lives in no host session is
// refused: nothing is handed off.
func (s *Service) ContinuationTo(source string, to hosts.Host, cwd string) (*tape.Continuation, []string, error) {
	b, dir, err := s.hostOf(source, cwd)
	if err != nil {
		return nil, nil, err
	}
	if b == nil {
		return nil, nil, fmt.Errorf("%w: %s lives in no host session, so none is handed off to %s", ErrInvalidOptions, source, to)
	}
	notes, cont, err := instructionNotes(b.Host, to, dir, true)
	return cont, notes, err
}

// goalNote tells the person what becomes of the goal the source's host
// kept (its /goal, g) in a handoff to host to. A host that restores a
// goal from its session file (adapter.GoalCarrier) gets it in the export
// when the target's inherit carries it (tape.HostGoal.Carried: active,
// whole): it goes on in the new session, and the note says when, unless
// a setting of the person's holds the host back (adapter.GoalHolder:
// Claude Code with its hooks restricted), which the note names. Else
// each host keeps it per session, so the new session has none until they
// set it again, with the command to (adapter.Goals) takes; a host without
// one carries it only as the tape's Task Status. None for no goal, or one
// met or failed.
func goalNote(g *tape.HostGoal, to hosts.Host, dir string) (string, error) {
	if g == nil || g.Status == session.GoalComplete || g.Status == session.GoalFailed {
		return "", nil
	}
	h, err := hosts.Of(to)
	if err != nil {
		return "", err
	}
	said := fmt.Sprintf("the goal you set with /goal was %s at seq=%d", g.Status, g.Seq)
	if gc, ok := h.(adapter.GoalCarrier); ok && g.Carried() {
		held := ""
		if gh, ok := h.(adapter.GoalHolder); ok {
			var err error
			if held, err = gh.GoalHeldBy(dir); err != nil {
				return fmt.Sprintf("%s: it should go on in the new session (%s), but whether %s allows it could not be checked: %v; if %s has no goal there, set it again with %s", said, gc.GoalGoesOn(), h.Title(), err, h.Title(), gc.GoalCommand(g.Objective)), nil
			}
		}
		if held == "" {
			return fmt.Sprintf("%s: it goes on in the new session: %s (%s)", said, gc.GoalGoesOn(), g.Objective), nil
		}
		return fmt.Sprintf("%s: it does not go on in the new session: %s; lift that, then set it again there with %s", said, held, gc.GoalCommand(g.Objective)), nil
	}
	if gl, ok := h.(adapter.Goals); ok {
		return fmt.Sprintf("%s: %s keeps the goal of a session with the session: set it again in the new one with %s", said, h.Title(), gl.GoalCommand(g.Objective)), nil
	}
	return fmt.Sprintf("%s: %s has no /goal: the goal goes on only as the tape's Task Status (%s)", said, h.Title(), g.Objective), nil
}

// instructionNotes name each instruction file in dir that host from reads
// into its model's context and host to does not: a handoff from one to the
// other carries the tape, not the host's injections, so its rules stay
// behind. None for the same host. A file that cannot be checked is a note
// too; a host graft does not know is an error. cont names the files for
// the tape (tape.Options.Continues), nil when there is none; told says
// the tape carries it (graft handoff), else the person is to ask the agent.
func instructionNotes(from, to hosts.Host, dir string, told bool) (notes []string, cont *tape.Continuation, err error) {
	if from == to {
		return nil, nil, nil
	}
	a, err := hosts.Of(from)
	if err != nil {
		return nil, nil, err
	}
	b, err := hosts.Of(to)
	if err != nil {
		return nil, nil, err
	}
	left, err := hosts.InstructionFilesLeft(a, b, dir)
	ask := "ask the agent to read it first"
	if told {
		ask = "the tape tells the agent to read it first"
	}
	var unread []string
	for _, p := range left {
		notes = append(notes, fmt.Sprintf("%s reads %s into its model's context; %s does not read %s, so the new session does not see its rules unless its agent reads it (%s), or copy them into %s",
			a.Title(), p, b.Title(), filepath.Base(p), ask, strings.Join(b.InstructionFiles(), " or ")))
		unread = append(unread, filepath.Base(p))
	}
	if err != nil {
		notes = append(notes, fmt.Sprintf("could not check which instruction files in %s %s does not read: %v", dir, b.Title(), err))
	}
	// The person's own rules in the first host's folder: read into every
	// session there, never by another host.
	own, err := a.UserInstructionFiles()
	for _, p := range own {
		notes = append(notes, fmt.Sprintf("%s reads your own rules in %s into every session; %s does not read it (%s), or copy them into its own",
			a.Title(), p, b.Title(), ask))
		unread = append(unread, homeShort(p))
	}
	if err != nil {
		notes = append(notes, fmt.Sprintf("could not check which of your own instruction files %s reads: %v", a.Title(), err))
	}
	if len(unread) > 0 {
		cont = &tape.Continuation{From: a.Title(), To: b.Title(), Unread: unread}
	}
	return notes, cont, nil
}

// homeShort is p with the home directory as "~" (what the agent can read
// and a person recognises), else p.
func homeShort(p string) string {
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		return p
	}
	if rel, err := filepath.Rel(h, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return "~/" + filepath.ToSlash(rel)
	}
	return p
}

// finishedHandoff is the result of a handoff run that found its own
// earlier commit owed an export, now written.
func (s *Service) finishedHandoff(res *HandoffResult, d *OwedDone) (*HandoffResult, error) {
	info, err := s.store.Info(d.Target)
	if err != nil {
		return res, err
	}
	cr := &CommitResult{TargetID: d.Target, TxnID: d.Txn, Source: d.Source, Generation: info.Generation(),
		Notes: []string{fmt.Sprintf("committed earlier (txn %s); that handoff was stopped before its export, which is written now", d.Txn)}}
	if o := info.Origin; o != nil {
		cr.TapeHash, cr.TapeEvents, cr.BoundarySeq = o.TapeHash, o.TapeEvents, o.ParentBoundary
	}
	res.Commit, res.Committed, res.Finished, res.Export = cr, true, d, d.Export
	res.HostSessionID, res.Path, res.ResumeCommand = d.Export.HostSessionID, d.Export.Path, d.Export.ResumeCommand
	return res, nil
}

// Export writes a graft target as a host session (hosts.Export), under
// the target's import lock. An export owed to the same host by a handoff
// is done by it: its owed record is deleted.
func (s *Service) Export(target string, host hosts.Host, cwd string) (ex *hosts.ExportResult, err error) {
	if err := session.ValidID(target); err != nil {
		return nil, err
	}
	l, err := s.importLock(target, exportWait)
	if err != nil {
		return nil, err
	}
	defer func() {
		if uerr := l.Unlock(); uerr != nil {
			err = errors.Join(err, fmt.Errorf("graft: releasing the import lock of %s: %w", target, uerr))
		}
	}()
	ex, err = hosts.Export(hosts.ExportOptions{Store: s.store, Home: s.Home, Bindings: s.Bindings(), Session: target, Host: host, Cwd: cwd, Now: s.Now})
	if err != nil {
		return nil, err
	}
	owed, err := s.OwedExports()
	if err != nil {
		return ex, fmt.Errorf("graft: %s is exported (%s), but the owed exports were not read: %w", target, ex.ResumeCommand, err)
	}
	for _, o := range owed {
		if o.Target == target && o.Host == string(host) {
			if err := s.deleteOwed(o); err != nil {
				return ex, fmt.Errorf("graft: %s is exported (%s), but its owed record was not deleted: %w", target, ex.ResumeCommand, err)
			}
		}
	}
	return ex, nil
}

// Follow brings a host transcript's new lines into the session it
// continues (hosts.Follow).
// cwd, when set, records the host session as last seen there (hooks).
//
// A host session bound to nothing may be the file of an export a handoff
// owes, written but not bound when the handoff was stopped: that export is
// finished first, so the file goes on in its graft target instead of
// starting a new lineage (issue 24, item 2).
func (s *Service) Follow(host hosts.Host, path, hostSessionID, cwd string, progress func(read, total int64)) (*hosts.FollowResult, error) {
	hid := strings.ToLower(hostSessionID)
	if hid == "" {
		hid, _ = hosts.HostSessionIDFromPath(host, path) // hosts.Follow says why it has none
	}
	if hid != "" && hosts.ValidHostSessionID(hid) == nil {
		_, err := s.Bindings().Load(host, hid)
		switch {
		case errors.Is(err, hosts.ErrNoBinding):
			if err := s.finishOrphan(host, hid); err != nil {
				return nil, fmt.Errorf("graft: %s session %s is the export a handoff owes, which could not be finished: %w", host, hid, err)
			}
		case err != nil:
			return nil, err
		}
	}
	return hosts.Follow(hosts.FollowOptions{Store: s.store, Home: s.Home, Bindings: s.Bindings(), Host: host, Path: path, HostSessionID: hostSessionID, Cwd: cwd, Now: s.Now, Progress: progress, LockWait: s.lockWait()})
}

// ConstraintsBlock is the Anchor + Hard Constraints block of source's tape
// (with the origins of every constraint), built as prepare builds it but
// without storing a review: what a host is given again after it compacted
// the session on its own. A host that keeps only the first max characters
// of it, counted by length (adapter.Hooks.ContextCap: CompactContextMax
// and CompactContextLen for PreCompact, ContextMax and ContextLen for the
// other events, less what the hook joins with the block; max 0: no cap),
// gets it within them: its newest
// constraints cut with a cut line that names them (tape.Builder.
// ConstraintsBlock); tape.ErrBudget when even its anchor line and heading
// do not fit.
func (s *Service) ConstraintsBlock(source string, max int, length func(string) int) (string, error) {
	var text string
	_, err := s.folds().FoldThen(context.Background(), source, func(fo *foldcache.Fold, f vfs.File) error {
		var err error
		text, err = fo.Builder.ConstraintsBlock(tape.Options{}, foldcache.LogOutputs{F: f, Path: s.store.Path(source)}, max, length)
		return err
	})
	if err != nil {
		return "", err
	}
	return text, nil
}

// HostSession names the host session an agent asked graft to work on, and
// how graft found it.
type HostSession struct {
	Host          hosts.Host `json:"host"`
	HostSessionID string     `json:"hostSessionId"`
	Transcript    string     `json:"transcript"`
	// Picked says how: "given" (a transcript or id was passed), "hooks"
	// (the session the hooks followed last in cwd), "newest" (the newest
	// Claude Code transcript of cwd's project folder, as claude --continue).
	Picked string `json:"picked"`
}

// FindHostSession resolves the host session an agent means: its transcript
// or id when given, else the one the hooks followed last in cwd, else (for
// Claude Code) the newest transcript of cwd's project folder.
func (s *Service) FindHostSession(host hosts.Host, transcript, hostSessionID, cwd string) (*HostSession, error) {
	hs := &HostSession{Host: host, Picked: "given"}
	if hostSessionID != "" {
		// The same rule as a hook's: a lower-case uuid, as the hosts name
		// their sessions.
		if err := hosts.ValidHostSessionID(hostSessionID); err != nil {
			return nil, err
		}
	}
	switch {
	case transcript != "":
		hs.Transcript = transcript
		if hostSessionID == "" {
			id, err := hosts.HostSessionIDFromPath(host, transcript)
			if err != nil {
				return nil, err
			}
			hostSessionID = id
		}
		hs.HostSessionID = hostSessionID
		return hs, nil
	case hostSessionID != "":
		p, err := hosts.FindTranscript(host, hostSessionID, cwd)
		if err != nil {
			return nil, err
		}
		hs.Transcript, hs.HostSessionID = p, hostSessionID
		return hs, nil
	}
	real, err := hosts.RealDir(cwd)
	if err != nil {
		return nil, err
	}
	all, err := s.Bindings().List()
	if err != nil {
		return nil, err
	}
	if b := hosts.Recent(all, host, real); b != nil {
		if others := activeBeside(all, host, real, b); len(others) > 0 {
			// Two terminals in one directory: which one this agent runs in
			// is not for graft to guess (issue 24, item 7).
			list := []string{fmt.Sprintf("%s (last active %s)", b.HostSessionID, b.LastSeen)}
			for _, o := range others {
				list = append(list, fmt.Sprintf("%s (last active %s)", o.HostSessionID, o.LastSeen))
			}
			return nil, fmt.Errorf("%w: %d %s sessions were active in %s within %s of each other: %s; name the one this agent runs in (its host session id or its transcript)",
				ErrAmbiguousHostSession, len(list), host, real, ambiguousWithin, strings.Join(list, ", "))
		}
		hs.Transcript, hs.HostSessionID, hs.Picked = b.Path, b.HostSessionID, "hooks: the "+string(host)+" session followed last in "+real+" ("+b.LastSeen+")"
		return hs, nil
	}
	p, ok, err := hosts.NewestTranscript(host, real)
	if ok {
		if err != nil {
			return nil, err
		}
		id, err := hosts.HostSessionIDFromPath(host, p)
		if err != nil {
			return nil, err
		}
		a, err := hosts.Of(host)
		if err != nil {
			return nil, err
		}
		hs.Transcript, hs.HostSessionID, hs.Picked = p, id, "newest: the newest "+a.Title()+" transcript of "+real+" (as "+a.(adapter.Continuer).ContinueCommand()+" picks it)"
		return hs, nil
	}
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: no %s session was followed in %s (install the hooks: graft hook install %s); pass the transcript or the host session id", hosts.ErrNoTranscript, host, real, host)
}

// ambiguousWithin is how close two host sessions' last activity in one
// directory must be for FindHostSession not to pick the later one alone.
const ambiguousWithin = 10 * time.Minute

// activeBeside are the other host sessions of host the hooks followed in
// cwd within ambiguousWithin of b's last activity.
func activeBeside(all []hosts.Binding, host hosts.Host, cwd string, b *hosts.Binding) []hosts.Binding {
	last, err := time.Parse(time.RFC3339Nano, b.LastSeen)
	if err != nil {
		return nil
	}
	var out []hosts.Binding
	seen := map[string]bool{b.HostSessionID: true}
	for _, o := range all {
		if o.Host != host || o.Cwd != cwd || o.LastSeen == "" || seen[o.HostSessionID] {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, o.LastSeen)
		if err != nil || last.Sub(t) > ambiguousWithin {
			continue
		}
		seen[o.HostSessionID] = true
		out = append(out, o)
	}
	return out
}
