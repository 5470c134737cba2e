package recovery

import (
	"errors"
	"fmt"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
)

// Report is what one scan did.
type Report struct {
	Scanned       int      `json:"scanned"`
	RolledForward int      `json:"rolledForward"`
	RolledBack    int      `json:"rolledBack"`
	Busy          int      `json:"busy"`
	Leftovers     []string `json:"leftovers"`
	Swept         []string `json:"swept"`
	Corrupt       int      `json:"corrupt"`
	Errors        []string `json:"errors"`
	// Warnings are records resolved in an unusual way (a source retired
	// into a target that is not there), and exports owed by committed
	// handoffs that could not be written (filled by graft.Service.Recover).
	Warnings []string `json:"warnings"`
	// Exports are the exports owed by committed handoffs (a handoff killed
	// between its commit and its export) that the scan's caller finished,
	// each with its resume command (graft.Service.Recover; catalog bucket
	// owed).
	Exports []string `json:"exports"`
}

// ErrIncomplete is returned (wrapped) when some record could not be
// resolved; the report says which.
var ErrIncomplete = errors.New("recovery: some records were not resolved")

// incompleteError wraps ErrIncomplete and every cause, so a caller can tell
// a corrupt record or a full disk from the rest (graft.CodeOf).
type incompleteError struct{ causes []error }

func (e *incompleteError) Error() string {
	return fmt.Sprintf("%v: %d error(s); first: %v", ErrIncomplete, len(e.causes), e.causes[0])
}
func (e *incompleteError) Unwrap() []error { return append([]error{ErrIncomplete}, e.causes...) }

// Run scans the journal once. The error is non-nil when the scan could not
// run at all (unreadable journal directory) or left records unresolved
// (corrupt, or cleanup failed); the report is filled in either way.
func Run(env *txn.Env) (*Report, error) {
	rep := &Report{Leftovers: []string{}, Errors: []string{}, Swept: []string{}, Warnings: []string{}, Exports: []string{}}
	scan, err := env.Journal.Scan()
	if err != nil {
		// The report says it too: a reader of only the report must not
		// take scanned=0 for "nothing to recover".
		err = fmt.Errorf("recovery: scanning the journal: %w", err)
		rep.Errors = append(rep.Errors, err.Error())
		return rep, err
	}
	rep.Swept = append([]string{}, scan.Swept...)
	rep.Scanned = len(scan.Records) + len(scan.Corrupt)
	var causes []error
	for _, c := range scan.Corrupt {
		rep.Corrupt++
		rep.Errors = append(rep.Errors, c.Error())
		causes = append(causes, c)
	}
	folds := &sourceFolds{env: env, m: map[string]*session.Info{}}
	for _, rec := range scan.Records {
		if err := one(env, folds, rec, rep); err != nil {
			if errors.Is(err, txn.ErrLocked) {
				rep.Busy++
				continue
			}
			err = fmt.Errorf("txn %s (%s %s → %s, %s): %w", rec.Txn, rec.Kind, rec.Source, rec.Target, rec.State, err)
			rep.Errors = append(rep.Errors, err.Error())
			causes = append(causes, err)
		}
	}
	if len(causes) > 0 {
		return rep, &incompleteError{causes: causes}
	}
	return rep, nil
}

