package catalog_test

import (
	"testing"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/internal/catalogtest"
)

// The Backend contract the catalog relies on (internal/catalogtest), on
// every backend the catalog's tests run on; etcdstore runs it on etcd.
func TestBackendContract(t *testing.T) {
	stores, main, other, absent := catalog.ContractStores(t)
	for name, b := range stores {
		t.Run(name, func(t *testing.T) {
			catalogtest.BackendContract(t, b, catalogtest.Buckets{Main: main, Other: other, Absent: absent})
		})
	}
}
