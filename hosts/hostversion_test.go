package hosts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/hosts/claudecode"
	"github.com/graft-project/graft/hosts/codex"
	"github.com/graft-project/graft/hosts/qwen"
	"github.com/graft-project/graft/internal/hosttest"
	"github.com/graft-project/graft/version"
)

// versionedHost is a host whose records name its own version: where a
// session file of it goes under its folder, one it wrote as version v,
// and the host and graft versions the first line of an export names.
type versionedHost struct {
	host    hosts.Host
	tested  string
	file    func(root string, k int) string
	written func(v string) string
	names   func(first map[string]any) (host, graft string)
}

var versionedHosts = []versionedHost{
	{hosts.ClaudeCode, claudecode.TestedVersion,
		func(root string, k int) string {
			return filepath.Join(root, "projects", "-w", "0a1b2c3d-0000-4000-8000-00000000000"+string(rune('0'+k))+".jsonl")
		},
		func(v string) string {
			return `{"type":"user","entrypoint":"cli","version":"` + v + `","message":{"role":"user","content":"hi"}}` + "\n" +
				`{"type":"assistant","entrypoint":"cli","version":"` + v + `","message":{"role":"assistant","content":[]}}` + "\n"
		},
		func(r map[string]any) (string, string) {
			v, _ := r["version"].(string)
			g, _ := r["graftVersion"].(string)
			return v, g
		}},
	{hosts.Codex, codex.TestedVersion,
		func(root string, k int) string {
			return filepath.Join(root, "sessions", "2026", "01", "02", "rollout-2026-01-02T03-04-05-0a1b2c3d-0000-7000-8000-00000000000"+string(rune('0'+k))+".jsonl")
		},
		func(v string) string {
			return `{"timestamp":"2026-01-02T03:04:05.000Z","type":"session_meta","payload":{"id":"x","originator":"codex_exec","cli_version":"` + v + `"}}` + "\n" +
				`{"timestamp":"2026-01-02T03:04:06.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[]}}` + "\n"
		},
		func(r map[string]any) (string, string) {
			p, _ := r["payload"].(map[string]any)
			v, _ := p["cli_version"].(string)
			g, _ := p["graft_version"].(string)
			return v, g
		}},
	{hosts.Host(qwen.Name), qwen.TestedVersion,
		func(root string, k int) string {
			return filepath.Join(root, "projects", "-w", "chats", "0a1b2c3d-0000-4000-8000-00000000000"+string(rune('0'+k))+".jsonl")
		},
		func(v string) string {
			return `{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","cwd":"/w","version":"` + v + `","message":{"role":"user","parts":[{"text":"hi"}]}}` + "\n"
		},
		func(r map[string]any) (string, string) {
			v, _ := r["version"].(string)
			g, _ := r["graftVersion"].(string)
			return v, g
		}},
}

