package importer_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/claudecode"
	"github.com/graft-project/graft/importer/codex"
	"github.com/graft-project/graft/importer/gemini"
	"github.com/graft-project/graft/importer/qwen"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// A first import of a file that is not the named host's is refused before
// anything is written (importer.Check, doc.go "A run", step 0), each host
// judged by its records' shape: the tests below run for each host's
// importer.

// firstContactHost is one host as the first-contact tests take it.
type firstContactHost struct {
	name   string // as graft import takes it
	title  string // what the refusal calls it
	looks  string // what a refusal of its file by another host calls it
	mapper func() importer.Mapper
	run    func(o importer.FileOptions) (*importer.Summary, error)
	// files are real files of the host, with how a refusal by another
	// host counts their lines.
	files []struct{ path, lines string }
	// record is one of its records, half a cut-off one, newType one of a
	// record type no importer knows ("hologram").
	record, half, newType string
}

func firstContactHosts(t *testing.T) []firstContactHost {
	type file = struct{ path, lines string }
	return []firstContactHost{
		{
			name: "claude-code", title: "Claude Code", looks: "a Claude Code transcript",
			mapper: func() importer.Mapper { return claudecode.NewMapper(claudecode.Config{}) },
			run: func(o importer.FileOptions) (*importer.Summary, error) {
				return claudecode.Import(claudecode.Options{Store: o.Store, Home: o.Home, Path: o.Path, ID: o.ID, Others: o.Others})
			},
			files: []file{
				{testfixtures.Path(t, "claude-code", "short.jsonl"), "in its 15 lines"},
				{testfixtures.Path(t, "hosts", "claude-code-2.1.328.jsonl"), "in its 22 lines"},
				{testfixtures.Path(t, "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"), "in its first 64 lines"},
			},
			record:  `{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"x","timestamp":"2026-03-01T10:00:01.000Z"}`,
			half:    `{"type":"user","message":{"role":"us`,
			newType: `{"type":"hologram","uuid":"h1","parentUuid":null,"sessionId":"x","timestamp":"2026-03-01T10:00:01.000Z","version":"9.0.0"}`,
		},
		{
			name: "codex", title: "Codex", looks: "a Codex rollout",
			mapper: func() importer.Mapper { return codex.NewMapper(codex.Config{}) },
			run: func(o importer.FileOptions) (*importer.Summary, error) {
				return codex.Import(codex.Options{Store: o.Store, Home: o.Home, Path: o.Path, ID: o.ID, Others: o.Others})
			},
			files:   []file{{testfixtures.Path(t, "hosts", "codex-0.169.0.jsonl"), "in its 24 lines"}},
			record:  `{"timestamp":"2025-10-05T09:12:44.000Z","type":"session_meta","payload":{"id":"abc","cwd":"/repo","cli_version":"0.46.0"}}`,
			half:    `{"timestamp":"2026-03-01T10:00:01.000Z","type":"response_item","pay`,
			newType: `{"timestamp":"2026-03-01T10:00:01.000Z","type":"hologram","payload":{"beam":1}}`,
		},
		{
			name: "gemini", title: "Gemini CLI", looks: "a Gemini CLI session file",
			mapper: func() importer.Mapper { return gemini.NewMapper(gemini.Config{}) },
			run: func(o importer.FileOptions) (*importer.Summary, error) {
				return gemini.Import(gemini.Options{Store: o.Store, Home: o.Home, Path: o.Path, ID: o.ID, Others: o.Others})
			},
			files:   []file{{filepath.Join("gemini", "testdata", "session-recorded.jsonl"), "in its 19 lines"}},
			record:  `{"id":"m1","timestamp":"2026-03-01T10:00:01.000Z","type":"user","content":[{"text":"hi"}]}`,
			half:    `{"sessionId":"3271f952-d17a-43d0-88d9-cc9f585bca21","projectHash":"cf00`,
			newType: `{"id":"h1","timestamp":"2026-03-01T10:00:01.000Z","type":"hologram","content":"a beam"}`,
		},
		{
			name: "qwen", title: "Qwen Code", looks: "a Qwen Code session file",
			mapper: func() importer.Mapper { return qwen.NewMapper(qwen.Config{}) },
			run: func(o importer.FileOptions) (*importer.Summary, error) {
				return qwen.Import(qwen.Options{Store: o.Store, Home: o.Home, Path: o.Path, ID: o.ID, Others: o.Others})
			},
			files:   []file{{filepath.Join("qwen", "testdata", "session.jsonl"), "in its 20 lines"}},
			record:  `{"uuid":"q1","parentUuid":null,"sessionId":"x","timestamp":"2026-03-01T10:00:01.000Z","type":"user","provenance":"real_user","cwd":"/w","version":"0.24.4","message":{"role":"user","parts":[{"text":"hi"}]}}`,
			half:    `{"uuid":"fc7f324a-dee2-4e50-90e3-b481a9d13e8c","parentUuid":null,"sessionId":"cc`,
			newType: `{"uuid":"h1","parentUuid":null,"sessionId":"x","timestamp":"2026-03-01T10:00:01.000Z","type":"hologram","provenance":"system","cwd":"/w","version":"9.0.0"}`,
		},
	}
}

