package importer_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/claudecode"
	"github.com/graft-project/graft/importer/codex"
	"github.com/graft-project/graft/importer/gemini"
	"github.com/graft-project/graft/importer/qwen"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// The golden imports pin every byte the importers write: for each
// transcript of the repository (testdata/fixtures, testdata/fidelity,
// importer/*/testdata), imported whole, in three runs that stop at byte
// cuts (a torn last line each time, the cursor's state carried across),
// with both mappers' settings, and in mutated forms that take the JSON
// decoding off its common path (white space, escaped and differently cased
// keys, repeated keys, null values, cut lines, another host's mapper), the
// sha256 of the session logs, of the cursors and of the run's summary. The
// sums in testdata/golden-imports.txt were recorded before the importers
// were made faster (issue 25): any change to what an import writes fails
// here. -update-golden records them again (only for a deliberate change of
// the mapping).
var updateGolden = flag.Bool("update-golden", false, "record testdata/golden-imports.txt again")

const goldenFile = "testdata/golden-imports.txt"

// goldenNow is the clock of the golden imports: cursors carry the time of
// their write, and events of a line without a readable time are stamped.
var goldenNow = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

type goldenSource struct {
	rel  string // path in the module
	host string // an importer format: claude-code, codex, gemini-cli or qwen
}

// goldenHosts are the importer formats, in the order the cases through
// another host's mapper take them.
var goldenHosts = []string{claudecode.Format, codex.Format, gemini.Format, qwen.Format}

// newMapper is host's mapper.
func newMapper(host string, keep bool) importer.Mapper {
	switch host {
	case claudecode.Format:
		return claudecode.NewMapper(claudecode.Config{KeepThinking: keep})
	case codex.Format:
		return codex.NewMapper(codex.Config{KeepThinking: keep})
	case gemini.Format:
		return gemini.NewMapper(gemini.Config{KeepThinking: keep})
	}
	return qwen.NewMapper(qwen.Config{KeepThinking: keep})
}