func one(env *txn.Env, folds *sourceFolds, rec journal.Record, rep *Report) (err error) {
	locks, err := env.LockPair(rec.Target, rec.Source)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := locks.Release(); rerr != nil {
			err = errors.Join(err, fmt.Errorf("releasing the locks: %w", rerr))
		}
	}()
	// Re-read: the owner may have finished between the scan and the lock.
	// On an etcd store its state may have moved on to COMMITTED.
	cur, err := env.Journal.Read(rec.Txn)
	if errors.Is(err, journal.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	rec = cur
	sinfo, err := folds.info(rec.Source)
	if err != nil {
		return fmt.Errorf("reading source %s: %w", rec.Source, err)
	}
	switch rec.Kind {
	case journal.KindGraft:
		if _, retired := sinfo.RetiredInto(rec.Txn); !retired && rec.State == journal.Committed {
			// Decided on an etcd store, crashed before the
			// graft/retired append that follows the decision: append it.
			if problem := lostTarget(env, rec); problem != "" {
				return unretireLost(env, rec, sinfo, problem, rep)
			}
			if rec.SourceSeq > 0 && sinfo.LastSeq != rec.SourceSeq {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("txn %s: %s ends at seq %d, not at seq %d where its tape for %s was built: events appended with no lock held; they are before its graft/retired and not in the target", rec.Txn, rec.Source, sinfo.LastSeq, rec.SourceSeq, rec.Target))
			}
			if err := txn.Retire(env, rec, sinfo.ScanResult); err != nil {
				return fmt.Errorf("appending the decided graft/retired to %s: %w", rec.Source, err)
			}
			if sinfo, err = folds.info(rec.Source); err != nil {
				return fmt.Errorf("reading source %s: %w", rec.Source, err)
			}
		}
		if _, retired := sinfo.RetiredInto(rec.Txn); retired {
			if problem := lostTarget(env, rec); problem != "" {
				return unretireLost(env, rec, sinfo, problem, rep)
			}
			if err := txn.RecordLineage(env, rec); err != nil {
				return err
			}
			if err := env.Journal.Remove(rec.Txn); err != nil {
				return err
			}
			rep.RolledForward++
			return nil
		}
		action, err := txn.RollBack(env, rec, fmt.Sprintf("recovered: the graft crashed in %s before its commit point", rec.State))
		if err != nil {
			return err
		}
		rep.RolledBack++
		if action != "" { // no target of this txn: nothing was left over
			rep.Leftovers = append(rep.Leftovers, rec.Target)
		}
		return nil
	case journal.KindRevert:
		if rec.State == journal.Committed && !unretired(sinfo, rec.Reverts) {
			// Decided on an etcd store: the graft/unretired follows.
			if err := txn.Unretire(env, rec, sinfo.ScanResult); err != nil {
				return fmt.Errorf("appending the decided graft/unretired to %s: %w", rec.Source, err)
			}
			if sinfo, err = folds.info(rec.Source); err != nil {
				return fmt.Errorf("reading source %s: %w", rec.Source, err)
			}
		}
		if unretired(sinfo, rec.Reverts) {
			if err := txn.FinishRevert(env, rec); err != nil {
				return err
			}
			rep.RolledForward++
			return nil
		}
		if err := env.Journal.Remove(rec.Txn); err != nil {
			return err
		}
		rep.RolledBack++
		return nil
	}
	return fmt.Errorf("unknown record kind %q", rec.Kind)
}

// sourceFolds keeps the fold of each source for one scan: many records of
// one source (a 1 GiB log) cost one read, not one each. A fold is reused only
// while the log's size is still the size it was folded at: every append
// (ours, or a live process's between two records) changes the size, and a
// stale fold could roll back a graft whose retire it did not see.
type sourceFolds struct {
	env *txn.Env
	m   map[string]*session.Info
}

func (c *sourceFolds) info(id string) (*session.Info, error) {
	if info, ok := c.m[id]; ok && info.Torn == nil {
		fi, err := c.env.FS.Lstat(c.env.Store.Path(id))
		if err != nil {
			return nil, fmt.Errorf("stat of source %s: %w", id, err)
		}
		if fi.Mode().IsRegular() && fi.Size() == info.End {
			return info, nil
		}
	}
	info, err := c.env.Store.Info(id)
	if err != nil {
		return nil, err
	}
	c.m[id] = info
	return info, nil
}

// lostTarget says what is wrong with the target of a retired source, or ""
// when it is there and carries this txn's graft/origin.
func lostTarget(env *txn.Env, rec journal.Record) string {
	info, err := env.Store.Info(rec.Target)
	switch {
	case errors.Is(err, session.ErrNotFound):
		return "the target is missing"
	case err != nil:
		return fmt.Sprintf("the target is unreadable: %v", err)
	case info.Origin == nil || info.Origin.Txn != rec.Txn:
		return "the target holds no graft/origin of this transaction"
	}
	return ""
}

