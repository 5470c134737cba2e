package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/session"
)

// plant puts something that is not a regular file at the path of id.
type plant struct {
	name string
	make func(t *testing.T, path, outside string)
}

var plants = []plant{
	{"symlink to a log outside", func(t *testing.T, path, outside string) {
		if err := os.Symlink(outside, path); err != nil {
			t.Fatal(err)
		}
	}},
	{"dangling symlink", func(t *testing.T, path, outside string) {
		if err := os.Symlink(outside+".missing", path); err != nil {
			t.Fatal(err)
		}
	}},
	{"symlink to a directory", func(t *testing.T, path, outside string) {
		if err := os.Symlink(filepath.Dir(outside), path); err != nil {
			t.Fatal(err)
		}
	}},
	{"directory", func(t *testing.T, path, outside string) {
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
	}},
	// Opening a FIFO blocks until its other end comes: the store must refuse
	// it without opening it.
	{"fifo", func(t *testing.T, path, outside string) {
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
	}},
}

func TestPlantedFileRefused(t *testing.T) {
	for _, p := range plants {
		t.Run(p.name, func(t *testing.T) {
			st := newStore(t)
			outsideDir := t.TempDir()
			outside := filepath.Join(outsideDir, "victim.jsonl")
			content := line(t, 1, assistant("victim")) + `{"seq":2,"torn`
			if err := os.WriteFile(outside, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			p.make(t, st.Path("s"), outside)
			outsideBefore := snapshot(t, outsideDir)
			sessionsBefore := snapshot(t, st.Dir())

			// Run the operations aside: one that opens the FIFO would block
			// forever, and this test should fail, not hang the suite.
			done := make(chan map[string]error, 1)
			go func() {
				refusals := map[string]error{}
				_, refusals["Scan"] = st.Scan("s", session.ScanFrom{}, nil)
				_, refusals["Info"] = st.Info("s")
				_, _, refusals["ReadAll"] = st.ReadAll("s")
				_, refusals["Append"] = st.Append("s", []session.Event{assistant("x")})
				_, refusals["AppendMark"] = st.AppendMark("s", graftMark(session.TypeGraftAbandoned, "t1", ""))
				_, refusals["AppendMarkAfter"] = st.AppendMarkAfter("s", graftMark(session.TypeGraftAbandoned, "t1", ""), session.ScanResult{})
				_, refusals["Exists"] = st.Exists("s")
				refusals["RepairTail"] = st.RepairTail("s", &session.Info{ID: "s", ScanResult: session.ScanResult{End: 1, Torn: &session.Torn{Offset: 1, Bytes: 1}}})
				done <- refusals
			}()
			var refusals map[string]error
			select {
			case refusals = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("a store operation blocked on the planted %s", p.name)
			}
			for op, err := range refusals {
				if !errors.Is(err, session.ErrSymlink) {
					t.Errorf("%s: %v, want ErrSymlink", op, err)
				}
			}
			// O_EXCL never writes through an existing name of any kind.
			if err := st.Create("s", []session.Event{assistant("x")}); !errors.Is(err, session.ErrExists) {
				t.Errorf("Create: %v, want ErrExists", err)
			}
			if _, err := st.CreateWriter("s"); !errors.Is(err, session.ErrExists) {
				t.Errorf("CreateWriter: %v, want ErrExists", err)
			}
			if after := snapshot(t, outsideDir); after != outsideBefore {
				t.Errorf("the link's target changed:\n%s\nwas\n%s", after, outsideBefore)
			}
			if after := snapshot(t, st.Dir()); after != sessionsBefore {
				t.Errorf("sessions/ changed:\n%s\nwas\n%s", after, sessionsBefore)
			}
		})
	}
}
