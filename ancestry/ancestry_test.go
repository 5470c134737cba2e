package ancestry_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/graft-project/graft/ancestry"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

func human(text string) session.Event {
	return session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: text}
}

func origin(txn, parent string, gen int) session.Event {
	return session.Event{Type: session.TypeGraftOrigin, Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
		Txn: txn, Parent: parent, ParentBoundary: 1, Generation: gen, TapeHash: "sha256:00"}
}

func retired(txn, target string) session.Event {
	return session.Event{Type: session.TypeGraftRetired, Source: session.Source{Kind: session.KindPlugin, Name: "graft"}, Txn: txn, Target: target}
}

// chain writes s (generation 1) ← s.g2 ← s.g3 as the protocol leaves
// them: each target opens with its graft/origin, each source ends with
// graft/retired naming its target.
func chain(t *testing.T) (*ancestry.Reader, *session.Store) {
	t.Helper()
	st, err := session.OpenStore(vfs.Default, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.Create("s", []session.Event{human("Build the pager. Never touch vendor/.")}))
	must(st.Create("s.g2", []session.Event{origin("txn-1", "s", 2), human("Go on.")}))
	_, err = st.AppendMark("s", retired("txn-1", "s.g2"))
	must(err)
	must(st.Create("s.g3", []session.Event{origin("txn-2", "s.g2", 3), human("Ship it.")}))
	_, err = st.AppendMark("s.g2", retired("txn-2", "s.g3"))
	must(err)
	return &ancestry.Reader{Store: st}, st
}

// Ancestors and Parent read the chain from the logs alone (no catalog).
func TestAncestorsFromTheLogs(t *testing.T) {
	r, _ := chain(t)
	as, err := r.Ancestors("s.g3")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range as {
		got = append(got, fmt.Sprintf("%s/%d", a.Session, a.Generation))
	}
	if want := "[s.g3/3 s.g2/2 s/1]"; fmt.Sprint(got) != want {
		t.Fatalf("ancestors %v, want %s", got, want)
	}
	if p, err := r.Parent("s.g2"); err != nil || p != "s" {
		t.Fatalf("parent of s.g2: %q, %v", p, err)
	}
	if p, err := r.Parent("s"); err != nil || p != "" {
		t.Fatalf("parent of a generation-1 session: %q, %v", p, err)
	}
	if _, err := r.Ancestors("../x"); err == nil {
		t.Fatal("an invalid id was read")
	}
}

// A chain whose parent log is gone is broken, and says where; the part read
// so far is returned.
func TestBrokenLineage(t *testing.T) {
	r, st := chain(t)
	if err := os.Remove(st.Path("s")); err != nil {
		t.Fatal(err)
	}
	as, err := r.Ancestors("s.g3")
	if !errors.Is(err, ancestry.ErrBrokenLineage) || len(as) != 2 || !strings.Contains(err.Error(), "names parent s") {
		t.Fatalf("ancestors %v, err %v: want the two read and ErrBrokenLineage naming s", as, err)
	}
}

// Head follows the live targets down to the session to continue in; a
// live target whose log is gone leaves the head at the last one with a
// log, and the problem names the missing one.
func TestHead(t *testing.T) {
	r, st := chain(t)
	if h, problem := r.Head("s"); h != "s.g3" || problem != "" {
		t.Fatalf("head of s: %q (%q), want s.g3", h, problem)
	}
	if h, _ := r.Head("s.g3"); h != "s.g3" {
		t.Fatalf("head of s.g3: %q", h)
	}
	if err := os.Remove(st.Path("s.g3")); err != nil {
		t.Fatal(err)
	}
	if h, problem := r.Head("s"); h != "s.g2" || !strings.Contains(problem, "s.g3") || !strings.Contains(problem, "no log") {
		t.Fatalf("head of s with s.g3's log gone: %q (%q)", h, problem)
	}
}
