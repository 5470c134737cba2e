package main

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"

	"github.com/graft-project/graft/graft"
)

// TestExitCodes checks the table of typed errors: every stable code and
// every exit code is used once, none is one of the untyped codes (0 -,
// 1 error, 2 usage), and the range the root help quotes ("10-51 name a
// typed error") is the table's lowest and highest exit code.
func TestExitCodes(t *testing.T) {
	codes := graft.ExitCodes()
	if len(codes) == 0 {
		t.Fatal("graft.ExitCodes is empty")
	}
	names := map[graft.Code]int{"error": 1, "usage": 2}
	exits := map[int]graft.Code{0: "-", 1: "error", 2: "usage"}
	lo, hi := codes[0].Exit, codes[0].Exit
	for _, c := range codes {
		if c.Code == "" || c.Doc == "" {
			t.Errorf("exit %d: code %q, doc %q: both must be set", c.Exit, c.Code, c.Doc)
		}
		if prev, ok := names[c.Code]; ok {
			t.Errorf("code %q is used twice: exit %d and exit %d", c.Code, prev, c.Exit)
		}
		names[c.Code] = c.Exit
		if prev, ok := exits[c.Exit]; ok {
			t.Errorf("exit %d is used twice: %s and %s", c.Exit, prev, c.Code)
		}
		exits[c.Exit] = c.Code
		lo, hi = min(lo, c.Exit), max(hi, c.Exit)
	}

	a := &app{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, stdin: &bytes.Buffer{}}
	long := newRoot(a).Long
	m := regexp.MustCompile(`(?m)^  (\d+)-(\d+) +name a typed error`).FindStringSubmatch(long)
	if m == nil {
		t.Fatalf("the root help quotes no range of typed exit codes (\"  10-NN name a typed error\"):\n%s", long)
	}
	from, _ := strconv.Atoi(m[1])
	to, _ := strconv.Atoi(m[2])
	if from != lo || to != hi {
		t.Errorf("the root help quotes exit codes %d-%d for typed errors; graft.ExitCodes runs from %d to %d", from, to, lo, hi)
	}
}
