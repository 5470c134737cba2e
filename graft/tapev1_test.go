package graft

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A target committed with tape v1 (testdata/v1target: a source and its
// generation-2 target, written by graft before tape v2, byte for byte)
// still audits, and grafts on as generation 3 with a v2 tape that keeps
// its constraint and origin.
func TestTapeV1TargetStillAudits(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"v1src.jsonl", "v1src.g2.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", "v1target", name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "graft-tape-v1:") && name == "v1src.g2.jsonl" {
			t.Fatalf("%s is not a tape v1 target", name)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	svc, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	rep, err := svc.Audit("v1src.g2")
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || len(rep.Constraints) == 0 || rep.TamperCheck != TamperChecked {
		t.Fatalf("audit of the v1 target: ok %v, %d constraints, tamper check %q (%s)", rep.OK, len(rep.Constraints), rep.TamperCheck, rep.TamperNote)
	}
	rv, err := svc.Prepare(context.Background(), "v1src.g2", PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rv.TapeHash, "graft-tape-v2:") || rv.Generation != 2 {
		t.Fatalf("prepare of the v1 target: %s, generation %d", rv.TapeHash, rv.Generation)
	}
	if !strings.Contains(rv.Tape, "[ANCHOR] Core constraints originate from generation 1 session v1src, seq=") || !strings.Contains(rv.Tape, "- Never push to main. (seq 5)") {
		t.Fatalf("the v2 tape lost the inherited constraint or its origin:\n%s", rv.Tape)
	}
}
