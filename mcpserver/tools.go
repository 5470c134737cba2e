package mcpserver

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/nonnil"
	"github.com/graft-project/graft/recovery"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
)

// Tool names.
const (
	ToolPrepare = "graft_prepare"
	ToolCommit  = "graft_commit"
	ToolRecall  = "graft_recall"
	ToolStatus  = "graft_status"
	ToolFind    = "graft_find"
	ToolRevert  = "graft_revert"
)

func prepareTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  ToolPrepare,
		Title: "Prepare a graft (review)",
		Description: `Call when the session's context is running out, instead of compacting: builds the tape the new session would start with (breakpoint, hard constraints with their origins, goal, task status, files, pending state, sub-agent reports, recall index) and stores a review. To graft the ` + hosts.Titles(", ", " or ") + ` session you run in, pass host (and transcript or hostSessionId if you know it): its new turns are imported first and the review says which session was picked; when the work is to go on in another host (the user's quota ran out here), pass to as well, and graft_commit with that host. Writes no session but that import.
Next: show the review to the user (goal, constraints, leftovers, warnings, the tape); when the user approves, call graft_commit with this preparedId and tapeHash. If nextOffset is set the tape continues: call graft_prepare with {preparedId, offset: nextOffset} (this reads the stored review, it does not prepare a new one).`,
		Annotations: &mcp.ToolAnnotations{
			Title: "Prepare a graft", ReadOnlyHint: false, DestructiveHint: boolPtr(false),
			IdempotentHint: false, OpenWorldHint: boolPtr(false),
		},
	}
}

func commitTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  ToolCommit,
		Title: "Commit a prepared graft",
		Description: `Call only after the user approved a review from graft_prepare: writes the tape into a new target session as a journaled, crash-safe transaction and retires the source (never deleted). Refused with boundary_drift when a new human message arrived since the review: prepare again. If only the open turn grew, it commits the newer tape and says so in notes: tell the user.
When the source lives in a host (prepared with host, or exported before), the target is exported as a new host session: hostSession.resumeCommand is what the user runs to continue there.
Next: continue the work in targetId (in a host: tell the user the resume command); graft_recall reads any seq of the source; graft_revert {target} undoes the graft.`,
		Annotations: &mcp.ToolAnnotations{
			Title: "Commit a graft", ReadOnlyHint: false, DestructiveHint: boolPtr(true),
			IdempotentHint: false, OpenWorldHint: boolPtr(false),
		},
	}
}

func recallTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  ToolRecall,
		Title: "Recall one event",
		Description: `Reads the event at a seq of any session, retired and abandoned ones included: call it for every "recall seq=N" a tape cites before relying on what the tape only summarises, and to re-read a constraint's origin. Read-only.
Long payloads come in chunks: when nextOffset is set, call again with the same session and seq and offset=nextOffset.`,
		Annotations: &mcp.ToolAnnotations{
			Title: "Recall an event", ReadOnlyHint: true, IdempotentHint: true,
			OpenWorldHint: boolPtr(false),
		},
	}
}

func findTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  ToolFind,
		Title: "Find events by words",
		Description: `Lists the events of any session, retired and abandoned ones included, that hold every word (case folded, any order), newest first, each with its seq and the text around the first word: for what a tape did not cite, search the session its Handoff block says it continues. Searches the person's and the assistant's text, tool calls' inputs (a file written: its text), tool outputs and todos. Read-only.
Next: graft_recall {session, seq} reads a match whole; when older is set, more matches follow: call again with the same words and before=older; when continues is set (a graft target), what its tape did not carry is in that session: call graft_find with it.`,
		Annotations: &mcp.ToolAnnotations{
			Title: "Find events", ReadOnlyHint: true, IdempotentHint: true,
			OpenWorldHint: boolPtr(false),
		},
	}
}

func statusTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  ToolStatus,
		Title: "Graft status",
		Description: `Lists sessions with their state (active, retired, abandoned, uncommitted), generation, parent and target, and head (the session to continue in); transactions in flight; leftovers of crashed grafts; and the recovery scan this server ran at start-up. Read-only. Call it first to find the session ids, and whenever an error says so.
When nextOffset is set, more sessions follow: call again with offset=nextOffset.`,
		Annotations: &mcp.ToolAnnotations{
			Title: "Graft status", ReadOnlyHint: true, IdempotentHint: true,
			OpenWorldHint: boolPtr(false),
		},
	}
}

func revertTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  ToolRevert,
		Title: "Revert a graft",
		Description: `Undoes a committed graft when the user asks for it: the source becomes active again and the target is abandoned (kept on disk, never resumable). Refused with has_new_events when work was done in the target since the graft; force=true abandons that work too, so ask the user first.
Next: continue in the source.`,
		Annotations: &mcp.ToolAnnotations{
			Title: "Revert a graft", ReadOnlyHint: false, DestructiveHint: boolPtr(true),
			IdempotentHint: false, OpenWorldHint: boolPtr(false),
		},
	}
}

func (s *server) prepare(ctx context.Context, in PrepareInput) (PrepareOutput, error) {
	if in.PreparedID != "" {
		if in.Tier != "" || in.RecentTurns != 0 || in.AutoTier || in.Budget != 0 || in.AllowReslice || in.To != "" {
			return PrepareOutput{}, inputErrorf("preparedId reads the stored review %s, whose options are fixed: pass only preparedId and offset, or leave preparedId out to prepare a new review", in.PreparedID)
		}
		rv, err := s.svc.PreparedReview(in.PreparedID)
		if err != nil {
			return PrepareOutput{}, err
		}
		if in.Source != "" && in.Source != rv.Source {
			return PrepareOutput{}, inputErrorf("review %s is of session %s, not %s", in.PreparedID, rv.Source, in.Source)
		}
		return s.review(rv, in.Offset)
	}
	if in.Offset != 0 {
		return PrepareOutput{}, inputErrorf("offset %d pages the tape of a stored review: pass its preparedId too", in.Offset)
	}
	var to hosts.Host
	if in.To != "" {
		h, err := hosts.ParseHost(in.To)
		if err != nil {
			return PrepareOutput{}, inputErrorf("to: %v", err)
		}
		to = h
	}
	var hs *graft.HostSession
	if in.Host == "" && in.Source == "" && in.Transcript != "" && in.HostSession == "" {
		// A transcript alone is its host's by its first lines, as
		// graft import <file> tells it.
		h, err := hosts.Detect(in.Transcript)
		if err != nil {
			return PrepareOutput{}, err
		}
		in.Host = string(h)
	}
	if in.Host != "" {
		if in.Source != "" {
			return PrepareOutput{}, inputErrorf("pass source (a graft session) or host (the host session this agent runs in), not both")
		}
		host, err := hosts.ParseHost(in.Host)
		if err != nil {
			return PrepareOutput{}, inputErrorf("%v", err)
		}
		if hs, err = s.svc.FindHostSession(host, in.Transcript, in.HostSession, s.cwd()); err != nil {
			return PrepareOutput{}, err
		}
		// The graft session the host session is bound to is known once
		// Follow has run: Follow runs under the host session's lock.
		unlock, err := s.locks.lock(ctx, "host:"+string(host)+":"+hs.HostSessionID)
		if err != nil {
			return PrepareOutput{}, err
		}
		fr, err := s.svc.Follow(host, hs.Transcript, hs.HostSessionID, "", nil)
		unlock()
		if err != nil {
			return PrepareOutput{}, err
		}
		if fr.HandedOffTo != "" {
			return PrepareOutput{}, fmt.Errorf("%w: %s session %s (%s) was already handed off: the work goes on in graft session %s", session.ErrRetired, host, hs.HostSessionID, hs.Picked, fr.HandedOffTo)
		}
		in.Source = fr.Session
	} else if in.Transcript != "" || in.HostSession != "" {
		return PrepareOutput{}, inputErrorf("hostSessionId goes with host (%s), and transcript with host or alone, not with source", hosts.Names(", ", " or "))
	}
	if in.Source == "" {
		return PrepareOutput{}, inputErrorf("source or host is required: the id of the graft session to graft (graft_status lists them), or host to graft the host session this agent runs in")
	}
	unlock, err := s.locks.lock(ctx, in.Source)
	if err != nil {
		return PrepareOutput{}, err
	}
	defer unlock()
	opts := graft.PrepareOptions{Tape: s.tapeOptions(in), AllowReslice: in.AllowReslice}
	var notes []string
	if to != "" {
		// The work goes on in another host: the tape tells the agent what
		// that host does not read (as graft handoff --to).
		if opts.Tape.Continues, notes, err = s.svc.ContinuationTo(in.Source, to, s.cwd()); err != nil {
			return PrepareOutput{}, err
		}
	}
	rv, err := s.svc.Prepare(ctx, in.Source, opts)
	if err != nil {
		return PrepareOutput{}, err
	}
	out, err := s.review(rv, 0)
	out.Warnings = append(out.Warnings, notes...)
	if hs != nil {
		out.HostSession = &HostSession{Host: string(hs.Host), HostSessionID: hs.HostSessionID, Transcript: hs.Transcript, Picked: hs.Picked}
		out.Next = fmt.Sprintf("tell the user which host session this is (%s %s, picked: %s); then %s", hs.Host, hs.HostSessionID, hs.Picked, out.Next)
	}
	return out, err
}

