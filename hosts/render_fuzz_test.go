package hosts_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// FuzzRenderImportsBack writes a handoff turn of the fuzzer's texts as
// each host's session file (Adapter.Render, at Adapter.ExportPath) and
// imports that file with the same host's importer: the session graft
// reads back holds the turn's texts, each whole and in order, the
// person's side as the user's messages and the acknowledgement as the
// assistant's. An export graft cannot read back is one whose text the
// host may not read as written either. make fuzz runs it at length;
// make test runs its seeds.
func FuzzRenderImportsBack(f *testing.F) {
	f.Add([]byte("[graft:tape 1a2b3c4d] [Handoff]\nThis session continues …\x00[graft:tape 5e6f7a8b] [Goal]\n> fix it\x00Understood."), uint8(0), false)
	f.Add([]byte("a\x00b\x00c"), uint8(1), true)
	f.Add([]byte("line\r\nwith CR\x00tabs\tand \u2028 separators\x00ack"), uint8(2), false)
	f.Add([]byte("<system-reminder>x</system-reminder>\x00```\ncode\n```\x00"), uint8(3), true)
	f.Add([]byte("  leading and trailing blanks  \n\x00\x00ok"), uint8(0), true)
	f.Add([]byte("\xff\xfe not UTF-8\x00ack"), uint8(1), false)
	f.Fuzz(func(t *testing.T, data []byte, n uint8, goal bool) {
		// A tape's texts are UTF-8 (FuzzBuild checks it) and never empty.
		parts := bytes.Split(bytes.ToValidUTF8(data, []byte("\uFFFD")), []byte{0})
		if len(parts) < 2 {
			parts = append(parts, []byte("Understood."))
		}
		text := func(p []byte) string {
			if len(bytes.TrimSpace(p)) == 0 {
				return "(empty)" + string(p)
			}
			return string(p)
		}
		turn := &adapter.Turn{At: time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC), Ack: text(parts[len(parts)-1])}
		for _, p := range parts[:len(parts)-1] {
			turn.User = append(turn.User, text(p))
		}
		if goal {
			turn.Goal = turn.User[len(turn.User)-1]
		}
		host := hosts.Hosts[int(n)%len(hosts.Hosts)]
		a, err := hosts.Of(host)
		if err != nil {
			t.Fatal(err)
		}
		root, cwd := t.TempDir(), t.TempDir()
		id := a.ExportID(turn, "target", "txn")
		out, err := a.Render(turn, id, cwd, adapter.Made{Graft: "v0.0.0-fuzz"})
		if err != nil {
			t.Fatalf("%s refuses to render a turn of texts that are UTF-8 and not empty: %v", host, err)
		}
		path := a.ExportPath(root, cwd, id, turn)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o600); err != nil {
			t.Fatal(err)
		}
		st, home := testfixtures.NewStore(t)
		if _, err := a.Import(adapter.ImportOptions{Store: st, Home: home, Path: path, ID: "back"}); err != nil {
			t.Fatalf("%s: graft's export does not import back: %v\n%s", host, err, out)
		}
		var users, assistants []string
		for _, ev := range testfixtures.ReadSession(t, st, "back") {
			switch ev.Type {
			case session.TypeUserMessage:
				users = append(users, ev.Text)
			case session.TypeAssistantMessage:
				assistants = append(assistants, ev.Text)
			}
		}
		if len(users) != 1 {
			t.Fatalf("%s: the export imports back as %d user messages %q, want the one holding the handoff's texts %q", host, len(users), users, turn.User)
		}
		rest := users[0]
		for k, u := range turn.User {
			i := strings.Index(rest, u)
			if i < 0 || strings.Trim(rest[:i], "\n") != "" || (k > 0 && i == 0) {
				t.Fatalf("%s: text %d of the handoff %q is not whole and in order in what imports back:\n%q", host, k, u, users[0])
			}
			rest = rest[i+len(u):]
		}
		if strings.Trim(rest, "\n") != "" {
			t.Fatalf("%s: the export imports back with text the handoff lacks: %q", host, rest)
		}
		if len(assistants) != 1 || assistants[0] != turn.Ack {
			t.Fatalf("%s: the acknowledgement %q imports back as %q", host, turn.Ack, assistants)
		}
	})
}