// unretireLost resolves a graft whose source was retired into a target that
// is not there. The protocol cannot get here (the target is cold-verified
// and durable before the retire), but a filesystem that lied about an fsync
// or a hand deletion can: rolling forward would leave no usable session, so
// the source gets graft/unretired and becomes usable again.
func unretireLost(env *txn.Env, rec journal.Record, sinfo *session.Info, problem string, rep *Report) error {
	if sinfo.Committed(rec.Txn, rec.Target) {
		if _, err := env.Store.AppendMarkAfter(rec.Source, session.Event{
			Type: session.TypeGraftUnretired, Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
			Txn: rec.Txn, Target: rec.Target, Reason: "recovery: " + problem,
		}, sinfo.ScanResult); err != nil {
			return fmt.Errorf("un-retiring %s (%s): %w", rec.Source, problem, err)
		}
	}
	err := env.Cat().With(func(db *catalog.DB) error {
		return db.AddLeftover(catalog.Leftover{
			Source: rec.Source, Target: rec.Target, Txn: rec.Txn, State: string(rec.State),
			Reason: "lost after its commit point: " + problem + "; the source was un-retired", Recorded: time.Now().UTC(),
		})
	})
	if err != nil {
		return fmt.Errorf("recording the lost target %s: %w", rec.Target, err)
	}
	if err := env.Journal.Remove(rec.Txn); err != nil {
		return err
	}
	rep.RolledBack++
	rep.Leftovers = append(rep.Leftovers, rec.Target)
	rep.Warnings = append(rep.Warnings, fmt.Sprintf("txn %s: %s was retired into %s but %s; un-retired %s so it can be resumed", rec.Txn, rec.Source, rec.Target, problem, rec.Source))
	return nil
}

func unretired(info *session.Info, graftTxn string) bool {
	for _, g := range info.Grafts {
		if g.Txn == graftTxn && g.UnretiredSeq != 0 {
			return true
		}
	}
	return false
}

// RebuildReport is what Rebuild derived from the logs.
type RebuildReport struct {
	Sessions  int      `json:"sessions"`
	Nodes     int      `json:"nodes"`
	Leftovers int      `json:"leftovers"`
	Errors    []string `json:"errors"`
}

// Rebuild derives lineage and leftovers again from the logs alone (the
// logs are the truth; the catalog is derived).
func Rebuild(env *txn.Env) (*RebuildReport, error) {
	ids, err := env.Store.List()
	if err != nil {
		return nil, err
	}
	rep := &RebuildReport{Sessions: len(ids), Errors: []string{}}
	infos := map[string]*session.Info{}
	for _, id := range ids {
		info, err := env.Store.Info(id)
		if err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("%s: %v", id, err))
			continue
		}
		infos[id] = info
	}
	err = env.Cat().With(func(db *catalog.DB) error {
		if err := db.ClearDerived(); err != nil {
			return err
		}
		for _, id := range ids {
			info := infos[id]
			if info == nil || info.Origin == nil {
				continue
			}
			o := info.Origin
			parent := infos[o.Parent]
			if parent != nil {
				if into, ok := parent.RetiredInto(o.Txn); ok && into != id {
					// A copy of into's log (its graft/origin, txn included):
					// the graft is into's, this log is no node of it.
					continue
				}
			}
			committed := parent != nil && parent.Committed(o.Txn, id)
			everRetired := parent != nil && parent.HasRetired(o.Txn, id)
			if everRetired {
				if err := db.PutNode(catalog.Node{Session: id, Parent: o.Parent, Generation: o.Generation, Boundary: o.ParentBoundary, Txn: o.Txn, TapeHash: o.TapeHash, Reverted: !committed}); err != nil {
					return err
				}
				rep.Nodes++
				continue
			}
			if err := db.AddLeftover(catalog.Leftover{Source: o.Parent, Target: id, Txn: o.Txn, State: "unknown", Reason: "never committed (found by --rebuild-catalog)"}); err != nil {
				return err
			}
			rep.Leftovers++
		}
		return nil
	})
	return rep, err
}
