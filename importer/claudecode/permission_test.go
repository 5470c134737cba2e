package claudecode

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// Claude Code writes the permission mode a prompt was sent in into the
// person's user line ("permissionMode": default, acceptEdits, plan,
// bypassPermissions…) and, in current hosts (2.1.3xx), the session's mode
// as a record of its own ({"type":"permission-mode"}, last wins): a human
// instruction carries it in meta permissionMode, and the record is a
// system event "permission-mode" with it, no unknown line type.
func TestThePermissionModeIsImported(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u1","cwd":"/r","permissionMode":"default","timestamp":"2026-02-12T20:00:00.000Z","message":{"role":"user","content":"Start."}}`,
		`{"type":"assistant","uuid":"a1","cwd":"/r","timestamp":"2026-02-12T20:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}`,
		`{"type":"user","uuid":"u2","cwd":"/r","permissionMode":"plan","timestamp":"2026-02-12T20:00:03.000Z","message":{"role":"user","content":"Plan the port first."}}`,
		`{"type":"permission-mode","permissionMode":"acceptEdits","sessionId":"perm"}`,
		`{"type":"user","uuid":"u3","cwd":"/r","timestamp":"2026-02-12T20:00:04.000Z","message":{"role":"user","content":"No mode here."}}`,
	}
	var got []string
	for _, ev := range importLines(t, "perm", lines) {
		switch {
		case ev.IsHumanInstruction():
			got = append(got, "human:"+ev.Meta["permissionMode"])
		case ev.Type == session.TypeSystem:
			got = append(got, ev.Source.Name+":"+ev.Meta["permissionMode"])
		case ev.Meta["permissionMode"] != "":
			t.Errorf("a %s event carries permissionMode %q", ev.Type, ev.Meta["permissionMode"])
		}
	}
	if s := strings.Join(got, ","); s != "human:default,human:plan,permission-mode:acceptEdits,human:" {
		t.Fatalf("permission modes imported: %s", s)
	}
}