// Issue 25: an export names the version of the host program the person
// has where the host keeps its own (the newest of its session files says
// which), the tested version when no session file names one, and graft's
// version where the host keeps a field it reads nothing of. A re-export
// after the host was upgraded is the same file, the same bytes.
func TestExportNamesTheHostVersion(t *testing.T) {
	mine := version.Get().Short()
	write := func(t *testing.T, path, data string, mod time.Time) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range versionedHosts {
		t.Run(string(h.host), func(t *testing.T) {
			names := func(t *testing.T, data []byte) (string, string) {
				t.Helper()
				var first map[string]any
				if err := json.Unmarshal(bytes.SplitN(data, []byte("\n"), 2)[0], &first); err != nil {
					t.Fatal(err)
				}
				return h.names(first)
			}

			t.Run("none", func(t *testing.T) {
				_, _, data := exportNew(t, h.host, t.TempDir())
				if v, g := names(t, data); v != h.tested || g != mine {
					t.Fatalf("with no session of %s, the export names %s %q and graft %q; want the tested %q and %q", h.host, h.host, v, g, h.tested, mine)
				}
			})

			t.Run("newest", func(t *testing.T) {
				root := t.TempDir()
				now := time.Now()
				// Its last line, 100 KiB long, names none: its first does.
				long := h.written("9.8.7") + `{"type":"pad","pad":"` + strings.Repeat("x", 100<<10) + `"}` + "\n"
				write(t, h.file(root, 1), long, now.Add(-time.Hour))
				write(t, h.file(root, 2), h.written("1.0.0"), now.Add(-48*time.Hour))
				write(t, h.file(root, 3), "not a record\n", now) // the newest names none
				res, o, data := exportNew(t, h.host, root)
				if v, g := names(t, data); v != "9.8.7" || g != mine {
					t.Fatalf("the export names %s %q and graft %q; want 9.8.7 (the newest session's) and %q", h.host, v, g, mine)
				}
				// The person upgrades the host; the export is owed again
				// (a recovery, graft export): the same file, unchanged.
				write(t, h.file(root, 4), h.written("9.9.0"), now.Add(time.Minute))
				again, err := hosts.Export(o)
				if err != nil {
					t.Fatal(err)
				}
				if again.Created || again.Path != res.Path {
					t.Fatalf("re-export %+v, want the same file, not created", again)
				}
				if got, _ := os.ReadFile(res.Path); !bytes.Equal(got, data) {
					t.Fatalf("the re-export changed the file:\n%s\nwas\n%s", got, data)
				}
				// Another target exported now names the new version, and
				// never an export of graft's as the host's.
				_, _, next := exportNew(t, h.host, root)
				if v, _ := names(t, next); v != "9.9.0" {
					t.Fatalf("after the upgrade an export names %s %q, want 9.9.0", h.host, v)
				}
			})

			t.Run("as written", func(t *testing.T) {
				// The file of an export another graft made for another
				// host version is the same export: a re-export keeps it.
				root := t.TempDir()
				write(t, h.file(root, 1), h.written("9.8.7"), time.Now())
				res, o, data := exportNew(t, h.host, root)
				other := bytes.ReplaceAll(data, []byte(`"9.8.7"`), []byte(`"9.0.1"`))
				other = bytes.ReplaceAll(other, []byte(`"`+mine+`"`), []byte(`"v0.0.2"`))
				if v, g := names(t, other); v != "9.0.1" || g != "v0.0.2" {
					t.Fatalf("rewritten: %q %q", v, g)
				}
				if err := os.WriteFile(res.Path, other, 0o600); err != nil {
					t.Fatal(err)
				}
				again, err := hosts.Export(o)
				if err != nil {
					t.Fatalf("re-export of a file graft v0.0.2 wrote for %s 9.0.1: %v", h.host, err)
				}
				if got, _ := os.ReadFile(res.Path); again.Created || !bytes.Equal(got, other) {
					t.Fatalf("the re-export changed the file (created %v)", again.Created)
				}
			})
		})
	}
}

