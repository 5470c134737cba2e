package hosts_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// preparedTape imports transcript of host as graft session id and returns
// the text of the tape graft prepare makes of it.
func preparedTape(t *testing.T, g graftRun, host, transcript, id string) string {
	t.Helper()
	g.ok("import", host, transcript, "--id", id)
	var rv struct {
		Tape string `json:"tape"`
	}
	prep := g.ok("prepare", id, "--json")
	if err := json.Unmarshal([]byte(prep), &rv); err != nil {
		t.Fatalf("graft prepare --json: %v\n%s", err, prep)
	}
	return rv.Tape
}

// checkTurnedDownApart fails unless tape's Pending State names call (the
// line "<tool> <outcome>: <command>" ends with outcome and command, as
// "declined: npm install left-pad") among the calls the person declined or
// stopped, and command among no failure.
func checkTurnedDownApart(t *testing.T, tape, outcome, command string) {
	t.Helper()
	_, pending, _ := strings.Cut(tape, "] [Pending State]\n")
	pending, _, _ = strings.Cut(pending, "\n\n")
	fails, declined, found := strings.Cut(pending, "Calls the person declined")
	if !found || !strings.Contains(declined, outcome+": "+command) || strings.Contains(fails, command) {
		t.Errorf("Pending State does not name %q as %s apart from the failures:\n%s", command, outcome, pending)
	}
	if strings.Contains(tape, "ok: "+command) {
		t.Errorf("the tape says %q went well:\n%s", command, tape)
	}
}

// waitForFile reads path until it holds every one of texts (a host writes
// its session file after its screen shows the turn), within 30 s, and
// returns its bytes; past that it fails, naming what, with the file.
func waitForFile(t *testing.T, path, what string, texts ...string) []byte {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(texts, func(s string) bool { return !bytes.Contains(b, []byte(s)) }) {
			return b
		}
		if time.Now().After(end) {
			t.Fatalf("%s lacks %s:\n%s", path, what, b)
		}
	}
}
