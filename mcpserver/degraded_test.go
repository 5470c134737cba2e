package mcpserver

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/graft"
)

// lockedBuffer collects the server's log lines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// With catalog.db damaged, graft_status and graft_recall answer from the
// logs (status says so in catalogError, the server's log names every
// fallback; recall, which never reads catalog.db, has none), and
// graft_prepare, which must store its review there, is a catalog_damaged
// tool error whose next step leads to the rebuild.
func TestToolsWithADamagedCatalog(t *testing.T) {
	var log lockedBuffer
	f := newFixture(t, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}, graft.Options{})
	f.prepare(nil)
	if err := os.RemoveAll(filepath.Join(f.home, "index")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.home, catalog.FileName), bytes.Repeat([]byte("not bbolt "), 10000), 0o600); err != nil {
		t.Fatal(err)
	}
	st := ok[StatusOutput](f, ToolStatus, map[string]any{})
	if len(st.Sessions) != 1 || !strings.Contains(st.CatalogError, "damaged") || !strings.Contains(st.CatalogError, "graft recover --rebuild-catalog") {
		t.Fatalf("graft_status with a damaged catalog: %s", describe(st))
	}
	rc := ok[RecallOutput](f, ToolRecall, map[string]any{"session": "s", "seq": 1})
	if rc.Content != firstGoal {
		t.Fatalf("graft_recall with a damaged catalog: %s", describe(rc))
	}
	if !strings.Contains(log.String(), "degraded read") || !strings.Contains(log.String(), "tool=graft_status") {
		t.Fatalf("the server's log does not name the fallback:\n%s", log.String())
	}
	if strings.Contains(log.String(), "tool=graft_recall") {
		t.Fatalf("graft_recall reads index/ and the log, never catalog.db, yet logged a degraded read:\n%s", log.String())
	}
	msg := f.fails(ToolPrepare, map[string]any{"source": "s"}, "catalog_damaged")
	if !strings.Contains(msg, "catalog.db") || !strings.Contains(msg, "rebuild-catalog option") {
		t.Fatalf("graft_prepare with a damaged catalog: %q", msg)
	}
}
