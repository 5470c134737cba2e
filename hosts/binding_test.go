package hosts_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/testfixtures"
)

// A binding says which graft session a host session continues: a byte of
// it changed on disk (or in etcd) that still decodes would send the host's
// next lines into another session, silently. Every byte of an encoded
// binding changed: it decodes as it was written, or it is refused as
// ErrBadBinding; never as another binding.
func TestADamagedBindingIsRefused(t *testing.T) {
	in := &hosts.Binding{
		Host:          hosts.ClaudeCode,
		HostSessionID: "0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8",
		Session:       "s-2026-12-05-a1b2c3",
		Role:          hosts.RoleImported,
		Path:          "/home/p/.claude/projects/-w/0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8.jsonl",
		Cwd:           "/w",
		Created:       "2026-12-05T11:00:00Z",
		LastSeen:      "2026-12-05T11:30:00Z",
		Stray:         &hosts.Stray{Bytes: 120, Lines: 2, Humans: 1, Seen: "2026-12-05T11:31:00Z", Target: "s-2026-12-05-d4e5f6"},
	}
	raw, err := hosts.Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"sum": "sha256:`)) {
		t.Fatalf("no checksum in %s", raw)
	}
	out, err := hosts.Decode(raw, "b", in.Host, in.HostSessionID)
	if err != nil || !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip: %+v, %v; want %+v", out, err, in)
	}
	testfixtures.EveryByteChanged(t, raw, []byte{0x01, 0x20}, out, func(b []byte) (*hosts.Binding, error) {
		return hosts.Decode(b, "b", in.Host, in.HostSessionID)
	}, func(err error) bool { return errors.Is(err, hosts.ErrBadBinding) })
	// A binding written before the checksum decodes as it did.
	legacy := `{"version": 1, "host": "claude-code", "hostSessionId": "` + in.HostSessionID + `", "session": "` + in.Session + `", "role": "imported", "path": "/p", "created": "2026-12-05T11:00:00Z"}`
	if b, err := hosts.Decode([]byte(legacy), "b", in.Host, in.HostSessionID); err != nil || b.Session != in.Session {
		t.Fatalf("a binding without a checksum: %+v, %v", b, err)
	}
	// One whose checksum does not match says so.
	changed := strings.Replace(string(raw), in.Session, "s-2026-12-05-a1b2c4", 1)
	if _, err := hosts.Decode([]byte(changed), "the/file", in.Host, in.HostSessionID); !errors.Is(err, hosts.ErrBadBinding) || !strings.Contains(err.Error(), "checksum") || !strings.Contains(err.Error(), "the/file") {
		t.Fatalf("a changed session: %v, want ErrBadBinding naming the file and its checksum", err)
	}
}

// A binding file damaged on disk into another session's: the next follow
// (a hook after each turn) refuses it, naming the file, and neither the
// session it bound nor another one gets the host's new lines.
func TestFollowRefusesADamagedBinding(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	data, err := os.ReadFile(testfixtures.Path(t, "hosts", "claude-code-2.1.328.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) < 4 {
		t.Fatalf("fixture of %d lines", len(lines))
	}
	const hid = "0f3c9a52-6f0e-4c1b-9a57-1d2e3f4a5b6c"
	p := filepath.Join(t.TempDir(), hid+".jsonl")
	half := len(lines) / 2
	if err := os.WriteFile(p, bytes.Join(lines[:half], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	fr, err := hosts.Follow(hosts.FollowOptions{Store: st, Home: home, Host: hosts.ClaudeCode, Path: p})
	if err != nil {
		t.Fatal(err)
	}
	before := testfixtures.ReadSession(t, st, fr.Session)
	bp := filepath.Join(hosts.Dir(home), string(hosts.ClaudeCode), hid+".json")
	raw, err := os.ReadFile(bp)
	if err != nil {
		t.Fatal(err)
	}
	last := byte('a')
	if fr.Session[len(fr.Session)-1] == last {
		last = 'b'
	}
	other := fr.Session[:len(fr.Session)-1] + string(last) // one byte changed
	damaged := bytes.Replace(raw, []byte(`"session": "`+fr.Session+`"`), []byte(`"session": "`+other+`"`), 1)
	if bytes.Equal(damaged, raw) {
		t.Fatalf("no session in %s", raw)
	}
	if err := os.WriteFile(bp, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = hosts.Follow(hosts.FollowOptions{Store: st, Home: home, Host: hosts.ClaudeCode, Path: p})
	if !errors.Is(err, hosts.ErrBadBinding) || !strings.Contains(err.Error(), bp) {
		t.Fatalf("follow with a damaged binding: %v, want ErrBadBinding naming %s", err, bp)
	}
	if ok, err := st.Exists(other); err != nil || ok {
		t.Errorf("the host's lines went to session %s (%v, %v)", other, ok, err)
	}
	if after := testfixtures.ReadSession(t, st, fr.Session); len(after) != len(before) {
		t.Errorf("session %s went from %d to %d events through a damaged binding", fr.Session, len(before), len(after))
	}
	if _, err := hosts.List(st.FS, home); !errors.Is(err, hosts.ErrBadBinding) {
		t.Errorf("List with a damaged binding: %v, want ErrBadBinding", err)
	}
}

// A binding a person corrected by hand reads once they delete its sum, as
// the refusal tells them to.
func TestAHandEditedBindingReadsWithoutItsSum(t *testing.T) {
	in := &hosts.Binding{Host: hosts.Codex, HostSessionID: "0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8", Session: "s1", Role: hosts.RoleImported, Path: "/p", Created: "2026-12-05T11:00:00Z"}
	raw, err := hosts.Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(raw), `"session": "s1"`, `"session": "s2"`, 1)
	_, err = hosts.Decode([]byte(edited), "b", in.Host, in.HostSessionID)
	if !errors.Is(err, hosts.ErrBadBinding) || !strings.Contains(err.Error(), `delete its "sum" line`) {
		t.Fatalf("an edited binding: %v, want ErrBadBinding telling how to keep the edit", err)
	}
	var kept []string
	for _, l := range strings.Split(edited, "\n") {
		if !strings.Contains(l, `"sum":`) {
			kept = append(kept, l)
		}
	}
	// The member before the sum keeps its comma: make it valid JSON the way
	// a person would, dropping the comma.
	fixed := strings.Replace(strings.Join(kept, "\n"), `Z",`+"\n}", `Z"`+"\n}", 1)
	b, err := hosts.Decode([]byte(fixed), "b", in.Host, in.HostSessionID)
	if err != nil || b.Session != "s2" {
		t.Fatalf("the edit without its sum: %+v, %v\n%s", b, err, fixed)
	}
}
