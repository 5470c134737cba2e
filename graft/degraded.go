package graft

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"

	"github.com/graft-project/graft/catalog"
)

// Degraded reads. catalog.db (except its prepared reviews) and index/ are
// derived from the logs, and the logs are the truth (docs/DESIGN.md §3): a
// read that cannot use them (damaged, unreadable, held by another process,
// not writable) reads the logs instead and says so. It says so in its
// result where the result has a place for it (Status.CatalogError, a
// review's warnings, a lineage's problems, RecallPath.FullScan) and, always,
// in the service's notes, which the CLI prints on stderr and the MCP server
// logs (TakeDegraded). What cannot do without the catalog fails with an
// error that names it and what to do: prepare (commit reads its review
// there), show --prepared, commit.

// notes are the degradations since the last TakeDegraded.
type notes struct {
	mu   sync.Mutex
	list []string
}

// degrade records that a read fell back to the logs, and why.
func (s *Service) degrade(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.notes.mu.Lock()
	defer s.notes.mu.Unlock()
	if !slices.Contains(s.notes.list, msg) {
		s.notes.list = append(s.notes.list, msg)
	}
}

// TakeDegraded returns what the service's reads could not use since the
// last call (each: what was read from the logs instead, and why, and what
// to do), and forgets it.
func (s *Service) TakeDegraded() []string {
	s.notes.mu.Lock()
	defer s.notes.mu.Unlock()
	out := s.notes.list
	s.notes.list = nil
	return out
}

// viewCatalog runs fn on catalog.db for reading (catalog.View: read-only
// when it cannot be opened for writing).
func (s *Service) viewCatalog(fn func(*catalog.DB) error) error {
	return s.cat().View(fn)
}

// catalogNeeded is the error of an operation that cannot do without
// catalog.db: it wraps err (codes still match) and says what to do.
func catalogNeeded(what string, err error) error {
	return fmt.Errorf("graft: %s: %w%s", what, err, catalog.Advice(err))
}

// MoveAsideDamagedCatalog moves catalog.db aside when it is damaged
// (catalog.Check finds it so), keeping it as evidence
// (catalog.db.corrupt-<time>), and returns the new name: the next catalog
// use creates a new one, which graft recover --rebuild-catalog fills from
// the logs. The prepared reviews in the damaged file are not carried over.
// A healthy or missing catalog is left alone (""); a busy or unreadable
// one is an error.
func (s *Service) MoveAsideDamagedCatalog() (string, error) {
	if s.back.catalogFile() == "" {
		return "", nil // the catalog is on etcd: no file to move
	}
	err := catalog.Check(s.Home, s.CatalogTimeout)
	switch {
	case err == nil, errors.Is(err, fs.ErrNotExist):
		return "", nil
	case !errors.Is(err, catalog.ErrCorrupt):
		return "", catalogNeeded("checking catalog.db before the rebuild", err)
	}
	return catalog.MoveAside(s.Home, s.Now(), s.CatalogTimeout)
}

// CheckCatalog reads what status reads of catalog.db (leftovers, owed
// exports) and the lineage a commit and a revert write on, and returns why
// it could not: graft doctor's catalog health, with the error's code
// (catalog_damaged, catalog_busy, …).
func (s *Service) CheckCatalog() error {
	return s.viewCatalog(func(db *catalog.DB) error {
		if _, err := db.AllLeftovers(); err != nil {
			return err
		}
		if _, err := db.Nodes(); err != nil {
			return err
		}
		_, err := db.OwedExports()
		return err
	})
}
