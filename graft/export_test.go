package graft

import (
	"github.com/graft-project/graft/etcdstore"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
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
func (s *Service) TxnJournal() txn.Journal { return s.back.journal() }

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
