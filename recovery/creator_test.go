package recovery_test

import (
	"testing"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// TestRecoveryLeavesALogBeingCreatedAlone (issue 19, finding 1): a commit
// into u crashed after writing its record, before creating u. Another
// creator (an import, gen) now creates u.jsonl and is still writing it: the
// file is empty, or holds a torn first line, like the shell of this txn.
// The creator holds u's session lock, so the scan finds the record busy and
// touches nothing; once the creator is done, the scan rolls the record back
// and leaves u, which is not the txn's, as it is.
func TestRecoveryLeavesALogBeingCreatedAlone(t *testing.T) {
	c := newCrashHome(t, vfs.Default)
	c.createSource("s")
	rec, _ := c.plannedGraft("s", "u", "")
	c.writeRecord(rec)
	srcBefore := c.bytesOf("s")

	w, err := c.store().CreateWriter("u")
	if err != nil {
		t.Fatal(err)
	}
	rep := c.run()
	if rep.Scanned != 1 || rep.Busy != 1 || rep.RolledBack != 0 || len(rep.Leftovers) != 0 {
		t.Errorf("scan while u is being created: %+v, want the record busy and nothing done", rep)
	}
	if c.bytesOf("u") == nil {
		t.Fatal("the scan removed u.jsonl while its creator was writing it, as the txn's empty shell")
	}
	for _, ev := range []session.Event{
		{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "the creator's first message"},
		{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "and its answer"},
	} {
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rolledBack(t, c.run())
	info, err := c.store().Info("u")
	if err != nil || info.Events != 2 || info.Abandoned != nil || info.Origin != nil {
		t.Fatalf("u after the scans: %+v, %v; want the creator's 2 events, unmarked", info, err)
	}
	if len(c.leftovers("s")) != 0 || string(c.bytesOf("s")) != string(srcBefore) || c.recordExists(rec.Txn) {
		t.Errorf("the roll-back recorded a leftover, changed the source or kept the record")
	}
	c.secondRunIsANoOp()
}
