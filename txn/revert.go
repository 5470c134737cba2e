package txn

import (
	"fmt"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
)

// RevertResult is a reverted graft.
type RevertResult struct {
	Txn     string
	Reverts string // the graft's txn
	Source  string
	Target  string
	Extra   int // events the target had beyond its tape (reverted with --force)
	Notes   []string
}

// Revert undoes a live graft as a transaction of its own: the source gets
// graft/unretired (the commit point), the target graft/abandoned (reason
// "reverted"). Refused when the target grew beyond its tape unless force.
func Revert(env *Env, target string, force bool) (*RevertResult, error) {
	tinfo, err := env.Store.Info(target)
	if err != nil {
		return nil, err
	}
	if tinfo.Origin == nil {
		return nil, fmt.Errorf("%w: %s was not made by a graft (no graft/origin)", ErrNotLive, target)
	}
	source, graftTxn := tinfo.Origin.Parent, tinfo.Origin.Txn
	return underPair(env, target, source, RevertLocked, func(r *RevertResult) *[]string { return &r.Notes }, func() (*RevertResult, error) {
		return revertLocked(env, target, source, graftTxn, force)
	})
}

// revertLocked is Revert under the locks of target and source.
func revertLocked(env *Env, target, source, graftTxn string, force bool) (res *RevertResult, err error) {
	// Re-read under the locks.
	tinfo, err := env.Store.Info(target)
	if err != nil {
		return nil, err
	}
	sinfo, err := env.Store.Info(source)
	if err != nil {
		return nil, err
	}
	if into, ok := sinfo.RetiredInto(graftTxn); ok && into != target {
		// A copy of into's log carries its graft/origin, txn included:
		// unretiring by txn would un-graft into, not this session.
		return nil, fmt.Errorf("%w: %s is not the target of txn %s: %s retired into %s in it (is %s a copy of %s's log?); nothing to revert here", ErrNotLive, target, graftTxn, source, into, target, into)
	}
	if !sinfo.Committed(graftTxn, target) {
		return nil, fmt.Errorf("%w: %s (txn %s) is not committed in %s; nothing to revert", ErrNotLive, target, graftTxn, source)
	}
	if g, ok := tinfo.Live(); ok {
		return nil, fmt.Errorf("%w: %s was itself grafted into %s; revert that first", ErrNotLive, target, g.Target)
	}
	extra := tinfo.Events - tinfo.Origin.TapeEvents
	if extra > 0 && !force {
		return nil, fmt.Errorf("%w: %s has %d event(s) after its tape (seq %d..%d); pass --force to revert anyway", ErrHasNewEvents, target, extra, tinfo.Origin.TapeEvents+1, tinfo.LastSeq)
	}
	now := env.now()
	rec := journal.Record{
		Version: 1, Txn: journal.NewTxnID(now), Kind: journal.KindRevert, State: journal.Preparing,
		Source: source, Target: target, Reverts: graftTxn, Generation: tinfo.Generation(),
		Created: now.UTC().Format(time.RFC3339Nano),
	}
	if err := env.Journal.Write(rec); err != nil {
		return nil, fmt.Errorf("txn: writing revert journal record (nothing else was touched): %w", err)
	}
	env.at(RevertJournalPrepared)
	// An etcd store's commit point: the fenced COMMITTED write; the
	// graft/unretired append follows it. The file store's is the append.
	decided, err := env.backend().Decide(rec)
	if err != nil {
		return nil, fmt.Errorf("txn: the revert's commit point on the etcd store was not confirmed (%w); a recovery scan (this worker's next command, or another worker's) resolves the record from the store: reverted if the decision landed, the graft left live if not", err)
	}
	if decided {
		rec.State = journal.Committed
		env.at(RevertDecided)
		if err := Unretire(env, rec, sinfo.ScanResult); err != nil {
			res = &RevertResult{Txn: rec.Txn, Reverts: graftTxn, Source: source, Target: target, Extra: max(extra, 0)}
			res.Notes = append(res.Notes, fmt.Sprintf("reverted (decided on the etcd store), but the graft/unretired append to %s failed (%v); the next recovery scan appends it", source, err))
			return res, nil
		}
	} else if err := Unretire(env, rec, sinfo.ScanResult); err != nil {
		// Before (or unknown whether past) the commit point: recovery decides
		// from the source's log; if the mark is absent the graft stays live.
		if rerr := env.Journal.Remove(rec.Txn); rerr != nil {
			return nil, fmt.Errorf("txn: unretiring %s: %w (record left for recovery: %v)", source, err, rerr)
		}
		return nil, fmt.Errorf("txn: unretiring %s: %w", source, err)
	}
	env.at(RevertSourceUnretired)
	res = &RevertResult{Txn: rec.Txn, Reverts: graftTxn, Source: source, Target: target, Extra: max(extra, 0)}
	if err := FinishRevert(env, rec); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("reverted (the source is active again), but cleanup is unfinished (%v); the next recovery scan finishes it", err))
	}
	return res, nil
}

// Unretire appends graft/unretired for the graft rec reverts to the source,
// right after the events scan read (session.ErrChanged when it grew).
func Unretire(env *Env, rec journal.Record, after session.ScanResult) error {
	_, err := env.Store.AppendMarkAfter(rec.Source, session.Event{
		Type: session.TypeGraftUnretired, Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
		Txn: rec.Reverts, Target: rec.Target,
	}, after)
	return err
}

// Retire appends graft/retired for the graft of rec to the source, right
// after the events scan read: the commit point on the file store, the
// append that follows it on an etcd one.
func Retire(env *Env, rec journal.Record, after session.ScanResult) error {
	_, err := env.Store.AppendMarkAfter(rec.Source, session.Event{
		Type: session.TypeGraftRetired, Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
		Txn: rec.Txn, Target: rec.Target,
	}, after)
	return err
}

// FinishRevert is everything after a revert's commit point; recovery calls
// it to roll a revert forward. Idempotent.
func FinishRevert(env *Env, rec journal.Record) error {
	tinfo, err := env.Store.Info(rec.Target)
	if err != nil {
		return err
	}
	if tinfo.Abandoned == nil {
		if _, err := env.Store.AppendMarkAfter(rec.Target, session.Event{
			Type: session.TypeGraftAbandoned, Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
			Txn: rec.Reverts, Reason: "reverted",
		}, tinfo.ScanResult); err != nil {
			return fmt.Errorf("marking %s abandoned: %w", rec.Target, err)
		}
	}
	env.at(RevertTargetAbandoned)
	err = env.Cat().With(func(db *catalog.DB) error {
		n, ok, err := db.GetNode(rec.Target)
		if err != nil {
			return err
		}
		if !ok {
			n = catalog.Node{Session: rec.Target, Parent: rec.Source, Generation: rec.Generation, Txn: rec.Reverts}
		}
		n.Reverted = true
		return db.PutNode(n)
	})
	if err != nil {
		return fmt.Errorf("recording lineage: %w", err)
	}
	env.at(RevertLineage)
	if err := env.Journal.Remove(rec.Txn); err != nil {
		return err
	}
	env.at(RevertJournalRemoved)
	return nil
}
