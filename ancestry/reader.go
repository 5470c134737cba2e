package ancestry

import (
	"errors"
	"fmt"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/foldcache"
	"github.com/graft-project/graft/session"
)

// Reader answers the read-only questions of one graft home: what it needs
// of the service that asks, and nothing of the service itself. It holds
// nothing between calls, so a caller may make one per operation.
type Reader struct {
	// Store is the home's session store: the logs, the truth.
	Store *session.Store
	// Catalog opens catalog.db (or the etcd store's catalog) for one
	// operation: the lineage reads its children and leftovers there.
	Catalog func() catalog.Opener
	// Degrade records that a read fell back to the logs, and why (the
	// service's notes); nil drops them.
	Degrade func(format string, args ...any)
	// Folds is the home's fold cache: the audit folds a session as
	// prepare does, and recall --origin recalls the event asked about.
	Folds *foldcache.Cache
}

// errFound stops a scan once the event is found.
var errFound = errors.New("found")

// degrade records a read that fell back to the logs.
func (r *Reader) degrade(format string, args ...any) {
	if r.Degrade != nil {
		r.Degrade(format, args...)
	}
}

// Head follows live targets from id to the session to continue in. An
// abandoned or uncommitted target hands over to its parent, whose own live
// graft (if any) is followed in turn. A live target (or the parent an
// abandoned target hands back to) whose log is gone (a hand deletion; the
// protocol never removes one) is skipped, the head being the last session
// with a log, and problem names the missing one.
func (r *Reader) Head(id string) (head, problem string) {
	cur := id
	var from, role string // the session that led to cur, and how
	for hops := 0; hops < 1000; hops++ {
		info, err := r.Store.Info(cur)
		if err != nil {
			if from != "" && errors.Is(err, session.ErrNotFound) {
				return from, fmt.Sprintf("the %s %s of %s has no log (deleted?): the head shown is %s; nothing can continue past it", role, cur, from, from)
			}
			return cur, ""
		}
		if g, ok := info.Live(); ok {
			from, role, cur = cur, "live target", g.Target
			continue
		}
		if info.Origin != nil && r.Store.Check(info) != nil {
			from, role, cur = cur, "parent", info.Origin.Parent
			continue
		}
		return cur, ""
	}
	return cur, ""
}
