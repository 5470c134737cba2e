package etcdstore

import "github.com/graft-project/graft/catalog"

// CatalogBackend is the store's catalog.Backend, for the contract test.
func (s *Store) CatalogBackend() catalog.Backend { return &backend{s: s} }
