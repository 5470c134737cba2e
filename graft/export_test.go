package graft

import (
	"context"
	"encoding/json"

	"github.com/graft-project/graft/etcdstore"
	"github.com/graft-project/graft/foldcache"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
)

// What graft's own tests reach inside a Service; no other package sees it.

// Store is the session store.
func (s *Service) Store() *session.Store { return s.store }

// Journal is the file store's transaction journal (.txn/); nil on etcd.
func (s *Service) Journal() *journal.Journal {
	if f, ok := s.back.(*fileStore); ok {
		return f.jrnl
	}
	return nil
}

// TxnJournal is where the records of transactions in flight live.
func (s *Service) TxnJournal() txn.RecordStore { return s.back.journal() }

// Env is the transaction environment.
func (s *Service) Env() *txn.Env { return s.env() }

// Coordinated is the etcd store the service runs on (nil: the file store).
func (s *Service) Coordinated() *etcdstore.Store {
	if e, ok := s.back.(*etcdBackend); ok {
		return e.Store
	}
	return nil
}

// SetHook sets the transaction's crash-point hook (Options.Hook).
func (s *Service) SetHook(h func(txn.Point)) { s.hook = h }

// SetFoldHook sets Options.FoldHook.
func (s *Service) SetFoldHook(h func(source string, events int64)) { s.foldHook = h }

// sourceFold is one fold of the service's fold cache, its builder and
// state fold named as graft's tests name them.
type sourceFold struct {
	*foldcache.Fold
	b    *tape.Builder
	info *session.Info
}

// foldSource folds the log of source as prepare does (foldcache.Cache.Fold).
func (s *Service) foldSource(source string) (*sourceFold, error) {
	fo, err := s.folds().Fold(context.Background(), source)
	if fo == nil {
		return nil, err
	}
	return &sourceFold{Fold: fo, b: fo.Builder, info: fo.Info}, err
}

// logOutputs reads the tool outputs a tape quotes from f (foldcache.LogOutputs).
type logOutputs struct {
	f    vfs.File
	path string
}

func (o logOutputs) Output(seq, off int64, size int) (string, error) {
	return foldcache.LogOutputs{F: o.f, Path: o.path}.Output(seq, off, size)
}

func (o logOutputs) Input(seq, off int64, size int) (json.RawMessage, error) {
	return foldcache.LogOutputs{F: o.f, Path: o.path}.Input(seq, off, size)
}
