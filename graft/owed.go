package graft

import (
	"errors"
	"fmt"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/nonnil"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/txn"
)

// Owed exports (issue 24, items 1 and 2). A handoff's commit records that
// its target is owed to a host session (journal.Owe in the record,
// catalog.Owed once the lineage is recorded). Whoever comes next finishes
// the export: the handoff itself right after its commit, the recovery
// scan every command runs, a re-run of the same handoff, a follow of the
// export's file when it was written but not bound. Finishing is
// idempotent: the host session id and bytes are derived from the target
// and its txn (hosts.Export), and a file already there with those bytes is
// kept. It runs under the target's import lock, so two processes never
// finish one export at once, and a follow never imports into the target
// while its cursor is seeded.

// OwedDone is an owed export this process finished (or found void).
type OwedDone struct {
	catalog.Owed
	Export *hosts.ExportResult `json:"export,omitempty"`
	// Void says why nothing was exported: the target is not live any more
	// (reverted, abandoned) and no host session continues it.
	Void string `json:"void,omitempty"`
}

// errOwedBusy: another process holds the target's import lock (it is
// finishing the export, or importing into the target).
var errOwedBusy = errors.New("graft: the owed export is being finished by another graft process")

// exportWait is how long a handoff waits for the target's import lock to
// finish its own export (another process may be finishing it already).
const exportWait = 10 * time.Second

