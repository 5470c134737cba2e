package graft

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/etcdstore"
	"github.com/graft-project/graft/foldcache"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/recovery"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
)

// Service is graft on one home directory: what the CLI and the MCP server
// call. It holds no open database; catalog.db is opened per operation.
type Service struct {
	Home           string
	FS             vfs.FS
	Now            func() time.Time
	CatalogTimeout time.Duration
	// Deadline, when set, ends every wait for catalog.db and for a
	// session's lock in an import by it (a wait past it still gets
	// minCatalogWait): a hook's budget when graft's state is busy, so that
	// a held catalog.db or session costs it that, not a timeout per wait.
	Deadline time.Time
	// hook, faults and foldHook are Options' (tests only).
	hook     func(txn.Point)
	faults   txn.Faults
	foldHook func(source string, events int64)

	store *session.Store
	// back is the store the service runs on: the home's files or etcd
	// (backend.go).
	back backend
	// Startup is the report of the recovery scan Open ran.
	Startup *recovery.Report
	// StartupErr is that scan's error, if any (the service still opens when
	// only some records were unresolved).
	StartupErr error
	// OwedFinished are the exports owed by committed handoffs that this
	// service's recovery scans finished (owed.go).
	OwedFinished []OwedDone

	// notes are the reads that fell back to the logs (TakeDegraded).
	notes notes
}

// Options for Open.
type Options struct {
	FS vfs.FS
	// SkipRecovery opens without the start-up scan (graft recover runs it
	// itself; tests of recovery inspect records first).
	SkipRecovery bool
	Now          func() time.Time
	// Hook and Faults reach the transaction (tests only).
	Hook   func(txn.Point)
	Faults txn.Faults
	// FoldHook, when set, is called where a prepare's fold checks its
	// context, with the events folded so far (tests only: it may block).
	FoldHook func(source string, events int64)
	// Store is "" (or "file") for the file store in the home, or an
	// etcd://host:port[,…]/prefix URL: the etcd store (package etcdstore),
	// shared by workers on several machines.
	Store string
	// OnEtcd, when set, is called with the etcd store Open connected to
	// (benchmarks count the requests of its client).
	OnEtcd func(*etcdstore.Store)
}

// Open prepares the home (0700 dirs) and runs the recovery scan, as every
// command that touches the store must. A scan that cannot run at all (the
// journal directory is unreadable) fails Open.
func Open(home string, o Options) (*Service, error) {
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := vfs.MkdirAllDurable(o.FS, home, session.DirMode); err != nil {
		return nil, fmt.Errorf("graft: creating home %s: %w", home, err)
	}
	if err := checkHome(o.FS, home); err != nil {
		return nil, err
	}
	var back backend
	if !etcdstore.IsFile(o.Store) {
		cfg, err := etcdstore.ParseURL(o.Store)
		if err != nil {
			return nil, err
		}
		if err := etcdstore.ClaimHome(o.FS, home, cfg); err != nil {
			return nil, err
		}
		es, err := etcdstore.Open(cfg)
		if err != nil {
			return nil, err
		}
		back = newEtcdBackend(es, o.Now)
		if o.OnEtcd != nil {
			o.OnEtcd(es)
		}
	} else {
		if err := etcdstore.CheckFileHome(o.FS, home); err != nil {
			return nil, err
		}
		fs, err := openFileStore(o.FS, home)
		if err != nil {
			return nil, err
		}
		back = fs
	}
	s, err := open(home, o, back)
	if err != nil {
		return nil, errors.Join(err, back.close())
	}
	return s, nil
}

