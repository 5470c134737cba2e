package testfixtures

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// pools are the non-blank lines of each of the files at paths (relative
// to the module root), in the file's order: the records a fuzzer puts
// together into transcripts, a file at a time so that a small file's
// records are picked as often as a large one's.
func pools(t testing.TB, paths ...string) [][]string {
	t.Helper()
	root := ModuleRoot(t)
	var out [][]string
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatalf("testfixtures: %v", err)
		}
		var lines []string
		for l := range strings.SplitSeq(string(data), "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			t.Fatalf("testfixtures: no lines in %s", p)
		}
		out = append(out, lines)
	}
	return out
}

// poolSeeds are inputs of ImportsAgree that take each file's first lines
// (up to 48) in order, cut in the middle: the hosts' own sequences, for a
// fuzzer to start from.
func poolSeeds(pools [][]string) [][]byte {
	var out [][]byte
	for f, lines := range pools {
		n := min(len(lines), 48)
		seed := []byte{byte(n - 1)}
		for k := 0; k < n; k++ {
			seed = append(seed, byte(f), byte(k>>8), byte(k))
		}
		out = append(out, append(seed, byte(n/2)))
	}
	return out
}

// ImportFunc imports the transcript at path into session id of st (home
// is the graft home holding st): one run, as graft import runs it.
type ImportFunc func(st *session.Store, home, path, id string) error

// FuzzResumes is a host importer's fuzzer: transcripts made of the lines
// of the files at paths (relative to the module root) as a fuzzer picks
// them, written as name, must import alike in one run and in two
// (ImportsAgree); its seeds are each file's first lines in order.
func FuzzResumes(f *testing.F, name string, notTranscript error, imp ImportFunc, paths ...string) {
	ps := pools(f, paths...)
	for _, seed := range poolSeeds(ps) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ImportsAgree(t, ps, data, name, notTranscript, imp)
	})
}

// ImportsAgree makes a transcript of the pools' lines as data picks them
// (its first byte: how many, 1 to 48; then three bytes a line: the pool,
// the line in it; then where to cut), writes it as dir/name, and imports
// it twice into fresh stores: whole in one run, and in two runs, the first
// when the file held only the lines before the cut (a host still
// writing), the second when it held them all. Both must give the same
// events, timestamps aside, or both be refused as no transcript of the
// host's (notTranscript; any other error fails): what a follow resumed
// from its cursor (and the mapper's state kept in it) imports must be
// what one run imports. A first run refused because its few lines are not
// yet the host's writes nothing, and the second imports from the start.
func ImportsAgree(t *testing.T, pools [][]string, data []byte, name string, notTranscript error, imp ImportFunc) {
	t.Helper()
	if len(data) == 0 {
		return
	}
	n := int(data[0])%48 + 1
	data = data[1:]
	var lines []string
	for k := 0; k < n; k++ {
		f, i := 0, k
		if len(data) >= 3 {
			f, i, data = int(data[0]), int(data[1])<<8|int(data[2]), data[3:]
		}
		pool := pools[f%len(pools)]
		lines = append(lines, pool[i%len(pool)])
	}
	cut := n / 2
	if len(data) > 0 {
		cut = int(data[0]) % (n + 1)
	}
	whole := strings.Join(lines, "\n") + "\n"

	st, home := NewStore(t)
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(whole), 0o600); err != nil {
		t.Fatal(err)
	}
	wantErr := imp(st, home, path, "whole")
	if wantErr != nil && !errors.Is(wantErr, notTranscript) {
		t.Fatalf("one run over %d lines: %v", n, wantErr)
	}

	st2, home2 := NewStore(t)
	path2 := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path2, []byte(strings.Join(lines[:cut], "\n")+strings.Repeat("\n", min(cut, 1))), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := imp(st2, home2, path2, "cut"); err != nil && !errors.Is(err, notTranscript) {
		t.Fatalf("the first %d of %d lines: %v", cut, n, err)
	}
	if err := os.WriteFile(path2, []byte(whole), 0o600); err != nil {
		t.Fatal(err)
	}
	gotErr := imp(st2, home2, path2, "cut")
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("cut after line %d of %d: the whole import says %v, the two runs %v", cut, n, wantErr, gotErr)
	}
	if wantErr != nil {
		return
	}
	want, got := eventsWithoutTS(t, st, "whole"), eventsWithoutTS(t, st2, "cut")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("cut after line %d of %d: the two runs import\n%s\none run imports\n%s", cut, n, describe(got), describe(want))
	}
}

// eventsWithoutTS are session id's events, none when lines that import
// as nothing left it uncreated.
func eventsWithoutTS(t *testing.T, st *session.Store, id string) []session.Event {
	t.Helper()
	if _, err := os.Stat(st.Path(id)); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	evs := ReadSession(t, st, id)
	for k := range evs {
		evs[k].TS = ""
	}
	return evs
}

// describe is one line an event, short: for a failure message.
func describe(evs []session.Event) string {
	var b bytes.Buffer
	for _, ev := range evs {
		text := ev.Text
		if ev.Tool != nil {
			text = ev.Tool.Name + " " + ev.Tool.CallID + " " + text
		}
		if r := []rune(text); len(r) > 80 {
			text = string(r[:80]) + "…"
		}
		fmt.Fprintf(&b, "  %d %s %s/%s %q meta=%v\n", ev.Seq, ev.Type, ev.Source.Kind, ev.Source.Name, text, ev.Meta)
	}
	return b.String()
}