// importLock takes the import lock of id, trying until wait has passed
// (0: once). A lock still held then is errOwedBusy.
func (s *Service) importLock(id string, wait time.Duration) (*lockfile.Lock, error) {
	end := time.Now().Add(wait)
	for {
		l, err := lockfile.TryLockImport(s.Home, id)
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, lockfile.ErrLocked) {
			return nil, err
		}
		if !time.Now().Before(end) {
			return nil, fmt.Errorf("%w (%v)", errOwedBusy, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exportHook maps the steps of hosts.Export to the crash points.
func exportHook(env *txn.Env) func(hosts.ExportStep) {
	return func(step hosts.ExportStep) { env.At(txn.Point("export/" + string(step))) }
}

// finishOwed writes the export o owes and forgets o, holding the target's
// import lock (waiting up to wait for it).
func (s *Service) finishOwed(o catalog.Owed, wait time.Duration) (done *OwedDone, err error) {
	host, err := hosts.ParseHost(o.Host)
	if err != nil {
		return nil, err
	}
	l, err := s.importLock(o.Target, wait)
	if err != nil {
		return nil, err
	}
	defer func() {
		if uerr := l.Unlock(); uerr != nil {
			err = errors.Join(err, fmt.Errorf("graft: releasing the import lock of %s: %w", o.Target, uerr))
		}
	}()
	env := s.env()
	env.At(txn.ExportLocked)
	done = &OwedDone{Owed: o}
	info, err := s.store.Info(o.Target)
	if err != nil {
		return nil, err
	}
	if cerr := s.store.Check(info); cerr != nil || info.Origin == nil || info.Origin.Txn != o.Txn {
		all, err := s.Bindings().List()
		if err != nil {
			return nil, err
		}
		bound := false
		for _, b := range hosts.OfSession(all, o.Target) {
			bound = bound || b.Role == hosts.RoleExported
		}
		if !bound {
			// Reverted or abandoned before anyone exported it: no host
			// session may continue a target that cannot be resumed.
			done.Void = fmt.Sprintf("%s cannot be resumed (%v): nothing to export", o.Target, cerr)
			if err := s.deleteOwed(o); err != nil {
				return nil, err
			}
			env.At(txn.ExportOwedCleared)
			return done, nil
		}
	}
	ex, err := hosts.Export(hosts.ExportOptions{Store: s.store, Home: s.Home, Bindings: s.Bindings(), Session: o.Target, Host: host, Cwd: o.Cwd,
		Root: o.Root, Now: s.Now, Hook: exportHook(env)})
	if err != nil {
		return nil, err
	}
	done.Export = ex
	if err := s.deleteOwed(o); err != nil {
		return nil, fmt.Errorf("graft: %s is exported (%s), but its owed record was not deleted: %w", o.Target, ex.ResumeCommand, err)
	}
	env.At(txn.ExportOwedCleared)
	return done, nil
}

func (s *Service) deleteOwed(o catalog.Owed) error {
	return s.cat().With(func(db *catalog.DB) error { return db.DeleteOwed(o.Target, o.Txn) })
}

// OwedExports lists the exports committed handoffs still owe their hosts.
func (s *Service) OwedExports() ([]catalog.Owed, error) {
	var out []catalog.Owed
	err := s.viewCatalog(func(db *catalog.DB) error {
		var err error
		out, err = db.OwedExports()
		return err
	})
	return nonnil.Slice(out), err
}

// finishAllOwed is the recovery scan's part: every owed export is
// finished, each under its lock taken without waiting (held: a live
// process is finishing it). What was finished is returned; what could not
// be, with why, in problems. A catalog that cannot be read now (busy) is a
// problem too: the next command tries again.
func (s *Service) finishAllOwed() (finished []OwedDone, problems []string) {
	if !s.back.hasCatalog() {
		// A home without catalog.db owes nothing (a commit creates it);
		// do not create one for every command of a fresh home.
		return nil, nil
	}
	var owed []catalog.Owed
	err := s.back.catalog(min(s.catalogWait(), minCatalogWait)).View(func(db *catalog.DB) error {
		var err error
		owed, err = db.OwedExports()
		return err
	})
	if err != nil {
		return nil, []string{"the exports committed handoffs owe their hosts were not checked: " + catalog.Problem(err)}
	}
	for _, o := range owed {
		done, err := s.finishOwed(o, 0)
		switch {
		case errors.Is(err, errOwedBusy):
			// A live process is finishing it (or importing into the
			// target): its work, not a problem.
		case err != nil:
			problems = append(problems, fmt.Sprintf("the handoff %s → %s (txn %s) owes %s a host session in %s, not written: %v; finish it with: graft export %s %s --cwd %s",
				o.Source, o.Target, o.Txn, o.Host, o.Cwd, err, o.Host, o.Target, o.Cwd))
		default:
			finished = append(finished, *done)
		}
	}
	return finished, problems
}

// ownedBy is the owed export of target for host session hostSession of
// host, finished now if it was still owed, or finished by this process's
// start-up scan; nil when there is none (the target's export was done by
// an earlier process, or belongs to another handoff).
func (s *Service) ownedBy(host hosts.Host, hostSession, target string) (*OwedDone, error) {
	for k := range s.OwedFinished {
		d := &s.OwedFinished[k]
		if d.Target == target && d.Host == string(host) && d.HostSession == hostSession && d.Export != nil {
			return d, nil
		}
	}
	owed, err := s.OwedExports()
	if err != nil {
		return nil, err
	}
	for _, o := range owed {
		if o.Target == target && o.Host == string(host) && o.HostSession == hostSession {
			d, err := s.finishOwed(o, exportWait)
			if err != nil || d.Export == nil {
				return nil, err
			}
			return d, nil
		}
	}
	return nil, nil
}

// finishOrphan finishes the owed export whose host session is hid, when
// hid is not bound: the export's file was written (the person resumed it)
// but the handoff died before binding it (issue 24, item 2).
func (s *Service) finishOrphan(host hosts.Host, hid string) error {
	owed, err := s.OwedExports()
	if err != nil {
		return err
	}
	for _, o := range owed {
		if o.Host != string(host) {
			continue
		}
		id, err := hosts.ExportID(s.store, o.Target, host)
		if err != nil || id != hid {
			continue // a target that does not read is not this file's
		}
		_, err = s.finishOwed(o, s.exportLockWait())
		return err
	}
	return nil
}

// exportLockWait is how long a follow waits for an owed export's lock: a
// hook's budget when there is a Deadline.
func (s *Service) exportLockWait() time.Duration {
	if s.Deadline.IsZero() {
		return exportWait
	}
	return max(time.Until(s.Deadline), minCatalogWait)
}

// oweOf is the owe a handoff from host session hid records in its commit.
func oweOf(host hosts.Host, hid, cwd string) (*journal.Owe, error) {
	root, err := hosts.Root(host)
	if err != nil {
		return nil, err
	}
	return &journal.Owe{Host: string(host), Cwd: cwd, Root: root, HostSession: hid}, nil
}