// firstImport imports path with h into session "s" of a new home, the
// other hosts handed on as package hosts hands them.
func (h firstContactHost) firstImport(t *testing.T, all []firstContactHost, path string) (*session.Store, string, *importer.Summary, error) {
	t.Helper()
	var others []importer.Other
	for _, o := range all {
		if o.name != h.name {
			others = append(others, importer.Other{Name: o.name, Mapper: o.mapper()})
		}
	}
	st, home := testfixtures.NewStore(t)
	sum, err := h.run(importer.FileOptions{Store: st, Home: home, Path: path, ID: "s", Others: others})
	return st, home, sum, err
}

// nothingWritten: no session, no cursor, no state file.
func nothingWritten(t *testing.T, st *session.Store, home string) {
	t.Helper()
	if ok, err := st.Exists("s"); err != nil || ok {
		t.Errorf("session s exists after a refusal (%v, %v)", ok, err)
	}
	if _, err := importer.LoadCursor(st.FS, home, "s"); !errors.Is(err, importer.ErrNoCursor) {
		t.Errorf("a cursor was written after a refusal: %v", err)
	}
	ents, err := os.ReadDir(importer.ImportsDir(home))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("imports/%s written after a refusal", e.Name())
	}
}

func writeTranscript(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each host refuses each other host's real files, naming the host they
// are of and the command that imports them.
func TestFirstImportRefusesAnotherHostsFile(t *testing.T) {
	all := firstContactHosts(t)
	for _, h := range all {
		for _, o := range all {
			if o.name == h.name {
				continue
			}
			for _, f := range o.files {
				t.Run(h.name+" of "+filepath.Base(f.path), func(t *testing.T) {
					st, home, _, err := h.firstImport(t, all, f.path)
					if !errors.Is(err, importer.ErrNotTranscript) {
						t.Fatalf("err = %v, want ErrNotTranscript", err)
					}
					abs, err2 := filepath.Abs(f.path)
					if err2 != nil {
						t.Fatal(err2)
					}
					msg := err.Error()
					for _, want := range []string{abs + " holds no " + h.title + " record " + f.lines, "it reads as " + o.looks, "graft import " + o.name + " " + abs} {
						if !strings.Contains(msg, want) {
							t.Errorf("message %q lacks %q", msg, want)
						}
					}
					nothingWritten(t, st, home)
				})
			}
		}
	}
}

// Text that is no host's is refused without naming a host.
func TestFirstImportRefusesText(t *testing.T) {
	all := firstContactHosts(t)
	for _, h := range all {
		t.Run(h.name, func(t *testing.T) {
			p := writeTranscript(t, "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nbin:x:2:2:bin:/bin:/usr/sbin/nologin\n")
			st, home, _, err := h.firstImport(t, all, p)
			if !errors.Is(err, importer.ErrNotTranscript) {
				t.Fatalf("err = %v, want ErrNotTranscript", err)
			}
			if msg := err.Error(); !strings.Contains(msg, p+" holds no "+h.title+" record in its 3 lines") || strings.Contains(msg, "reads as") {
				t.Errorf("message %q", msg)
			}
			nothingWritten(t, st, home)
		})
	}
}

// The first 64 lines are looked at, not more: a file whose 65th line is
// the first record of the host is refused, and says so.
func TestFirstImportLooksAtTheFirstLines(t *testing.T) {
	all := firstContactHosts(t)
	for _, h := range all {
		t.Run(h.name, func(t *testing.T) {
			st, home, _, err := h.firstImport(t, all, writeTranscript(t, strings.Repeat("not a record\n", 64)+h.record+"\n"))
			if !errors.Is(err, importer.ErrNotTranscript) || !strings.Contains(err.Error(), "in its first 64 lines") {
				t.Fatalf("err = %v, want ErrNotTranscript naming the first 64 lines", err)
			}
			nothingWritten(t, st, home)
			// One line sooner, the record is seen.
			if _, _, _, err := h.firstImport(t, all, writeTranscript(t, strings.Repeat("not a record\n", 63)+h.record+"\n")); err != nil {
				t.Fatalf("the record as the 64th line: %v", err)
			}
		})
	}
}

// Nothing to import yet is no refusal: a hook sees a file the host has
// only begun.
func TestFirstImportOfAnUnfinishedFileIsNoRefusal(t *testing.T) {
	all := firstContactHosts(t)
	for _, h := range all {
		for name, content := range map[string]string{"empty": "", "half a record": h.half, "half a text": "root:x:0:0:ro"} {
			t.Run(h.name+" "+name, func(t *testing.T) {
				_, _, sum, err := h.firstImport(t, all, writeTranscript(t, content))
				if err != nil {
					t.Fatal(err)
				}
				if sum.Appended != 0 {
					t.Errorf("appended %d", sum.Appended)
				}
				if content != "" && sum.PendingTail == nil {
					t.Errorf("no pending tail: %+v", sum)
				}
			})
		}
	}
}

// A file that is one JSON document with no newline after it (Gemini CLI's
// checkpoint-<tag>.json, what /chat save writes: a list of contents on one
// line; seen in public dotfiles) is no line a host has begun: it is whole,
// and when it is no record of the host, a first import refuses it. Before,
// it was taken for a line still being written: nothing was imported, the
// import said it went well, and graft prepare found no session.
func TestFirstImportOfOneJSONDocumentWithNoNewline(t *testing.T) {
	all := firstContactHosts(t)
	for _, h := range all {
		t.Run(h.name, func(t *testing.T) {
			doc := `[{"role":"user","parts":[{"text":"This is the Gemini CLI. We are setting up the context for our chat."}]},{"role":"model","parts":[{"text":"Got it."}]}]`
			st, home, _, err := h.firstImport(t, all, writeTranscript(t, doc))
			if !errors.Is(err, importer.ErrNotTranscript) {
				t.Fatalf("err = %v, want ErrNotTranscript", err)
			}
			nothingWritten(t, st, home)
			// A record of the host with no newline yet is the host's, as before.
			if _, _, sum, err := h.firstImport(t, all, writeTranscript(t, h.record)); err != nil || sum.PendingTail == nil {
				t.Fatalf("a record with no newline: %v, %+v", err, sum)
			}
		})
	}
}

// A record type newer than the importer is still its host's record: it is
// imported as a system event with its warning, as before.
func TestFirstImportOfANewRecordType(t *testing.T) {
	all := firstContactHosts(t)
	for _, h := range all {
		t.Run(h.name, func(t *testing.T) {
			st, _, sum, err := h.firstImport(t, all, writeTranscript(t, h.newType+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			evs := testfixtures.ReadSession(t, st, "s")
			if len(evs) != 1 || evs[0].Type != session.TypeSystem || evs[0].Source.Name != "unknown" {
				t.Fatalf("events %+v", evs)
			}
			if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], `"hologram"`) {
				t.Errorf("warnings %q", sum.Warnings)
			}
		})
	}
}

// others lists every host as package hosts hands them to Detect.
func others(all []firstContactHost) []importer.Other {
	var out []importer.Other
	for _, o := range all {
		out = append(out, importer.Other{Name: o.name, Mapper: o.mapper()})
	}
	return out
}

// A file imported without its host's name is its host's by its first
// lines: each host's real files, and a file of one record, are told apart.
func TestDetectNamesTheHostOfEachFile(t *testing.T) {
	all := firstContactHosts(t)
	among := others(all)
	for _, h := range all {
		files := []string{writeTranscript(t, h.record+"\n"), writeTranscript(t, strings.Repeat("not a record\n", 63)+h.record+"\n")}
		for _, f := range h.files {
			files = append(files, f.path)
		}
		for _, p := range files {
			got, err := importer.Detect(p, among)
			if err != nil || got != h.name {
				t.Errorf("Detect(%s) = %q, %v; want %s", p, got, err, h.name)
			}
		}
	}
}

// A file no host's records are in, one the host has not finished a line
// of, and one of a format a host's mapper can tell but not read are
// refused, saying why and how to name the host; nothing is read past the
// first lines.
func TestDetectRefusesWhatNoHostReads(t *testing.T) {
	all := firstContactHosts(t)
	among := others(all)
	forms := "graft import claude-code|codex|gemini|qwen "
	for _, c := range []struct{ name, content, want string }{
		{"text", "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nbin:x:2:2:bin:/bin:/usr/sbin/nologin\n",
			" holds no record of a host graft knows in its 3 lines (Claude Code, Codex, Gemini CLI or Qwen Code): name its host: " + forms},
		{"past the first lines", strings.Repeat("not a record\n", 64) + all[1].record + "\n",
			" holds no record of a host graft knows in its first 64 lines (Claude Code, Codex, Gemini CLI or Qwen Code): name its host: " + forms},
		{"empty", "", " holds no complete line yet, so its host cannot be told: name it: " + forms},
		{"half a record", all[0].half, " holds no complete line yet, so its host cannot be told: name it: " + forms},
		{"gemini's earlier format", "{\n  \"sessionId\": \"3271f952-d17a-43d0-88d9-cc9f585bca21\",\n  \"projectHash\": \"cf00\",\n  \"messages\": []\n}\n",
			" is a Gemini CLI session in its earlier format"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeTranscript(t, c.content)
			got, err := importer.Detect(p, among)
			if !errors.Is(err, importer.ErrUnknownTranscript) || got != "" {
				t.Fatalf("Detect = %q, %v; want ErrUnknownTranscript", got, err)
			}
			if msg := err.Error(); !strings.Contains(msg, p+c.want) || !strings.HasSuffix(msg, "(nothing was imported)") {
				t.Errorf("message %q lacks %q", msg, p+c.want)
			}
		})
	}
	if _, err := importer.Detect(filepath.Join(t.TempDir(), "nope.jsonl"), among); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := importer.Detect(t.TempDir(), among); !errors.Is(err, importer.ErrNotRegular) {
		t.Errorf("a directory: %v", err)
	}
}

// Two hosts whose records the lines are as many of each: neither is
// chosen, and the refusal names the two.
func TestDetectRefusesATie(t *testing.T) {
	all := firstContactHosts(t)
	among := []importer.Other{{Name: "left", Mapper: all[0].mapper()}, {Name: "right", Mapper: all[0].mapper()}, {Name: "codex", Mapper: all[1].mapper()}}
	p := writeTranscript(t, all[0].record+"\n"+all[0].record+"\n")
	got, err := importer.Detect(p, among)
	if !errors.Is(err, importer.ErrUnknownTranscript) || got != "" {
		t.Fatalf("Detect = %q, %v; want ErrUnknownTranscript", got, err)
	}
	if want := p + " reads as the records of left or right alike in its 2 lines: name its host: graft import left|right " + p; !strings.Contains(err.Error(), want) {
		t.Errorf("message %q lacks %q", err, want)
	}
}
