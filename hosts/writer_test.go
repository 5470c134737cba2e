package hosts_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/claudecode"
	"github.com/graft-project/graft/hosts/codex"
	"github.com/graft-project/graft/version"
)

// Issue 26, item 3: an export's host records name graft and its version
// where the host stores the writer or keeps a field it reads nothing of
// (Claude Code: entrypoint and graftVersion of each record; Codex:
// session_meta's originator and graft_version), and a file another graft
// version wrote for the same target (an upgrade between a handoff and the
// export it owed, an export from before graft named the host's version in
// it, one from before graft named itself) is the same export: a
// re-export answers with it, not export_exists.
func TestExportNamesGraftAsTheWriter(t *testing.T) {
	mine := version.Get().Short()
	for _, c := range []struct {
		host   hosts.Host
		tested string
		// writer reads the writer fields of the first line.
		writer func(first map[string]any) (string, string)
		// as rewrites the file as graft w would have written it: "old:"
		// and a version, before graft named the host's version; "",
		// before graft named itself.
		as func(data []byte, w string) []byte
	}{
		{hosts.ClaudeCode, claudecode.TestedVersion,
			func(r map[string]any) (string, string) {
				e, _ := r["entrypoint"].(string)
				v, _ := r["graftVersion"].(string)
				return e, v
			},
			func(data []byte, w string) []byte {
				now := `"version":"` + claudecode.TestedVersion + `","entrypoint":"graft","graftVersion":"` + mine + `"`
				if old, ok := strings.CutPrefix(w, "old:"); ok {
					return bytes.ReplaceAll(data, []byte(now), []byte(`"version":"`+old+`","entrypoint":"graft"`))
				}
				if w == "" {
					return bytes.ReplaceAll(data, []byte(now), []byte(`"version":"2.1.328"`))
				}
				return bytes.ReplaceAll(data, []byte(`"graftVersion":"`+mine+`"`), []byte(`"graftVersion":"`+w+`"`))
			}},
		{hosts.Codex, codex.TestedVersion,
			func(r map[string]any) (string, string) {
				p, _ := r["payload"].(map[string]any)
				o, _ := p["originator"].(string)
				v, _ := p["graft_version"].(string)
				return o, v
			},
			func(data []byte, w string) []byte {
				now := `"cli_version":"` + codex.TestedVersion + `","graft_version":"` + mine + `"`
				if old, ok := strings.CutPrefix(w, "old:"); ok {
					return bytes.Replace(data, []byte(now), []byte(`"cli_version":"`+old+`"`), 1)
				}
				if w == "" {
					return bytes.Replace(data, []byte(now), []byte(`"cli_version":"0.169.0"`), 1)
				}
				return bytes.Replace(data, []byte(`"graft_version":"`+mine+`"`), []byte(`"graft_version":"`+w+`"`), 1)
			}},
	} {
		t.Run(string(c.host), func(t *testing.T) {
			for _, w := range []string{"v0.0.1", "old:v0.0.1", ""} {
				res, o, data := exportNew(t, c.host, t.TempDir())
				var first map[string]any
				if err := json.Unmarshal(bytes.SplitN(data, []byte("\n"), 2)[0], &first); err != nil {
					t.Fatal(err)
				}
				if who, ver := c.writer(first); who != "graft" || ver != mine {
					t.Fatalf("the export names %q %q as its writer, want graft %q", who, ver, mine)
				}
				if !bytes.Contains(data, []byte(`"`+c.tested+`"`)) {
					t.Fatalf("the export does not name %s %s (no session of it in its folder):\n%s", c.host, c.tested, data)
				}
				// The same export, as graft w wrote it: a re-export is
				// the same one, and leaves its bytes alone.
				other := c.as(data, w)
				if bytes.Equal(other, data) {
					t.Fatalf("rewriting the writer as %q changed nothing", w)
				}
				if err := os.WriteFile(res.Path, other, 0o600); err != nil {
					t.Fatal(err)
				}
				again, err := hosts.Export(o)
				if err != nil {
					t.Fatalf("re-export of a file graft %q wrote: %v", w, err)
				}
				if again.Created || again.Path != res.Path {
					t.Fatalf("re-export %+v, want the same file, not created", again)
				}
				if got, _ := os.ReadFile(filepath.Clean(res.Path)); !bytes.Equal(got, other) {
					t.Fatalf("the re-export changed the file")
				}
			}
		})
	}
}
