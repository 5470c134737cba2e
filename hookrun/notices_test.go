package hookrun

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A notice is told once; a cause resolved and met again is told again; a
// first directory that cannot be made falls back to the next.
func TestNoticesOncePerCause(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fallback := filepath.Join(dir, "fallback", "hook-notices")
	open := func() *Notices { return OpenNotices(filepath.Join(blocker, "state"), fallback) }

	n := open()
	n.Record(KindConfig, "config broken")
	if got := open().Take(UserPromptSubmit); len(got) != 1 || got[0] != "config broken" {
		t.Fatalf("first take: %q, want the notice once", got)
	}
	if _, err := os.Stat(filepath.Join(fallback, Cause(KindConfig, "config broken")+".json")); err != nil {
		t.Fatalf("the notice is not in the fallback directory: %v", err)
	}
	n = open()
	n.Record(KindConfig, "config broken") // the same cause, met again
	if got := n.Take(SessionStart); len(got) != 0 {
		t.Fatalf("second take: %q, want nothing (shown already)", got)
	}
	open().Resolve(KindConfig)
	if m, _ := filepath.Glob(filepath.Join(fallback, "*")); len(m) != 0 {
		t.Fatalf("resolve left %v", m)
	}
	n = open()
	n.Record(KindConfig, "config broken")
	n.Record(KindHome, "home broken")
	got := open().Take(UserPromptSubmit)
	if strings.Join(got, "|") != "config broken|home broken" {
		t.Fatalf("after resolve: %q, want both told", got)
	}
	// Resolving one kind keeps the other's record (and its shown mark).
	open().Resolve(KindConfig)
	n = open()
	n.Record(KindHome, "home broken")
	if got := n.Take(SessionStart); len(got) != 0 {
		t.Fatalf("home told again after resolving config: %q", got)
	}
}

// Eight hooks at once: the notice is told by exactly one.
func TestNoticesToldByOneOfManyRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "n")
	OpenNotices(dir).Record(KindHome, "home broken")
	var mu sync.Mutex
	told := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := OpenNotices(dir).Take(SessionStart)
			mu.Lock()
			told += len(got)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if told != 1 {
		t.Fatalf("told %d times, want 1", told)
	}
}

// Nowhere to remember: what this run met is told at SessionStart only.
func TestNoticesWithNowhereToRemember(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	n := OpenNotices(filepath.Join(blocker, "a"), filepath.Join(blocker, "b"))
	n.Record(KindHome, "home broken")
	if got := n.Take(UserPromptSubmit); len(got) != 0 {
		t.Fatalf("prompt: %q, want nothing", got)
	}
	if got := n.Take(SessionStart); len(got) != 1 {
		t.Fatalf("session start: %q, want the notice", got)
	}
}
