package catalog

import "testing"

// ContractStores opens a fresh, empty Backend of each kind the catalog's
// tests run on (bbolt's catalog.db, the memory store), for the contract
// test outside the package (internal/catalogtest imports catalog), with
// three of its buckets.
func ContractStores(t *testing.T) (stores map[string]Backend, main, other, absent string) {
	stores = map[string]Backend{}
	for _, b := range backends {
		db, err := b.store(t)()
		if err != nil {
			t.Fatalf("opening the %s catalog: %v", b.name, err)
		}
		t.Cleanup(func() {
			if err := db.Close(); err != nil {
				t.Errorf("closing the %s catalog: %v", b.name, err)
			}
		})
		stores[b.name] = db.b
	}
	return stores, bucketLeftovers, bucketMeta, bucketLineage
}
