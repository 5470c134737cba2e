package recovery

import (
	"testing"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
)

// One fold serves every record of a source while the log is unchanged; an
// append in between (a live process) forces a new fold that sees it.
func TestSourceFoldsReuseOnlyAnUnchangedLog(t *testing.T) {
	home := t.TempDir()
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		t.Fatal(err)
	}
	msg := session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "hi"}
	if _, err := st.Append("s", []session.Event{msg}); err != nil {
		t.Fatal(err)
	}
	folds := &sourceFolds{env: &txn.Env{Home: home, FS: vfs.Default, Store: st}, m: map[string]*session.Info{}}
	first, err := folds.info("s")
	if err != nil {
		t.Fatal(err)
	}
	again, err := folds.info("s")
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Fatalf("an unchanged log was folded again")
	}
	if _, err := st.AppendMark("s", session.Event{Type: session.TypeGraftRetired, Source: session.Source{Kind: session.KindPlugin}, Txn: "t1", Target: "s.g2"}); err != nil {
		t.Fatal(err)
	}
	after, err := folds.info("s")
	if err != nil {
		t.Fatal(err)
	}
	if after == first || !after.HasRetired("t1", "s.g2") || after.LastSeq != 2 {
		t.Fatalf("after an append the fold is stale: lastSeq %d, retired t1 %v", after.LastSeq, after.HasRetired("t1", "s.g2"))
	}
}
