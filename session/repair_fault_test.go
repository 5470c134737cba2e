package session_test

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// A .broken copy that cannot be completed (ENOSPC on its write or fsync) is
// removed again: the torn bytes are still in the log, and the next repair
// uses .broken, not .broken.1.
func TestRepairTailDropsAnIncompleteBrokenCopy(t *testing.T) {
	for _, kind := range []errorfs.OpKind{errorfs.OpWrite, errorfs.OpSync} {
		t.Run(string(kind), func(t *testing.T) {
			home := t.TempDir()
			st, err := session.OpenStore(vfs.Default, home)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Append("s", []session.Event{{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "hi"}}); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(st.Path("s"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(`{"seq":2,"ty`); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			faulty := errorfs.Wrap(vfs.Default, errorfs.OnKind(kind, ".broken", 1, syscall.ENOSPC))
			fst, err := session.OpenStore(faulty, home)
			if err != nil {
				t.Fatal(err)
			}
			_, err = fst.Append("s", []session.Event{{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "x"}})
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("append with a failing .broken %s: %v, want ENOSPC", kind, err)
			}
			if _, err := os.Lstat(st.Path("s") + ".broken"); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the incomplete .broken copy is still there (%v)", err)
			}
			if _, err := st.Append("s", []session.Event{{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "x"}}); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(st.Path("s") + ".broken")
			if err != nil || string(got) != `{"seq":2,"ty` {
				t.Fatalf(".broken after the second repair: %q, %v", got, err)
			}
		})
	}
}