func open(home string, o Options, back backend) (*Service, error) {
	st, err := session.OpenStore(o.FS, home)
	if err != nil {
		return nil, err
	}
	st.Now = o.Now
	back.lockLog(st)
	s := &Service{Home: home, FS: o.FS, Now: o.Now, CatalogTimeout: catalog.DefaultTimeout, hook: o.Hook, faults: o.Faults, foldHook: o.FoldHook, store: st, back: back}
	if !o.SkipRecovery {
		s.Startup, s.StartupErr = s.Recover(context.Background())
		if s.StartupErr != nil && !errors.Is(s.StartupErr, recovery.ErrIncomplete) {
			return nil, s.StartupErr
		}
	}
	return s, nil
}

// Close releases what the service holds: on etcd, its lease (and so every
// lock under it). A file-store service holds nothing between operations.
func (s *Service) Close() error { return s.back.close() }

// Bindings is where the host bindings live: hosts/ in the home, or the
// etcd store's keys.
func (s *Service) Bindings() hosts.Bindings { return s.back.bindings() }

// cat opens the catalog: catalog.db in the home, or the etcd store's.
func (s *Service) cat() catalog.Opener { return s.back.catalog(s.catalogWait()) }

// indexSaveTail is the fold cache's SaveTail (foldcache.DefaultSaveTail).
// Tests set it to 0 to store an index at every fold.
var indexSaveTail = foldcache.DefaultSaveTail

// folds is the fold cache of this service's home: the scan indexes, the
// seq marks and the sealed reviews (package foldcache).
func (s *Service) folds() *foldcache.Cache {
	return &foldcache.Cache{Home: s.Home, Store: s.store, Catalog: s.cat, Degrade: s.degrade, SaveTail: indexSaveTail, FoldHook: s.foldHook}
}

// minCatalogWait is the least a wait for catalog.db gets past Deadline:
// an unheld catalog opens in well under a millisecond.
const minCatalogWait = 100 * time.Millisecond

// lockWait is how long an import may wait for a session's lock: what is
// left before Deadline (at least minCatalogWait), or the importer's
// default (0) when there is no Deadline.
func (s *Service) lockWait() time.Duration {
	if s.Deadline.IsZero() {
		return 0
	}
	return max(time.Until(s.Deadline), minCatalogWait)
}

// catalogWait is CatalogTimeout, cut to what is left before Deadline.
func (s *Service) catalogWait() time.Duration {
	if s.Deadline.IsZero() {
		return s.CatalogTimeout
	}
	return min(s.CatalogTimeout, max(time.Until(s.Deadline), minCatalogWait))
}

// env is the transaction environment of this service.
func (s *Service) env() *txn.Env {
	return &txn.Env{Home: s.Home, FS: s.FS, Store: s.store, Journal: s.back.journal(), Backend: s.back, Now: s.Now, CatalogTimeout: s.catalogWait(), Hook: s.hook, Faults: s.faults, Catalog: s.cat()}
}

// Recover runs one recovery scan and, when it found records or failed,
// remembers its report in the catalog (graft status shows the last one). An
// empty scan writes nothing: every command runs one, and a catalog write
// costs two fsyncs. A report the catalog cannot take is not an error of
// the scan (every command runs one first, and the catalog is derived): it
// is a note (TakeDegraded). ctx is checked before the scan starts: once it
// runs, each record it resolves is resolved whole.
func (s *Service) Recover(ctx context.Context) (*recovery.Report, error) {
	if err := cancelled(ctx, "recovery scan"); err != nil {
		return nil, err
	}
	rep, err := recovery.Run(s.env())
	if rep != nil && (err == nil || errors.Is(err, recovery.ErrIncomplete)) {
		// Then the exports committed handoffs still owe their hosts (a
		// handoff killed between its commit and its export).
		done, problems := s.finishAllOwed()
		s.OwedFinished = append(s.OwedFinished, done...)
		for _, d := range done {
			if d.Export != nil {
				rep.Exports = append(rep.Exports, fmt.Sprintf("the handoff %s → %s (txn %s) is exported: %s session %s, resumed with: %s", d.Source, d.Target, d.Txn, d.Host, d.Export.HostSessionID, d.Export.ResumeCommand))
			} else {
				rep.Exports = append(rep.Exports, fmt.Sprintf("the handoff %s → %s (txn %s) owes no export any more: %s", d.Source, d.Target, d.Txn, d.Void))
			}
		}
		rep.Warnings = append(rep.Warnings, problems...)
	}
	if rep != nil && (rep.Scanned > 0 || len(rep.Swept) > 0 || len(rep.Exports) > 0 || err != nil) {
		if merr := s.putMeta("last-recovery", LastRecovery{At: s.Now().UTC(), Report: rep, Error: errString(err)}); merr != nil {
			s.degrade("the recovery report was not remembered in catalog.db (graft status will not show it): %s", catalog.Problem(merr))
		}
	}
	return rep, err
}

