package session_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	graftindex "github.com/graft-project/graft/index"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

func appendN(t *testing.T, st *session.Store, id string, from, n int) {
	t.Helper()
	evs := make([]session.Event, n)
	for k := range evs {
		evs[k] = session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: fmt.Sprintf("message %d %s", from+k, strings.Repeat("x", 200))}
	}
	if _, err := st.Append(id, evs); err != nil {
		t.Fatal(err)
	}
}

// foldFromScratch is Info with the checkpoint removed: the whole log folded.
func foldFromScratch(t *testing.T, st *session.Store, home, id string) *session.Info {
	t.Helper()
	cp := session.CheckpointPath(home, id)
	saved, err := os.ReadFile(cp)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err == nil {
		if err := os.Remove(cp); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := os.WriteFile(cp, saved, 0o600); err != nil {
				t.Fatal(err)
			}
		}()
	}
	old := session.CheckpointEvery
	session.CheckpointEvery = 1 << 62
	defer func() { session.CheckpointEvery = old }()
	info, err := st.Info(id)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func sameInfo(t *testing.T, what string, got, want *session.Info) {
	t.Helper()
	g, err := got.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	w, err := want.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) || got.Events != want.Events {
		t.Fatalf("%s: Info from the checkpoint differs from a whole fold:\n got %s (events %d)\nwant %s (events %d)", what, g, got.Events, w, want.Events)
	}
}

// TestInfoResumesFromItsCheckpoint: Info writes a state checkpoint after
// CheckpointEvery bytes and the next Info folds only what was appended
// since, with the same result as a whole fold; a checkpoint that no longer
// matches its log (rewritten, replaced, shorter) is not used.
func TestInfoResumesFromItsCheckpoint(t *testing.T) {
	old := session.CheckpointEvery
	session.CheckpointEvery = 4 << 10
	defer func() { session.CheckpointEvery = old }()
	st, home := testfixtures.NewStore(t)
	appendN(t, st, "s", 0, 100)
	info, err := st.Info("s")
	if err != nil || info.CheckpointErr() != nil {
		t.Fatalf("Info: %v, checkpoint %v", err, info.CheckpointErr())
	}
	if _, err := os.Stat(session.CheckpointPath(home, "s")); err != nil {
		t.Fatalf("no checkpoint after folding %d bytes: %v", info.End, err)
	}
	sameInfo(t, "no new events", mustInfo(t, st, "s"), foldFromScratch(t, st, home, "s"))
	appendN(t, st, "s", 100, 3)
	sameInfo(t, "three more events", mustInfo(t, st, "s"), foldFromScratch(t, st, home, "s"))
	appendN(t, st, "s", 103, 60)
	sameInfo(t, "sixty more (a new checkpoint)", mustInfo(t, st, "s"), foldFromScratch(t, st, home, "s"))

	// The checkpoint is used: planted state is believed when the log still
	// matches it (this is what makes the fold cheap)...
	cp := session.CheckpointPath(home, "s")
	raw, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	var cpState graftindex.State
	if err := json.Unmarshal(raw, &cpState); err != nil {
		t.Fatal(err)
	}
	plantedInfo := strings.Replace(string(cpState.Info), `"lastHuman":`, `"lastHuman":9`, 1)
	if plantedInfo == string(cpState.Info) {
		t.Fatalf("no lastHuman in the checkpoint %s", raw)
	}
	logf, err := os.Open(st.Path("s"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	if err := graftindex.NewWriter(vfs.Default, home).WriteState("s", logf, cpState.Dev, cpState.Ino, cpState.Offset, cpState.Line, json.RawMessage(plantedInfo)); err != nil {
		t.Fatal(err)
	}
	if got := mustInfo(t, st, "s"); got.LastHuman < 9000 {
		t.Fatalf("LastHuman %d: the planted checkpoint was not used", got.LastHuman)
	}
	// ... but not a byte of it changed on the disk, which its checksum
	// catches: the log is folded whole instead.
	damaged := strings.Replace(string(raw), `"lastHuman":`, `"lastHuman":9`, 1)
	if err := os.WriteFile(cp, []byte(damaged), 0o600); err != nil {
		t.Fatal(err)
	}
	got := mustInfo(t, st, "s")
	if err := got.CheckpointErr(); err == nil || !strings.Contains(err.Error(), "checksum does not match") {
		t.Fatalf("a damaged checkpoint: CheckpointErr %v, want its checksum named", err)
	}
	if err := os.WriteFile(cp, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	sameInfo(t, "a damaged checkpoint", got, foldFromScratch(t, st, home, "s"))
	data, err := os.ReadFile(st.Path("s"))
	if err != nil {
		t.Fatal(err)
	}
	// ... and refused when the log no longer does: rewritten in place past
	// the checkpoint's tail, or replaced by a copy (another inode).
	edited := []byte(strings.Replace(string(data), "message 162 ", "message 16X ", 1))
	if err := os.WriteFile(st.Path("s"), edited, 0o600); err != nil {
		t.Fatal(err)
	}
	rewritten := mustInfo(t, st, "s")
	sameInfo(t, "rewritten in place", rewritten, foldFromScratch(t, st, home, "s"))
	if err := rewritten.CheckpointErr(); err == nil || !strings.Contains(err.Error(), "bytes before its offset changed") {
		t.Fatalf("a checkpoint no longer matching its log: CheckpointErr %v, want it named", err)
	}
	tmp := st.Path("s") + ".copy"
	if err := os.WriteFile(tmp, edited[:len(edited)/2+strings.IndexByte(string(edited[len(edited)/2:]), '\n')+1], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, st.Path("s")); err != nil {
		t.Fatal(err)
	}
	got = mustInfo(t, st, "s")
	sameInfo(t, "replaced by a shorter copy", got, foldFromScratch(t, st, home, "s"))
	if got.LastSeq >= 163 {
		t.Fatalf("the shorter copy folds to seq %d: the stale checkpoint was used", got.LastSeq)
	}
}

func mustInfo(t *testing.T, st *session.Store, id string) *session.Info {
	t.Helper()
	info, err := st.Info(id)
	if err != nil {
		t.Fatal(err)
	}
	return info
}
