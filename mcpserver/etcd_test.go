package mcpserver

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/internal/etcdtest"
)

// The MCP server runs unchanged on the etcd store: the same tools, the
// same review → commit flow, with the journal and the catalog on the
// cluster (nothing of them in the home).
func TestToolsOnTheEtcdStore(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	f := newFixture(t, Options{}, graft.Options{Store: c.URL("mcp") + "?lease=2s&timeout=3s"})
	t.Cleanup(func() {
		if err := f.svc.Close(); err != nil {
			t.Errorf("closing the service (its lease): %v", err)
		}
	})
	rv := f.prepare(nil)
	cm := f.commit(rv)
	if cm.Source != "s" || cm.TargetID == "" {
		t.Fatalf("commit = %+v", cm)
	}
	st := ok[StatusOutput](f, ToolStatus, map[string]any{})
	if r := row(t, st, "s"); r.State != "retired" {
		t.Errorf("source after the commit: %+v", r)
	}
	if r := row(t, st, cm.TargetID); r.State != "active" {
		t.Errorf("target after the commit: %+v", r)
	}
	if len(st.Pending) != 0 {
		t.Errorf("pending after the commit: %+v", st.Pending)
	}
	msg := f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash}, "used_prepared")
	mustContain(t, "second commit", msg, rv.PreparedID)
	if _, err := os.Stat(filepath.Join(f.home, catalog.FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the etcd store made catalog.db in the home: %v", err)
	}
}
