package recovery_test

import (
	"context"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// The source holds graft/retired but the target is gone (a filesystem that
// lied about an fsync, or a hand deletion): rolling forward would leave no
// usable session at all. Recovery un-retires the source instead, names the
// lost target as a leftover and says so in the report.
func TestRecoverRetiredIntoALostTarget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(c *crashHome, data []byte)
	}{
		{"target missing", func(c *crashHome, data []byte) {}},
		{"target of another txn", func(c *crashHome, data []byte) { c.createSource("s.g2") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCrashHome(t, vfs.Default)
			c.createSource("s")
			rv, err := c.svc.Prepare(context.Background(), "s", graft.PrepareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rec, data := c.plannedGraft("s", "s.g2", rv.PreparedID)
			rec.State = journal.ColdVerified
			c.writeRecord(rec)
			tc.target(c, data)
			c.mark("s", session.TypeGraftRetired, rec.Txn, "s.g2", "")

			rep := c.run()
			if rep.Scanned != 1 || rep.RolledForward != 0 || rep.RolledBack != 1 || len(rep.Warnings) != 1 {
				t.Fatalf("report %+v, want one record rolled back with a warning", rep)
			}
			info, err := c.store().Info("s")
			if err != nil {
				t.Fatal(err)
			}
			if info.State() != session.StateActive || c.store().Check(info) != nil {
				t.Fatalf("source after recovery: state %s, check %v; want it usable again", info.State(), c.store().Check(info))
			}
			if lo := c.leftovers("s"); len(lo) != 1 || lo[0].Target != "s.g2" || lo[0].Txn != rec.Txn {
				t.Errorf("leftovers of s: %+v, want the lost target named once", c.leftovers("s"))
			}
			if c.recordExists(rec.Txn) {
				t.Errorf("record %s is still in the journal", rec.Txn)
			}
			c.secondRunIsANoOp()
		})
	}
}
