package graft

import (
	"encoding/json"
	"fmt"
	"github.com/graft-project/graft/version"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/nonnil"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
)

// SessionStatus is one session in graft status.
type SessionStatus struct {
	ID         string `json:"id"`
	State      string `json:"state"`
	Events     int    `json:"events"`
	LastSeq    int64  `json:"lastSeq"`
	Generation int    `json:"generation"`
	Parent     string `json:"parent,omitempty"`
	Target     string `json:"target,omitempty"`
	Head       string `json:"head"`
	// HeadProblem says why the head stops short: a live target (or the
	// parent an abandoned target hands back to) has no log.
	HeadProblem string        `json:"headProblem,omitempty"`
	Torn        *session.Torn `json:"torn,omitempty"`
	Error       string        `json:"error,omitempty"`
}

// Status is graft status.
type Status struct {
	// GraftVersion is the build that answered (version.Info.Short), for a
	// program reading the JSON.
	GraftVersion string `json:"graftVersion"`
	Home         string `json:"home"`
	// Store is "file", or the etcd store's URL (etcd://…/prefix).
	Store        string             `json:"store"`
	Sessions     []SessionStatus    `json:"sessions"`
	Pending      []journal.Record   `json:"pending"`
	Corrupt      []string           `json:"corruptRecords"`
	Leftovers    []catalog.Leftover `json:"leftovers"`
	LastRecovery *LastRecovery      `json:"lastRecovery,omitempty"`
	// CatalogError is set when catalog.db could not be read (busy,
	// damaged, unreadable), with what to do: the sessions above come from
	// the logs and are still right; Leftovers and LastRecovery are missing.
	CatalogError string `json:"catalogError,omitempty"`
	// Strays are files in sessions/ named like logs but not with a valid
	// session id: no command reads them (session.Store.ListAll).
	Strays []string `json:"strays"`
	// HostSessions are the host sessions bound to graft sessions
	// ($GRAFT_HOME/hosts/): exported targets, followed transcripts, and
	// host sessions used after their handoff (stray).
	HostSessions []hosts.Binding `json:"hostSessions"`
	// OwedExports are the host sessions committed handoffs still owe
	// (killed between the commit and the export, or the export failed):
	// the next graft command writes them, or graft export by hand.
	OwedExports []catalog.Owed `json:"owedExports"`
}

// SessionState folds one session for status; an unreadable log is reported
// in the row, not fatal for the listing.
func (s *Service) SessionState(id string) SessionStatus {
	row := SessionStatus{ID: id}
	info, err := s.store.Info(id)
	if err != nil {
		row.State, row.Error = "unreadable", err.Error()
		return row
	}
	row.Events, row.LastSeq, row.Generation, row.Torn = info.Events, info.LastSeq, info.Generation(), info.Torn
	row.State = string(info.State())
	if info.Origin != nil {
		row.Parent = info.Origin.Parent
	}
	if g, ok := info.Live(); ok {
		row.Target = g.Target
	}
	if row.State == string(session.StateActive) {
		if err := s.store.Check(info); err != nil {
			row.State, row.Error = "uncommitted", err.Error()
		}
	}
	row.Head, row.HeadProblem = s.lineage().Head(id)
	return row
}

// Status lists sessions, records in flight, leftovers and the last scan.
func (s *Service) Status() (*Status, error) {
	ids, strays, err := s.store.ListAll()
	if err != nil {
		return nil, err
	}
	st := &Status{GraftVersion: version.Get().Short(), Home: s.Home, Sessions: []SessionStatus{}, Pending: []journal.Record{}, Corrupt: []string{}, Leftovers: []catalog.Leftover{}, OwedExports: []catalog.Owed{}, Strays: nonnil.Slice(strays)}
	for _, id := range ids {
		st.Sessions = append(st.Sessions, s.SessionState(id))
	}
	if st.HostSessions, err = s.Bindings().List(); err != nil {
		return nil, err
	}
	st.HostSessions = nonnil.Slice(st.HostSessions)
	st.Store = s.back.setting()
	scan, err := s.back.journal().Scan()
	if err != nil {
		return nil, err
	}
	st.Pending = append(st.Pending, scan.Records...)
	for _, c := range scan.Corrupt {
		st.Corrupt = append(st.Corrupt, c.Error())
	}
	err = s.viewCatalog(func(db *catalog.DB) error {
		ls, err := db.AllLeftovers()
		if err != nil {
			return err
		}
		st.Leftovers = append(st.Leftovers, ls...)
		owed, err := db.OwedExports()
		if err != nil {
			return err
		}
		st.OwedExports = append(st.OwedExports, owed...)
		// The lineage a commit and a revert write on is read for its
		// health alone: a damaged node makes the next commit of its
		// session fail after its commit point, so status says it first.
		if _, err := db.Nodes(); err != nil {
			return err
		}
		b, ok, err := db.GetMeta("last-recovery")
		if err != nil {
			return err
		}
		if ok {
			var lr LastRecovery
			if err := json.Unmarshal(b, &lr); err != nil {
				return fmt.Errorf("graft: the last-recovery record in the catalog is unreadable: %w", err)
			}
			st.LastRecovery = &lr
		}
		return nil
	})
	if err != nil {
		// The catalog is derived: the sessions above come from the logs
		// and are right; what only the catalog holds is missing.
		st.Leftovers, st.LastRecovery, st.OwedExports = []catalog.Leftover{}, nil, []catalog.Owed{}
		st.CatalogError = catalog.Problem(err)
		s.degrade("status: catalog.db not read, the sessions come from the logs; leftovers, owed exports and the last recovery scan are not shown: %s", st.CatalogError)
	}
	return st, nil
}