func goldenSources(t *testing.T, root string) []goldenSource {
	var srcs []goldenSource
	for _, dir := range []string{"testdata/fixtures", "testdata/fidelity/transcripts", "importer/claudecode/testdata", "importer/codex/testdata",
		"importer/gemini/testdata", "importer/qwen/testdata"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return nil
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			host := claudecode.Format
			switch {
			case strings.HasPrefix(rel, "importer/gemini/") || strings.Contains(rel, "/gemini/"):
				host = gemini.Format
			case strings.HasPrefix(rel, "importer/qwen/") || strings.Contains(rel, "/qwen/"):
				host = qwen.Format
			case strings.Contains(rel, "codex") || strings.HasPrefix(filepath.Base(rel), "rollout-"):
				host = codex.Format
			}
			srcs = append(srcs, goldenSource{rel: rel, host: host})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.SortFunc(srcs, func(a, b goldenSource) int { return strings.Compare(a.rel, b.rel) })
	hosts := map[string]int{}
	for _, src := range srcs {
		hosts[src.host]++
	}
	if len(srcs) < 25 || hosts[gemini.Format] < 3 || hosts[qwen.Format] < 3 {
		t.Fatalf("found %d transcripts in the repository (%v), want at least 25, three of Gemini CLI and of Qwen Code", len(srcs), hosts)
	}
	return srcs
}

// mutations rewrite a transcript's bytes so that its lines take the JSON
// decoders off their common path; each keeps one line per line.
var mutations = []struct {
	name string
	fn   func(line []byte) []byte
}{
	{"spaced", func(l []byte) []byte {
		l = bytes.ReplaceAll(l, []byte(`":`), []byte(`" : `))
		return bytes.ReplaceAll(l, []byte(`,"`), []byte(` ,	"`))
	}},
	{"escaped-keys", func(l []byte) []byte {
		for _, k := range []string{"type", "content", "text", "input", "uuid", "timestamp", "payload", "name", "message"} {
			l = bytes.ReplaceAll(l, []byte(`"`+k+`":`), []byte(`"`+k[:1]+`\u00`+hex.EncodeToString([]byte(k[1:2]))+k[2:]+`":`))
		}
		return l
	}},
	{"cased-keys", func(l []byte) []byte {
		for _, k := range []string{"type", "content", "text", "id", "isMeta", "call_id", "role", "output", "tool_use_id"} {
			l = bytes.ReplaceAll(l, []byte(`"`+k+`":`), []byte(`"`+strings.ToUpper(k[:1])+k[1:]+`":`))
		}
		return l
	}},
	{"repeated-keys", func(l []byte) []byte {
		l = bytes.Replace(l, []byte(`{"`), []byte(`{"type":"progress","text":null,"content":"x","`), 1)
		return bytes.ReplaceAll(l, []byte(`"message":{`), []byte(`"message":{"content":[],"role":"user",`))
	}},
	{"nulls", func(l []byte) []byte {
		for _, k := range []string{"message", "payload", "input", "content", "toolUseResult", "summary", "arguments", "output"} {
			l = bytes.ReplaceAll(l, []byte(`"`+k+`":`), []byte(`"`+k+`":null,"`+k+`_":`))
		}
		return l
	}},
	{"wrong-types", func(l []byte) []byte {
		l = bytes.ReplaceAll(l, []byte(`"isMeta":true`), []byte(`"isMeta":"true"`))
		l = bytes.ReplaceAll(l, []byte(`"is_error":false`), []byte(`"is_error":0`))
		l = bytes.ReplaceAll(l, []byte(`"timestamp":"`), []byte(`"timestamp":"x`))
		return bytes.ReplaceAll(l, []byte(`"name":"`), []byte(`"name":["`))
	}},
	{"cut", func(l []byte) []byte {
		if len(l) > 40 && len(l)%3 == 0 {
			return l[:len(l)/2]
		}
		return l
	}},
	{"unicode", func(l []byte) []byte {
		l = bytes.ReplaceAll(l, []byte(`e`), []byte(`\u00e9`))
		l = bytes.ReplaceAll(l, []byte(`the `), []byte("th\xff\xfe \\ud800 \\ud83d\\ude00 \u2028<&> "))
		return l
	}},
}

// hostMutations are more mutations for the Gemini CLI and Qwen Code
// transcripts, on their own keys (added with them: the mutations above
// keep their bytes for the other hosts' golden sums).
var hostMutations = []struct {
	name string
	fn   func(line []byte) []byte
}{
	{"escaped-keys-2", func(l []byte) []byte {
		for _, k := range []string{"parts", "functionCall", "functionResponse", "response", "output", "toolCalls", "args", "$set", "messages", "thought", "systemPayload", "id", "subtype", "result", "status"} {
			l = bytes.ReplaceAll(l, []byte(`"`+k+`":`), []byte(`"`+k[:1]+`\u00`+hex.EncodeToString([]byte(k[1:2]))+k[2:]+`":`))
		}
		return l
	}},
	{"cased-keys-2", func(l []byte) []byte {
		for _, k := range []string{"parts", "functionCall", "functionResponse", "response", "toolCalls", "args", "messages", "thoughts", "subtype", "provenance", "displayContent", "toolCallResult", "error"} {
			l = bytes.ReplaceAll(l, []byte(`"`+k+`":`), []byte(`"`+strings.ToUpper(k[:1])+k[1:]+`":`))
		}
		return l
	}},
	{"repeated-keys-2", func(l []byte) []byte {
		l = bytes.Replace(l, []byte(`{"`), []byte(`{"id":"dup","uuid":"dup","type":"info","$set":{},"`), 1)
		l = bytes.ReplaceAll(l, []byte(`"functionResponse":{`), []byte(`"functionResponse":{"id":"x","response":{},`))
		return bytes.ReplaceAll(l, []byte(`"parts":[`), []byte(`"parts":[],"parts":[`))
	}},
	{"nulls-2", func(l []byte) []byte {
		for _, k := range []string{"parts", "functionCall", "functionResponse", "response", "toolCalls", "thoughts", "result", "args", "systemPayload", "toolCallResult", "text", "provenance"} {
			l = bytes.ReplaceAll(l, []byte(`"`+k+`":`), []byte(`"`+k+`":null,"`+k+`_":`))
		}
		return l
	}},
	{"wrong-types-2", func(l []byte) []byte {
		l = bytes.ReplaceAll(l, []byte(`"thought":true`), []byte(`"thought":1`))
		l = bytes.ReplaceAll(l, []byte(`"status":"`), []byte(`"status":["`))
		l = bytes.ReplaceAll(l, []byte(`"input":`), []byte(`"input":"`))
		l = bytes.ReplaceAll(l, []byte(`"text":"`), []byte(`"text":{"`))
		return bytes.ReplaceAll(l, []byte(`"parts":[{`), []byte(`"parts":[7,{`))
	}},
	{"numbers", func(l []byte) []byte {
		l = bytes.ReplaceAll(l, []byte(`"originalTokenCount":`), []byte(`"originalTokenCount":1e3,"x":`))
		l = bytes.ReplaceAll(l, []byte(`"input":`), []byte(`"input":-0.5e-3,"input_":`))
		return bytes.ReplaceAll(l, []byte(`"newTokenCount":`), []byte(`"newTokenCount":99999999999999999999,"y":`))
	}},
}

func mutate(data []byte, fn func([]byte) []byte) []byte {
	var out []byte
	for line := range bytes.SplitAfterSeq(data, []byte{'\n'}) {
		body, nl := bytes.CutSuffix(line, []byte{'\n'})
		out = append(out, fn(slices.Clone(body))...)
		if nl {
			out = append(out, '\n')
		}
	}
	return out
}

// goldenCase is one import scenario and what it wrote.
type goldenCase struct {
	name string
	sums []string
}

func TestGoldenImports(t *testing.T) {
	root := testfixtures.ModuleRoot(t)
	var cases []goldenCase
	for _, src := range goldenSources(t, root) {
		data, err := os.ReadFile(filepath.Join(root, src.rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, keep := range []bool{false, true} {
			name := fmt.Sprintf("%s keepThinking=%v", src.rel, keep)
			cases = append(cases, goldenCase{name + " whole", importWhole(t, root, src, keep)})
			cases = append(cases, goldenCase{name + " in-steps", importSteps(t, data, src.host, keep, 0)})
		}
		// Through the other hosts' mappers: malformed lines and unknown
		// shapes, reported in the summary (Claude Code's and Codex's
		// through each other's first, as they were recorded).
		others := []string{codex.Format, gemini.Format, qwen.Format}
		if src.host != claudecode.Format {
			others = slices.DeleteFunc(slices.Clone(goldenHosts), func(h string) bool { return h == src.host })
		}
		for _, other := range others {
			// Refused as a first import (importer.Check): what the mapper
			// makes of them is what a resumed import would.
			restore := importer.UncheckedFirstLines()
			cases = append(cases, goldenCase{src.rel + " as " + other, importSteps(t, data, other, false, 0)})
			restore()
		}
		if len(data) > 1<<20 {
			// Batches of 64 KiB: the appends to an existing session.
			cases = append(cases, goldenCase{src.rel + " batches", importSteps(t, data, src.host, false, 64<<10)})
			continue
		}
		// The mutations pin the mappers' decoding of odd lines, not which
		// files a first import takes (a line cut or nulled is none of its
		// host's records): unchecked.
		restore := importer.UncheckedFirstLines()
		for _, m := range mutations {
			cases = append(cases, goldenCase{src.rel + " " + m.name, importSteps(t, mutate(data, m.fn), src.host, true, 0)})
		}
		if src.host == gemini.Format || src.host == qwen.Format {
			for _, m := range hostMutations {
				cases = append(cases, goldenCase{src.rel + " " + m.name, importSteps(t, mutate(data, m.fn), src.host, true, 0)})
			}
		}
		restore()
	}
	var b strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&b, "%s\n", c.name)
		for _, s := range c.sums {
			fmt.Fprintf(&b, "\t%s\n", s)
		}
	}
	got := b.String()
	if *updateGolden {
		if err := os.WriteFile(goldenFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %d cases in %s", len(cases), goldenFile)
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (go test -run TestGoldenImports -update-golden records it)", err)
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	bad := 0
	for k := 0; k < max(len(gl), len(wl)); k++ {
		var g, w string
		if k < len(gl) {
			g = gl[k]
		}
		if k < len(wl) {
			w = wl[k]
		}
		if g != w {
			t.Errorf("%s line %d:\n got  %s\n want %s", goldenFile, k+1, g, w)
			if bad++; bad >= 20 {
				t.Fatal("too many differences")
			}
		}
	}
}

func goldenStore(t *testing.T) (*session.Store, string) {
	home := t.TempDir()
	st, err := session.OpenStore(noSyncFS{vfs.Default}, home)
	if err != nil {
		t.Fatal(err)
	}
	st.Now = func() time.Time { return goldenNow }
	return st, home
}

// importWhole imports a transcript as a person would (a Claude Code one with
// its sub-agents) from a copy of its directory.
func importWhole(t *testing.T, root string, src goldenSource, keep bool) []string {
	st, home := goldenStore(t)
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.Base(src.rel))
	copyTree(t, filepath.Join(root, src.rel), path)
	if sub := strings.TrimSuffix(filepath.Join(root, src.rel), ".jsonl"); isDir(sub) {
		copyTree(t, sub, strings.TrimSuffix(path, ".jsonl"))
	}
	var sum *importer.Summary
	var err error
	switch src.host {
	case claudecode.Format:
		sum, err = claudecode.Import(claudecode.Options{Store: st, Home: home, Path: path, ID: "g", KeepThinking: keep})
	case codex.Format:
		sum, err = codex.Import(codex.Options{Store: st, Home: home, Path: path, ID: "g", KeepThinking: keep})
	case gemini.Format:
		sum, err = gemini.Import(gemini.Options{Store: st, Home: home, Path: path, ID: "g", KeepThinking: keep})
	default:
		sum, err = qwen.Import(qwen.Options{Store: st, Home: home, Path: path, ID: "g", KeepThinking: keep})
	}
	if err != nil {
		t.Fatalf("%s: %v", src.rel, err)
	}
	return outputs(t, st, home, dir, sum)
}

// importSteps imports data in three runs into one session: the first third
// of its bytes, two thirds, then all (the cuts fall inside lines).
func importSteps(t *testing.T, data []byte, host string, keep bool, batch int) []string {
	st, home := goldenStore(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "transcript.jsonl")
	var sums []string
	at := 0
	for _, cut := range []int{len(data) / 3, 2 * len(data) / 3, len(data)} {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(data[at:cut]); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		at = cut
		m := newMapper(host, keep)
		sum, err := importer.Run(importer.Options{Store: st, Home: home, ID: "g", Source: path, BatchBytes: batch}, m)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		sums = append(sums, outputs(t, st, home, dir, sum)...)
	}
	return sums
}

var identity = regexp.MustCompile(`"(device|inode)": [0-9]+`)

// cursorSum is a cursor's checksum, of its bytes with the directory and
// the identity in them (TestADamagedCursorIsSetAside checks it).
var cursorSum = regexp.MustCompile(`"sum": "sha256:[0-9a-f]{64}"`)

// outputs are the sha256 of every session log and cursor in home and of
// the summary, with the temporary directory, the file identity and a
// cursor's checksum taken out.
func outputs(t *testing.T, st *session.Store, home, dir string, sum *importer.Summary) []string {
	norm := func(b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte(dir), []byte("$DIR"))
		b = cursorSum.ReplaceAll(b, []byte(`"sum": "$SUM"`))
		return identity.ReplaceAll(b, []byte(`"$1": 0`))
	}
	var out []string
	for _, sub := range []string{"sessions", "imports"} {
		ents, err := os.ReadDir(filepath.Join(home, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(home, sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			b = norm(b)
			s := sha256.Sum256(b)
			out = append(out, fmt.Sprintf("%s/%s %d %s", sub, e.Name(), len(b), hex.EncodeToString(s[:12])))
		}
	}
	js, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(norm(js))
	out = append(out, fmt.Sprintf("summary %s", hex.EncodeToString(s[:12])))
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func copyTree(t *testing.T, src, dst string) {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// noSyncFS is the file system without its fsyncs: the golden imports
// compare bytes, not durability (the run's tests check that), and several
// hundred imports' fsyncs would take most of the test's time.
type noSyncFS struct{ vfs.FS }

type noSyncFile struct{ vfs.File }

func (noSyncFile) Sync() error { return nil }

func (f noSyncFS) Create(name string, perm os.FileMode) (vfs.File, error) {
	file, err := f.FS.Create(name, perm)
	if err != nil {
		return nil, err
	}
	return noSyncFile{file}, nil
}

func (f noSyncFS) OpenAppend(name string) (vfs.File, error) {
	file, err := f.FS.OpenAppend(name)
	if err != nil {
		return nil, err
	}
	return noSyncFile{file}, nil
}

func (noSyncFS) SyncDir(string) error { return nil }

func (noSyncFS) WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}