// The source session's own transcript, when it is the host's, names the
// version before any newer session file does.
func TestExportNamesTheSourceTranscriptsVersion(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "projects", "-src", "0a1b2c3d-0000-4000-8000-000000000001.jsonl")
	fixture, err := os.ReadFile(filepath.Join("..", "testdata", "fixtures", "claude-code", "short.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(src), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, fixture, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(src, old, old); err != nil {
		t.Fatal(err)
	}
	newer := versionedHosts[0].file(root, 2)
	if err := os.MkdirAll(filepath.Dir(newer), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newer, []byte(versionedHosts[0].written("9.8.7")), 0o600); err != nil {
		t.Fatal(err)
	}
	svc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := sessionsOf(t, svc)
	a, err := hosts.Of(hosts.ClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Import(adapter.ImportOptions{Store: st, Home: svc.Home, Path: src, ID: "src"}); err != nil {
		t.Fatal(err)
	}
	rv, err := svc.Prepare(context.Background(), "src", graft.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cr, err := svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := hosts.Export(hosts.ExportOptions{Store: sessionsOf(t, svc), Home: svc.Home, Session: cr.TargetID, Host: hosts.ClaudeCode, Cwd: t.TempDir(), Root: root})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"version":"2.1.38","entrypoint":"graft"`)) {
		t.Fatalf("the export does not name the source transcript's Claude Code 2.1.38:\n%s", data)
	}
}

// The tested versions are the ones internal/hosttest pins and the
// real-program tests drive; Gemini CLI's records name no version, and its
// exports only graft's.
func TestTestedVersionsArePinned(t *testing.T) {
	for host, want := range map[hosts.Host]string{hosts.ClaudeCode: hosttest.ClaudeVersion, hosts.Codex: hosttest.CodexVersion, hosts.Host(qwen.Name): hosttest.QwenVersion} {
		a, err := hosts.Of(host)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := a.(adapter.Versioned)
		if !ok || v.TestedVersion() != want {
			t.Errorf("%s: tested version %v, want the pinned %s", host, v, want)
		}
	}
	a, err := hosts.Of(hosts.Host("gemini"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.(adapter.Versioned); ok {
		t.Error("Gemini CLI is Versioned, but its records name no version")
	}
}

// Codex ties a session to the model provider its session_meta names and
// refuses to resume one whose provider it has no configuration for, ""
// included (TestCodexResumesTheExportInItsTerminal). An export names the
// provider the person's Codex selects: config.toml's model_provider, its
// profile's when one is chosen, else Codex's default, openai. An export
// from before graft named one re-exports as it was.
func TestCodexExportNamesTheConfiguredModelProvider(t *testing.T) {
	provider := func(t *testing.T, data []byte) (string, bool) {
		t.Helper()
		var first struct {
			Payload map[string]any `json:"payload"`
		}
		if err := json.Unmarshal(bytes.SplitN(data, []byte("\n"), 2)[0], &first); err != nil {
			t.Fatal(err)
		}
		p, ok := first.Payload["model_provider"].(string)
		return p, ok
	}
	for _, c := range []struct{ name, config, want string }{
		{"no config", "", "openai"},
		{"config without one", "model = \"gpt-5\"\n", "openai"},
		{"config", "model_provider = \"mine\"\n[model_providers.mine]\nname = \"Mine\"\nbase_url = \"http://127.0.0.1:1\"\n", "mine"},
		{"profile", "model_provider = \"mine\"\nprofile = \"work\"\n[profiles.work]\nmodel_provider = \"theirs\"\n", "theirs"},
		{"profile without one", "model_provider = \"mine\"\nprofile = \"work\"\n[profiles.work]\nmodel = \"o3\"\n", "mine"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if c.config != "" {
				if err := os.WriteFile(filepath.Join(root, "config.toml"), []byte(c.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, _, data := exportNew(t, hosts.Codex, root)
			if got, _ := provider(t, data); got != c.want {
				t.Fatalf("the export names model_provider %q, want %q:\n%s", got, c.want, data)
			}
		})
	}

	t.Run("config not TOML", func(t *testing.T) {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "config.toml"), []byte("model_provider = \n"), 0o600); err != nil {
			t.Fatal(err)
		}
		svc, target := committedTarget(t)
		_, err := hosts.Export(hosts.ExportOptions{Store: sessionsOf(t, svc), Home: svc.Home, Session: target, Host: hosts.Codex, Cwd: t.TempDir(), Root: root})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "config.toml")) {
			t.Fatalf("an export with Codex's config.toml unreadable: %v, want an error naming the file", err)
		}
	})

	t.Run("a re-export reads no config", func(t *testing.T) {
		// The file is there: it names its own provider, whatever
		// config.toml has become since (as hostVersion reads nothing).
		root := t.TempDir()
		res, o, data := exportNew(t, hosts.Codex, root)
		if err := os.WriteFile(filepath.Join(root, "config.toml"), []byte("model_provider = \n"), 0o600); err != nil {
			t.Fatal(err)
		}
		again, err := hosts.Export(o)
		if err != nil {
			t.Fatalf("re-export after config.toml broke: %v", err)
		}
		if got, _ := os.ReadFile(res.Path); again.Created || !bytes.Equal(got, data) {
			t.Fatalf("the re-export changed the file (created %v)", again.Created)
		}
	})

	t.Run("an export of before", func(t *testing.T) {
		root := t.TempDir()
		res, o, data := exportNew(t, hosts.Codex, root)
		old := bytes.Replace(data, []byte(`"model_provider":"openai",`), nil, 1)
		if _, ok := provider(t, old); ok || bytes.Equal(old, data) {
			t.Fatalf("could not take model_provider out of:\n%s", data)
		}
		if err := os.WriteFile(res.Path, old, 0o600); err != nil {
			t.Fatal(err)
		}
		again, err := hosts.Export(o)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(res.Path); again.Created || !bytes.Equal(got, old) {
			t.Fatalf("the re-export of an export without model_provider changed it (created %v)", again.Created)
		}
	})
}
