package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graft-project/graft/hosts"
)

// graft handoff's help says, for each host graft knows, how --session-id
// finds its transcript (the adapter's word on it): a host added to the
// registry is named there without an edit of the command.
func TestHandoffHelpSaysHowEachHostFindsASession(t *testing.T) {
	a := &app{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, stdin: &bytes.Buffer{}}
	long := strings.Join(strings.Fields(newHandoffCmd(a).Long), " ")
	for _, ad := range hosts.Adapters() {
		find := ad.Help().FindByID
		if find == "" {
			t.Errorf("%s: Help().FindByID is empty", ad.Name())
			continue
		}
		if !strings.Contains(long, strings.Join(strings.Fields(find), " ")) {
			t.Errorf("graft handoff's help does not say how %s finds a session (%q):\n%s", ad.Title(), find, long)
		}
	}
}
