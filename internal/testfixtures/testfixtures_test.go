package testfixtures

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/graft-project/graft/session"
)

func TestModuleRootHoldsGoMod(t *testing.T) {
	root := ModuleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("ModuleRoot = %s: %v", root, err)
	}
	if wd, err := os.Getwd(); err != nil || filepath.Join(root, "internal", "testfixtures") != wd {
		t.Fatalf("ModuleRoot = %s from %s (%v), want two levels up", root, wd, err)
	}
}

func TestPathNamesAFixtureInsideTheModule(t *testing.T) {
	p := Path(t, "claude-code")
	if want := filepath.Join(ModuleRoot(t), "testdata", "fixtures", "claude-code"); p != want {
		t.Fatalf("Path = %s, want %s", p, want)
	}
}

func TestStoreRoundTrip(t *testing.T) {
	st, home := NewStore(t)
	if st.Dir() != filepath.Join(home, "sessions") {
		t.Fatalf("store in %s, want home %s/sessions", st.Dir(), home)
	}
	if _, err := st.Append("s", []session.Event{{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "hi"}}); err != nil {
		t.Fatal(err)
	}
	if evs := ReadSession(t, st, "s"); len(evs) != 1 || evs[0].Text != "hi" {
		t.Fatalf("ReadSession = %+v", evs)
	}
}