// cwd is the directory whose host session graft_prepare {host} picks.
func (s *server) cwd() string {
	if s.opts.Cwd != "" {
		return s.opts.Cwd
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// tapeOptions are the call's tape options over the server's Defaults: an
// option the call leaves out (zero) is the default's. Tier and recentTurns
// go together, so that a call's tier is not overridden by a default
// recentTurns.
func (s *server) tapeOptions(in PrepareInput) tape.Options {
	o := s.opts.Defaults
	if in.Tier != "" || in.RecentTurns != 0 {
		o.Tier, o.RecentTurns = in.Tier, in.RecentTurns
	}
	if in.AutoTier {
		o.AutoTier = true
	}
	if in.Budget != 0 {
		o.Budget = in.Budget
	}
	return o
}

// review renders a review with one chunk of its tape.
func (s *server) review(rv *graft.Review, offset int) (PrepareOutput, error) {
	page, err := pageOf(rv.Tape, offset, s.opts.ChunkChars)
	if err != nil {
		return PrepareOutput{}, fmt.Errorf("tape of review %s: %w", rv.PreparedID, err)
	}
	out := PrepareOutput{
		PreparedID: rv.PreparedID, Source: rv.Source, BoundarySeq: rv.BoundarySeq, LastSeq: rv.LastSeq,
		Generation: rv.Generation, Goal: []Quote{}, Progress: rv.Progress, HostGoal: hostGoal(rv.HostGoal), Constraints: constraints(rv.Constraints),
		MoreConstraints: moreConstraints(rv.MoreConstraints), Leftovers: []Leftover{}, TapeChars: rv.TapeChars, CarryoverChars: rv.CarryoverChars,
		TapeHash: rv.TapeHash, PrefixHash: rv.PrefixHash, Warnings: nonnil.Slice(rv.Warnings),
		Tier: rv.Options.Tier, RecentTurns: rv.Options.RecentTurns, Budget: rv.Options.Budget,
		AllowReslice: rv.AllowReslice, Expires: rv.Expires.UTC().Format(time.RFC3339),
		Tape: page.Text, TapeOffset: offset, NextOffset: page.Next,
	}
	for _, q := range rv.Goal {
		out.Goal = append(out.Goal, quote(q))
	}
	for _, l := range rv.Leftovers {
		out.Leftovers = append(out.Leftovers, Leftover{Source: rv.Source, Target: l.Target, Txn: l.Txn, State: l.State, Reason: l.Reason})
	}
	commit := fmt.Sprintf("show this review to the user (goal, constraints with their origins, leftovers, warnings, tape); when the user approves, call graft_commit with preparedId=%q and tapeHash=%q before %s", rv.PreparedID, rv.TapeHash, out.Expires)
	if page.Next != 0 {
		out.Next = fmt.Sprintf("the tape continues (%d of %d characters shown): call graft_prepare with preparedId=%q and offset=%d for the next chunk; then %s", page.Next, page.Total, rv.PreparedID, page.Next, commit)
	} else {
		out.Next = commit
	}
	return out, nil
}

func quote(q session.Quote) Quote {
	return Quote{
		Text:   clip(q.Text, quoteChars, fmt.Sprintf("graft_recall session=%s seq=%d reads the whole message", q.Origin.Session, q.Origin.Seq)),
		Origin: origin(q.Origin),
	}
}

func origin(o session.Origin) Origin {
	return Origin{Generation: o.Generation, Session: o.Session, Seq: o.Seq}
}

// commandText is the command's text an instruction handed down came with.
func commandText(c *session.CommandText) *CommandText {
	if c == nil {
		return nil
	}
	return &CommandText{At: c.At, First: c.First, Rule: c.Rule}
}

// callNotes are tool calls a graft/origin handed down by their lines
// (failures, workarounds, milestones), each line clipped as the other
// inherited texts are; nil for none.
func callNotes(fs []session.CallNote) []CallNote {
	var out []CallNote
	for _, f := range fs {
		out = append(out, CallNote{Tool: f.Tool, What: f.What, Text: inheritedText(f.Text, f.Origin), Origin: origin(f.Origin)})
	}
	return out
}

// picks are the options an answer handed down named.
func picks(p *session.Picks) *Picks {
	if p == nil {
		return nil
	}
	return &Picks{From: p.From, Lines: slices.Clone(p.Lines)}
}

func constraints(cs []session.Constraint) []Constraint {
	out := make([]Constraint, 0, len(cs))
	for _, c := range cs {
		also := make([]Origin, 0, len(c.Also))
		for _, o := range c.Also {
			also = append(also, origin(o))
		}
		q := quote(session.Quote{Text: c.Text, Origin: c.Origin})
		out = append(out, Constraint{Text: q.Text, Origin: q.Origin, Also: also})
	}
	return out
}

func (s *server) commit(ctx context.Context, in CommitInput) (CommitOutput, error) {
	if in.PreparedID == "" || in.TapeHash == "" {
		return CommitOutput{}, inputErrorf("preparedId and tapeHash are both required: pass them as graft_prepare returned them")
	}
	// The source is the review's: one that cannot be read is refused by
	// Commit itself, with its own error.
	var source string
	if rv, err := s.svc.PreparedReview(in.PreparedID); err == nil {
		source = rv.Source
	}
	unlock, err := s.locks.lock(ctx, source, in.Target)
	if err != nil {
		return CommitOutput{}, err
	}
	defer unlock()
	// A source that lives in a host goes on there: the target is owed to
	// the host as a new host session, written before the call returns
	// (finished by the next graft process when this one dies first). The
	// graft stands whatever the export does.
	var to hosts.Host
	if in.Host != "" {
		h, err := hosts.ParseHost(in.Host)
		if err != nil {
			return CommitOutput{}, inputErrorf("host: %v", err)
		}
		to = h
	}
	res, ex, hostNotes, err := s.svc.CommitToHost(ctx, in.PreparedID, in.TapeHash, in.Target, s.cwd(), to)
	if res == nil {
		return CommitOutput{}, err
	}
	next := fmt.Sprintf("continue the work in session %s (it starts with the tape); %s is retired and stays readable with graft_recall; graft_revert with target=%q undoes this graft", res.TargetID, res.Source, res.TargetID)
	out := CommitOutput{
		TargetID: res.TargetID, TxnID: res.TxnID, Source: res.Source, TapeHash: res.TapeHash,
		TapeChars: res.TapeChars, TapeEvents: res.TapeEvents, Generation: res.Generation,
		BoundarySeq: res.BoundarySeq, Notes: nonnil.Slice(res.Notes), DriftCheck: res.DriftCheck,
	}
	switch {
	case err != nil:
		out.ExportError = err.Error()
		next = fmt.Sprintf("the graft is committed, but exporting it to the host failed (%v): tell the user; the export stays owed, and graft status names it. ", err) + next
	case ex != nil:
		out.HostSession = &HostExport{Host: string(ex.Host), HostSessionID: ex.HostSessionID, Path: ex.Path, ResumeCommand: ex.ResumeCommand, Notes: hostNotes}
		next = fmt.Sprintf("tell the user to end this session and continue in the new %s session: %s (this session is retired: what is said here from now on is not carried over)", ex.Host, ex.ResumeCommand)
		if len(hostNotes) > 0 {
			next += "; and tell the user the host session's notes (an instruction file the new host does not read)"
		}
	}
	if len(res.Notes) > 0 {
		next = "tell the user the notes (the committed tape is not exactly the approved one); " + next
	}
	out.Next = next
	return out, nil
}

func (s *server) recall(ctx context.Context, in RecallInput) (RecallOutput, error) {
	if in.Session == "" {
		return RecallOutput{}, inputErrorf("session is required")
	}
	unlock, err := s.locks.lock(ctx, in.Session)
	if err != nil {
		return RecallOutput{}, err
	}
	defer unlock()
	ev, _, err := s.svc.RecallWithPath(ctx, in.Session, in.Seq)
	if err != nil {
		return RecallOutput{}, err
	}
	out := RecallOutput{
		Session: in.Session, Seq: ev.Seq, TS: ev.TS, Type: ev.Type,
		SourceKind: ev.Source.Kind, SourceName: ev.Source.Name, HumanInstruction: ev.IsHumanInstruction(),
		ToolFailed: !ev.OKResult(), Agent: ev.Agent, Todos: []Todo{},
		Txn: ev.Txn, Parent: ev.Parent, ParentBoundary: ev.ParentBoundary, Generation: ev.Generation,
		TapeHash: ev.TapeHash, Target: ev.Target, Reason: ev.Reason,
		InheritedConstraints: []Constraint{}, Meta: ev.Meta,
	}
	for _, t := range ev.Todos {
		out.Todos = append(out.Todos, Todo{ID: t.ID, Content: t.Content, Status: t.Status})
	}
	if ev.Inherit != nil {
		if g := ev.Inherit.FirstGoal; g != nil {
			q := Quote{Text: inheritedText(g.Text, g.Origin), Origin: origin(g.Origin), Command: commandText(g.Command)}
			out.InheritedGoal = &q
		}
		for _, c := range ev.Inherit.Constraints {
			also := make([]Origin, 0, len(c.Also))
			for _, o := range c.Also {
				also = append(also, origin(o))
			}
			out.InheritedConstraints = append(out.InheritedConstraints, Constraint{Text: c.Text, Origin: origin(c.Origin), Also: also})
		}
		for _, q := range ev.Inherit.Said {
			out.InheritedSaid = append(out.InheritedSaid, Quote{Text: inheritedText(q.Text, q.Origin), Origin: origin(q.Origin), Answer: q.Answer, Command: commandText(q.Command), Picks: picks(q.Picks)})
		}
		if p := ev.Inherit.Plan; p != nil {
			out.InheritedPlan = &Quote{Text: inheritedText(p.Text, p.Origin), Origin: origin(p.Origin)}
		}
		if p := ev.Inherit.ApprovedPlan; p != nil {
			out.InheritedApprovedPlan = &Quote{Text: inheritedText(p.Text, p.Origin), Origin: origin(p.Origin)}
		}
		out.InheritedFailures = callNotes(ev.Inherit.Failures)
		out.InheritedWorkarounds = callNotes(ev.Inherit.Workarounds)
		out.InheritedMilestones = callNotes(ev.Inherit.Milestones)
		if l := ev.Inherit.Todos; l != nil {
			todos := &TodoList{Items: []Todo{}, Origin: origin(l.Origin)}
			for _, t := range l.Items {
				todos.Items = append(todos.Items, Todo{ID: t.ID, Content: t.Content, Status: t.Status})
			}
			out.InheritedTodos = todos
		}
		for _, m := range ev.Inherit.Messages {
			out.InheritedMessages = append(out.InheritedMessages, Quote{Text: inheritedText(m.Text, m.Origin), Origin: origin(m.Origin)})
		}
		if p := ev.Inherit.Place; p != nil {
			out.InheritedPlace = &Place{Cwd: p.Cwd, GitBranch: p.GitBranch, GitCommit: p.GitCommit}
		}
	}
	content := ev.Text
	if ev.Text != "" {
		out.ContentField = "text"
	}
	if ev.Tool != nil {
		out.ToolName, out.ToolCallID = ev.Tool.Name, ev.Tool.CallID
		switch {
		case ev.Type == session.TypeToolResult:
			out.ContentField, content = "tool.output", ev.Tool.Output
		case len(ev.Tool.Input) > 0:
			out.ContentField, content = "tool.input", string(ev.Tool.Input)
		}
	}
	page, err := pageOf(content, in.Offset, s.opts.ChunkChars)
	if err != nil {
		return RecallOutput{}, fmt.Errorf("%s of %s seq %d: %w", out.ContentField, in.Session, in.Seq, err)
	}
	out.Content, out.ContentChars, out.Offset, out.NextOffset = page.Text, page.Total, in.Offset, page.Next
	return out, nil
}

// maxInheritedRunes bounds each text a recall of a graft/origin shows of
// what it hands down (a target hands each on at up to 6,000 characters):
// its head and end, so that one recall of seq 1 stays a bounded answer.
const maxInheritedRunes = 2000

// inheritedText is text handed down from o, within maxInheritedRunes: its
// head (two fifths) and end, the cut naming where the whole text is.
func inheritedText(text string, o session.Origin) string {
	r := []rune(text)
	if len(r) <= maxInheritedRunes {
		return text
	}
	head, tail := maxInheritedRunes*2/5, maxInheritedRunes*3/5
	return string(r[:head]) + fmt.Sprintf(" … [cut: the whole text: graft_recall session %s seq %d] … ", o.Session, o.Seq) + string(r[len(r)-tail:])
}

func (s *server) find(ctx context.Context, in FindInput) (FindOutput, error) {
	if in.Session == "" {
		return FindOutput{}, inputErrorf("session is required")
	}
	unlock, err := s.locks.lock(ctx, in.Session)
	if err != nil {
		return FindOutput{}, err
	}
	defer unlock()
	res, err := s.svc.Find(ctx, in.Session, graft.FindQuery{Words: in.Words, Limit: in.Limit, Before: in.Before})
	if err != nil {
		return FindOutput{}, err
	}
	out := FindOutput{Session: res.Session, Words: res.Words, Matches: []FindMatch{}, Total: res.Total, Older: res.Older, Continues: res.Continues}
	for _, m := range res.Matches {
		out.Matches = append(out.Matches, FindMatch{Seq: m.Seq, Type: m.Type, Source: m.Source, Tool: m.Tool, Snippet: m.Snippet})
	}
	return out, nil
}

func (s *server) status(_ context.Context, in StatusInput) (StatusOutput, error) {
	st, err := s.svc.Status()
	if err != nil {
		return StatusOutput{}, err
	}
	rows := st.Sessions
	if in.Session != "" {
		if err := session.ValidID(in.Session); err != nil {
			return StatusOutput{}, err
		}
		rows = nil
		for _, r := range st.Sessions {
			if r.ID == in.Session {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			return StatusOutput{}, fmt.Errorf("%w: no session %s in %s", session.ErrNotFound, in.Session, st.Home)
		}
	}
	if in.Offset < 0 || (in.Offset > 0 && in.Offset >= len(rows)) {
		return StatusOutput{}, inputErrorf("offset %d is outside the %d session(s) listed", in.Offset, len(rows))
	}
	out := StatusOutput{
		Home: st.Home, Sessions: []SessionRow{}, SessionsTotal: len(rows), Offset: in.Offset,
		Pending: []PendingTxn{}, CorruptRecords: nonnil.Slice(st.Corrupt), Leftovers: []Leftover{},
		CatalogError: st.CatalogError,
	}
	end := min(in.Offset+s.opts.PageSessions, len(rows))
	if end < len(rows) {
		out.NextOffset = end
	}
	for _, r := range rows[in.Offset:end] {
		row := SessionRow{ID: r.ID, State: r.State, Events: r.Events, LastSeq: r.LastSeq, Generation: r.Generation, Parent: r.Parent, Target: r.Target, Head: r.Head, Error: r.Error}
		if r.Torn != nil {
			row.TornBytes = r.Torn.Bytes
		}
		out.Sessions = append(out.Sessions, row)
	}
	for _, p := range st.Pending {
		out.Pending = append(out.Pending, PendingTxn{Txn: p.Txn, Kind: string(p.Kind), State: string(p.State), Source: p.Source, Target: p.Target, Created: p.Created})
	}
	for _, l := range st.Leftovers {
		out.Leftovers = append(out.Leftovers, Leftover{Source: l.Source, Target: l.Target, Txn: l.Txn, State: l.State, Reason: l.Reason})
	}
	if s.svc.Startup != nil || s.svc.StartupErr != nil {
		out.StartupRecovery = report(s.svc.Startup, s.svc.StartupErr)
	}
	if st.LastRecovery != nil {
		out.LastRecovery = lastRecovery(st.LastRecovery)
	}
	return out, nil
}

func report(r *recovery.Report, err error) *RecoveryReport {
	out := &RecoveryReport{Leftovers: []string{}, Swept: []string{}, Errors: []string{}}
	if r != nil {
		out.Scanned, out.RolledForward, out.RolledBack, out.Busy, out.Corrupt = r.Scanned, r.RolledForward, r.RolledBack, r.Busy, r.Corrupt
		out.Leftovers, out.Swept, out.Errors = nonnil.Slice(r.Leftovers), nonnil.Slice(r.Swept), nonnil.Slice(r.Errors)
	}
	if err != nil {
		out.Error = err.Error()
	}
	return out
}

// lastRecovery decodes the catalog's record of the last scan (written by
// graft.Service.Recover). An unreadable record is reported, not hidden.
func lastRecovery(rec *graft.LastRecovery) *RecoveryReport {
	out := report(rec.Report, nil)
	out.Error = rec.Error
	if !rec.At.IsZero() {
		out.At = rec.At.UTC().Format(time.RFC3339Nano)
	}
	return out
}

func (s *server) revert(ctx context.Context, in RevertInput) (RevertOutput, error) {
	if in.Target == "" {
		return RevertOutput{}, inputErrorf("target is required: the session a graft created (graft_status shows it as a session's target)")
	}
	// The source is the target's parent: one that cannot be read is
	// refused by Revert itself, with its own error.
	source, _ := s.svc.Parent(in.Target)
	unlock, err := s.locks.lock(ctx, in.Target, source)
	if err != nil {
		return RevertOutput{}, err
	}
	defer unlock()
	res, err := s.svc.Revert(in.Target, in.Force)
	if err != nil {
		return RevertOutput{}, err
	}
	return RevertOutput{
		TxnID: res.Txn, Reverts: res.Reverts, Source: res.Source, Target: res.Target,
		ExtraEvents: res.Extra, Notes: nonnil.Slice(res.Notes),
		Next: fmt.Sprintf("continue in session %s, which is active again; %s is abandoned: never resume it", res.Source, res.Target),
	}, nil
}

func moreConstraints(ms []session.More) []MoreConstraints {
	var out []MoreConstraints
	for _, m := range ms {
		out = append(out, MoreConstraints{Session: m.Session, N: m.N, From: m.From, To: m.To})
	}
	return out
}

// hostGoal is the review's goal of the host, nil when none.
func hostGoal(g *tape.HostGoal) *HostGoal {
	if g == nil {
		return nil
	}
	return &HostGoal{Status: g.Status, Objective: g.Objective, Seq: g.Seq}
}