// RebuildReport is what RebuildCatalog derived from the logs, and where a
// damaged catalog.db was moved ("" when it was healthy).
type RebuildReport struct {
	*recovery.RebuildReport
	MovedAside string `json:"movedAside,omitempty"`
}

// CatalogRebuild is what RebuildCatalog did.
type CatalogRebuild struct {
	// Scan is the recovery scan's report (nil when the scan could not
	// run) and ScanErr the scan's error: records it left unresolved stop
	// the rebuild, and the report says which they are.
	Scan    *recovery.Report
	ScanErr error
	// MovedAside is where a damaged catalog.db was moved, kept as
	// evidence ("" when it was healthy or missing): set as soon as it was
	// moved, whatever failed after.
	MovedAside string
	// Rebuild is what was derived again; nil unless the rebuild ran.
	Rebuild *RebuildReport
}

// RebuildCatalog is graft recover --rebuild-catalog, on a service opened
// with SkipRecovery: a damaged catalog.db is moved aside first
// (MoveAsideDamagedCatalog), since the scan may have to record lineage and
// leftovers in a new one; then the recovery scan runs (Recover) and, when
// it resolved every record, lineage and leftovers are derived again from
// the logs (recovery.Rebuild). The prepared reviews of a damaged catalog
// are not carried over. The error is moving the catalog aside or the
// rebuild failing; the scan's own error is in the result (ScanErr), beside
// its report. The result is never nil.
func (s *Service) RebuildCatalog() (*CatalogRebuild, error) {
	res := &CatalogRebuild{}
	var err error
	if res.MovedAside, err = s.MoveAsideDamagedCatalog(); err != nil {
		return res, err
	}
	res.Scan, res.ScanErr = s.Recover(context.Background())
	if res.Scan == nil || res.ScanErr != nil {
		return res, nil
	}
	r, err := recovery.Rebuild(s.env())
	if err != nil {
		return res, err
	}
	res.Rebuild = &RebuildReport{RebuildReport: r, MovedAside: res.MovedAside}
	return res, nil
}

// Append adds events to a session under its lock, so an append never
// interleaves with a commit's retire mark (which would repeat a seq). It
// waits up to 10 s for a commit in flight to finish.
func (s *Service) Append(id string, evs []session.Event) ([]session.Event, error) {
	if err := session.ValidID(id); err != nil {
		return nil, err
	}
	l, err := s.store.LockSession(id, 10*time.Second)
	if err != nil {
		if errors.Is(err, txn.ErrLocked) {
			return nil, fmt.Errorf("%w (waited 10s)", err)
		}
		if errors.Is(err, lockfile.ErrLocked) {
			return nil, fmt.Errorf("%w: %v (waited 10s)", txn.ErrLocked, err)
		}
		return nil, err
	}
	evs, err = s.store.Append(id, evs)
	if uerr := l.Unlock(); uerr != nil {
		err = errors.Join(err, uerr)
	}
	return evs, err
}

// cancelled is ctx's error, wrapped with what it stopped, or nil
// (foldcache.Cancelled).
func cancelled(ctx context.Context, what string) error { return foldcache.Cancelled(ctx, what) }
