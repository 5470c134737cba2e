package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hookinstall"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/codex"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/txn"
	bolt "go.etcd.io/bbolt"
)

// doctorEnv is a throw-away machine for graft doctor: its own HOME, graft
// home, XDG config, Claude Code and Codex directories, a project directory
// to run in, and a PATH of the graft under test and the fakes a test puts
// in bin/.
type doctorEnv struct {
	t    *testing.T
	root string
	home string
	env  []string
	dir  string
}

func newDoctorEnv(t *testing.T) *doctorEnv {
	t.Helper()
	bin := graftBinary(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &doctorEnv{t: t, root: root, home: filepath.Join(root, "home"), dir: filepath.Join(root, "project")}
	for _, d := range []string{"user", "bin", "claude", "codex", "qwen", "project"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e.env = []string{
		"HOME=" + filepath.Join(root, "user"),
		"GRAFT_HOME=" + e.home,
		"GRAFT_CONFIG=",
		"XDG_CONFIG_HOME=" + filepath.Join(root, "xdg"),
		"XDG_DATA_HOME=" + filepath.Join(root, "xdg-data"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(root, "claude"),
		"CODEX_HOME=" + filepath.Join(root, "codex"),
		"QWEN_HOME=" + filepath.Join(root, "qwen"),
		"QWEN_RUNTIME_DIR=",
		"PATH=" + filepath.Join(root, "bin") + string(os.PathListSeparator) + filepath.Dir(bin) + string(os.PathListSeparator) + "/usr/bin:/bin",
	}
	return e
}

// run runs graft with args in the project directory.
func (e *doctorEnv) run(args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "graft", args...)
	cmd.Path = ""
	for _, p := range strings.Split(strings.TrimPrefix(e.env[len(e.env)-1], "PATH="), string(os.PathListSeparator)) {
		if fi, err := os.Stat(filepath.Join(p, "graft")); err == nil && !fi.IsDir() && strings.Contains(p, "graft-bin-") {
			cmd.Path = filepath.Join(p, "graft")
		}
	}
	if cmd.Path == "" {
		e.t.Fatal("no graft under test on PATH")
	}
	cmd.Env, cmd.Dir = e.env, e.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		e.t.Fatalf("graft %s did not finish\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.stdout, r.stderr)
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		e.t.Fatalf("graft %s: %v", strings.Join(args, " "), err)
	}
	return r
}

func (e *doctorEnv) ok(args ...string) string {
	e.t.Helper()
	r := e.run(args...)
	if r.exit != 0 {
		e.t.Fatalf("graft %s: exit %d\n%s%s", strings.Join(args, " "), r.exit, r.stdout, r.stderr)
	}
	return r.stdout
}

// write writes a file under the root (made absolute there).
func (e *doctorEnv) write(rel, data string, perm os.FileMode) string {
	e.t.Helper()
	p := filepath.Join(e.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), perm); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// doctor runs graft doctor --json and returns its report and exit code;
// the text form must exit alike.
func (e *doctorEnv) doctor() (doctorReport, result) {
	e.t.Helper()
	r := e.run("doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		e.t.Fatalf("graft doctor --json: exit %d, not a report: %v\n%s%s", r.exit, err, r.stdout, r.stderr)
	}
	if text := e.run("doctor"); text.exit != r.exit {
		e.t.Fatalf("graft doctor exits %d, with --json %d\n%s", text.exit, r.exit, text.stdout)
	}
	return rep, r
}

// wantProblem runs doctor and checks it names a problem with code, whose
// fix names fix, and exits with the first problem's exit code.
func (e *doctorEnv) wantProblem(code, fix string) doctorReport {
	e.t.Helper()
	rep, r := e.doctor()
	if rep.OK || len(rep.Problems) == 0 {
		e.t.Fatalf("doctor found nothing wrong, want %s\n%s", code, r.stdout)
	}
	if r.exit != rep.Problems[0].Exit || r.exit < 10 {
		e.t.Errorf("exit %d, want the first problem's typed code %d", r.exit, rep.Problems[0].Exit)
	}
	for _, p := range rep.Problems {
		if p.Code == code {
			if !strings.Contains(p.Fix, fix) {
				e.t.Errorf("problem %s: fix %q does not name %q", code, p.Fix, fix)
			}
			for _, c := range graft.ExitCodes() {
				if string(c.Code) == code && c.Exit != p.Exit {
					e.t.Errorf("problem %s: exit %d, the table says %d", code, p.Exit, c.Exit)
				}
			}
			return rep
		}
	}
	e.t.Fatalf("doctor names no %s problem:\n%s", code, r.stdout)
	return rep
}

// fakeClaude puts a claude on PATH that prints a version.
func (e *doctorEnv) fakeClaude() {
	e.write("bin/claude", "#!/bin/sh\necho '2.1.332 (Claude Code)'\n", 0o755)
}

func TestDoctorAllIsWell(t *testing.T) {
	e := newDoctorEnv(t)
	e.fakeClaude()
	e.ok("hook", "install", "claude-code", "--user", "--command", "graft hook claude-code")
	e.ok("hook", "install", "codex", "--command", "graft hook codex")
	e.ok("hook", "install", "gemini", "--command", "graft hook gemini")
	e.ok("hook", "install", "qwen", "--command", "graft hook qwen")
	// Codex's trust, as Codex writes it when the person approves.
	hooksPath := filepath.Join(e.root, "codex", "hooks.json")
	hs, err := hookinstall.Installed(hosts.Codex, hooksPath)
	if err != nil {
		t.Fatal(err)
	}
	var trust strings.Builder
	for _, h := range hs {
		key, hash := codex.Trust(hooksPath, h)
		fmt.Fprintf(&trust, "[hooks.state.%s]\ntrusted_hash = %s\n", strconv.Quote(key), strconv.Quote(hash))
	}
	e.write("codex/config.toml", trust.String(), 0o600)
	e.ok("gen", "s", "--events", "40")

	rep, r := e.doctor()
	if r.exit != 0 || !rep.OK || len(rep.Problems) != 0 {
		t.Fatalf("doctor: exit %d, problems %+v\n%s", r.exit, rep.Problems, r.stderr)
	}
	if len(rep.Hosts) != len(hosts.Hosts) || rep.Hosts[0].Version != "2.1.332 (Claude Code)" || !rep.Hosts[0].Found {
		t.Errorf("hosts %+v: want Claude Code found with its version", rep.Hosts)
	}
	for _, h := range rep.Hosts {
		if len(h.Hooks) != 1 || !h.Hooks[0].Runs || len(h.Hooks[0].Events) != 4 || h.Hooks[0].Scope != "user" || len(h.Hooks[0].Untrusted) != 0 {
			t.Errorf("%s hooks %+v: want the user's, four events, running, trusted", h.Host, h.Hooks)
		}
	}
	if rep.Home.Path != e.home || !rep.Home.Writable || rep.Home.Sessions != 1 {
		t.Errorf("home %+v", rep.Home)
	}
	if rep.Config.File != filepath.Join(e.home, "config.toml") || len(rep.Config.Values) == 0 || rep.Config.Values[0].Source != "env GRAFT_HOME" {
		t.Errorf("config %+v", rep.Config)
	}
	if rep.Graft.Version == "" || rep.Graft.TapeFormat != "graft-tape-v2" {
		t.Errorf("graft %+v", rep.Graft)
	}
}

func TestDoctorBadConfig(t *testing.T) {
	e := newDoctorEnv(t)
	e.write("home/config.toml", "budget = 20000\nbudgett = 1\n", 0o600)
	rep := e.wantProblem("bad_config", "line 2")
	if !strings.Contains(rep.Config.Error, `unknown key "budgett"`) {
		t.Errorf("config error %q", rep.Config.Error)
	}
}

func TestDoctorHomeNotADirectory(t *testing.T) {
	e := newDoctorEnv(t)
	e.write("home", "not a directory\n", 0o600)
	e.wantProblem("home_unusable", "graft --home DIR")
}

func TestDoctorHomeCannotBeMade(t *testing.T) {
	e := newDoctorEnv(t)
	e.write("file", "x\n", 0o600)
	e.env[1] = "GRAFT_HOME=" + filepath.Join(e.root, "file", "home")
	e.wantProblem("home_unusable", "mkdir -p")
}

func TestDoctorDamagedCatalog(t *testing.T) {
	e := newDoctorEnv(t)
	e.ok("gen", "s", "--events", "40")
	e.ok("prepare", "s")
	e.write("home/catalog.db", strings.Repeat("not a bbolt file ", 512), 0o600)
	e.wantProblem("catalog_damaged", "graft recover --rebuild-catalog")
}

func TestDoctorCorruptJournalRecord(t *testing.T) {
	e := newDoctorEnv(t)
	e.ok("gen", "s", "--events", "40")
	e.write("home/.txn/txn-20250101T000000.000Z-DDDDDDDDDD.json", "{\n  \"version\": 1,\n  \"txn\": \"txn-2025", 0o600)
	e.wantProblem("corrupt_journal_record", "graft recover")
}

func TestDoctorTransactionLeftByACrash(t *testing.T) {
	e := newDoctorEnv(t)
	e.write("home/sessions/src.jsonl", `{"seq":1,"ts":"2025-01-01T00:00:00Z","type":"user/message","source":{"kind":"user"},"text":"Goal: tidy the parser."}`+"\n", 0o600)
	e.write("home/sessions/tgt3.jsonl", "", 0o600)
	e.write("home/.txn/txn-20250101T000000.000Z-CCCCCCCCCC.json", `{"version": 1, "txn": "txn-20250101T000000.000Z-CCCCCCCCCC", "kind": "graft", "state": "PREPARING", "source": "src", "target": "tgt3", "created": "2025-01-01T00:00:04Z", "updated": "2025-01-01T00:00:04Z"}`, 0o600)
	e.wantProblem("recovery_incomplete", "graft recover")
	// doctor changed nothing: the record is still there for recover.
	if _, err := os.Stat(filepath.Join(e.home, ".txn", "txn-20250101T000000.000Z-CCCCCCCCCC.json")); err != nil {
		t.Fatalf("doctor touched the record: %v", err)
	}
}

type killedAt struct{ p txn.Point }

// owedHandoff runs a handoff of a Claude Code transcript killed right
// after its commit (as hookrun's owed tests do): the export is owed.
func (e *doctorEnv) owedHandoff() {
	t := e.t
	t.Helper()
	data, err := os.ReadFile(testfixtures.Path(t, "claude-code", "tool_heavy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(e.root, "claude"))
	tr := e.write("claude/projects/-w/0f3c9a52-6f0e-4c1b-9a57-1d2e3f4a5b6c.jsonl", string(data), 0o600)
	svc, err := graft.Open(e.home, graft.Options{Hook: func(p txn.Point) {
		if p == txn.CommitJournalRemoved {
			panic(killedAt{p})
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if k, ok := recover().(killedAt); !ok || k.p != txn.CommitJournalRemoved {
				t.Fatalf("the handoff did not stop at %s", txn.CommitJournalRemoved)
			}
		}()
		res, err := svc.Handoff(context.Background(), graft.HandoffOptions{Host: hosts.ClaudeCode, Transcript: tr, Cwd: e.dir})
		t.Fatalf("the handoff ran to its end: %+v, %v", res, err)
	}()
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestDoctorOwedExport(t *testing.T) {
	e := newDoctorEnv(t)
	e.owedHandoff()
	rep := e.wantProblem("export_owed", "graft recover")
	if rep.Home.OwedExports != 1 {
		t.Errorf("home %+v: want one owed export", rep.Home)
	}
}

func TestDoctorHooksNameAMissingGraft(t *testing.T) {
	e := newDoctorEnv(t)
	e.fakeClaude()
	e.ok("hook", "install", "claude-code", "--command", filepath.Join(e.root, "gone", "graft")+" hook claude-code")
	rep := e.wantProblem("hooks_wont_run", "graft hook install claude-code")
	if k := rep.Hosts[0].Hooks; len(k) != 1 || k[0].Runs || k[0].Scope != "project" {
		t.Errorf("hooks %+v: want the project's, not running", k)
	}
}

func TestDoctorHooksNameAnotherGraft(t *testing.T) {
	e := newDoctorEnv(t)
	old := e.write("old/graft", "#!/bin/sh\necho '{\"version\": \"v0.0.1\", \"goVersion\": \"go1.26.0\"}'\n", 0o755)
	e.ok("hook", "install", "claude-code", "--local", "--command", old+" hook claude-code")
	rep := e.wantProblem("hooks_wont_run", "graft hook install claude-code --local")
	if k := rep.Hosts[0].Hooks; len(k) != 1 || k[0].ProgramVersion != "v0.0.1" {
		t.Errorf("hooks %+v: want graft v0.0.1 named", k)
	}
}

func TestDoctorCodexHooksUntrusted(t *testing.T) {
	e := newDoctorEnv(t)
	e.ok("hook", "install", "codex", "--command", "graft hook codex")
	e.write("codex/config.toml", "model = \"gpt-fake\"\n", 0o600)
	rep := e.wantProblem("hooks_wont_run", "approve graft's hooks")
	if k := rep.Hosts[1].Hooks; len(k) != 1 || len(k[0].Untrusted) != 4 || !k[0].Runs {
		t.Errorf("codex hooks %+v: want all four untrusted (and the program running)", k)
	}
}

func TestDoctorHooksMissing(t *testing.T) {
	e := newDoctorEnv(t)
	e.write("home/config.toml", "interceptCompaction = true\n", 0o600)
	e.wantProblem("hooks_missing", "graft hook install claude-code")
}

// graft's plugin or extension installed the host's own way runs graft's
// hooks too: doctor names where the host keeps it, and a host with it
// runs graft's hooks (no hooks_missing). Claude Code's plugin is enabled
// in the user's settings.json, Gemini CLI's and Qwen Code's extension is
// a folder under the host's extensions/.
func TestDoctorNamesGraftsPluginAndExtensions(t *testing.T) {
	for _, c := range []struct{ host, file, data string }{
		{"claude-code", "claude/settings.json", `{"enabledPlugins": {"graft@graft": true}}`},
		{"gemini", "user/.gemini/extensions/graft/gemini-extension.json", `{"name": "graft", "version": "0.1.0"}`},
		{"qwen", "qwen/extensions/graft/qwen-extension.json", `{"name": "graft", "version": "0.1.0"}`},
	} {
		t.Run(c.host, func(t *testing.T) {
			e := newDoctorEnv(t)
			e.write("home/config.toml", "interceptCompaction = true\n", 0o600)
			path := e.write(c.file, c.data, 0o600)
			rep, r := e.doctor()
			for _, p := range rep.Problems {
				if p.Code == "hooks_missing" {
					t.Errorf("doctor says no host runs graft's hooks, with graft's plugin in %s:\n%s", path, r.stdout)
				}
			}
			found := false
			for _, h := range rep.Hosts {
				if h.Host == c.host {
					found = h.Plugin == path
					if !found {
						t.Errorf("%s: plugin %q, want %s", c.host, h.Plugin, path)
					}
				} else if h.Plugin != "" {
					t.Errorf("%s: plugin %q, want none", h.Host, h.Plugin)
				}
			}
			if !found {
				return
			}
			if text := e.run("doctor"); !strings.Contains(text.stdout, "graft's plugin: "+path) {
				t.Errorf("graft doctor does not name the plugin:\n%s", text.stdout)
			}
		})
	}
	// A settings file that does not parse is one problem, not one for its
	// hooks and one for the plugin.
	b := newDoctorEnv(t)
	broken := b.write("claude/settings.json", "{broken", 0o600)
	if rep, _ := b.doctor(); len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Problem, broken) {
		t.Errorf("a settings file that does not parse: problems %+v, want one naming %s", rep.Problems, broken)
	}
	// Disabled in Claude Code's settings: no plugin.
	e := newDoctorEnv(t)
	e.write("claude/settings.json", `{"enabledPlugins": {"graft@graft": false}}`, 0o600)
	if rep, _ := e.doctor(); rep.Hosts[0].Plugin != "" {
		t.Errorf("a disabled plugin is named: %q", rep.Hosts[0].Plugin)
	}
}

func TestDoctorClaudeHooksTwice(t *testing.T) {
	e := newDoctorEnv(t)
	e.ok("hook", "install", "claude-code", "--user", "--command", "graft hook claude-code")
	e.ok("hook", "install", "claude-code", "--command", "graft hook claude-code")
	e.wantProblem("hooks_twice", "graft hook uninstall claude-code")
}

// A host whose --version hangs costs doctor its probe timeout, no more.
func TestDoctorNeverHangsOnAHost(t *testing.T) {
	e := newDoctorEnv(t)
	e.write("bin/claude", "#!/bin/sh\nsleep 60\n", 0o755)
	start := time.Now()
	rep, r := e.doctor()
	if took := time.Since(start); took > 2*(probeTimeout+5*time.Second) {
		t.Fatalf("doctor (twice) took %v", took)
	}
	if r.exit != 0 || !strings.Contains(rep.Hosts[0].VersionError, "did not answer") {
		t.Fatalf("exit %d, claude-code %+v: want its version reported missing, not a problem", r.exit, rep.Hosts[0])
	}
}

// The review names the goal the source's host kept (its /goal): the
// person decides with it, and a handoff notes that the new session has
// none until they set it again.
func TestTheReviewNamesTheHostsGoal(t *testing.T) {
	var b strings.Builder
	printReview(&b, &graft.Review{PreparedID: "p", Source: "s", HostGoal: &tape.HostGoal{Status: "paused", Objective: "All tests in ./parser pass", Seq: 42}})
	if want := "Host goal (its /goal): paused at seq=42: All tests in ./parser pass\n"; !strings.Contains(b.String(), want) {
		t.Errorf("the review does not name the host's goal %q:\n%s", want, b.String())
	}
	b.Reset()
	printReview(&b, &graft.Review{PreparedID: "p", Source: "s"})
	if strings.Contains(b.String(), "Host goal") {
		t.Errorf("a review without a goal names one:\n%s", b.String())
	}
}

// An owed export whose stored value was damaged on the disk (its working
// directory one letter off) is never written there: the start-up scan
// leaves it, and doctor names the damaged catalog with its fix.
func TestDoctorDamagedOwedExport(t *testing.T) {
	e := newDoctorEnv(t)
	e.owedHandoff()
	// Change one letter of the owed export's working directory, in the
	// bytes bbolt keeps.
	other := e.dir[:len(e.dir)-1] + "Z"
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(filepath.Join(e.home, "catalog.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("owed"))
		if b == nil {
			return errors.New("no owed bucket")
		}
		k, v := b.Cursor().First()
		if k == nil {
			return errors.New("nothing owed")
		}
		changed := bytes.Replace(v, []byte(`"cwd":"`+e.dir+`"`), []byte(`"cwd":"`+other+`"`), 1)
		if bytes.Equal(changed, v) {
			return fmt.Errorf("no cwd %s in %s", e.dir, v)
		}
		return b.Put(bytes.Clone(k), changed)
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	rep := e.wantProblem("catalog_damaged", "graft recover --rebuild-catalog")
	if !strings.Contains(rep.Problems[0].Problem, "checksum") {
		t.Errorf("problem %+v: want the checksum named", rep.Problems[0])
	}
	svc, err := graft.Open(e.home, graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(e.root, "claude", "projects"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ents {
		if strings.HasSuffix(d.Name(), "Z") {
			t.Errorf("an export was written by the damaged value: %s", d.Name())
		}
	}
}

// A lineage node damaged on the disk (its parent one letter off) is a
// damaged catalog to doctor, with its fix, and the rebuild writes it again
// from the logs, parent and checksum right.
func TestDoctorDamagedLineageNode(t *testing.T) {
	e := newDoctorEnv(t)
	e.owedHandoff()
	var target, parent string
	e.lineage(func(b *bolt.Bucket) error {
		return b.ForEach(func(k, v []byte) error {
			var n struct{ Parent string }
			if err := json.Unmarshal(v, &n); err != nil {
				return err
			}
			if n.Parent != "" {
				target, parent = string(k), n.Parent
				return b.Put(bytes.Clone(k), bytes.Replace(v, []byte(`"parent":"`+n.Parent), []byte(`"parent":"`+n.Parent[:len(n.Parent)-1]+"z"), 1))
			}
			return nil
		})
	})
	if target == "" {
		t.Fatal("no lineage node with a parent")
	}
	rep := e.wantProblem("catalog_damaged", "graft recover --rebuild-catalog")
	if !strings.Contains(rep.Problems[0].Problem, "checksum") {
		t.Errorf("problem %+v: want the checksum named", rep.Problems[0])
	}
	e.ok("recover", "--rebuild-catalog")
	if rep, _ := e.doctor(); slices.ContainsFunc(rep.Problems, func(p doctorProblem) bool { return p.Code == "catalog_damaged" }) {
		t.Fatalf("after the rebuild doctor still finds the catalog damaged: %+v", rep.Problems)
	}
	e.lineage(func(b *bolt.Bucket) error {
		v := b.Get([]byte(target))
		if !bytes.Contains(v, []byte(`"parent":"`+parent+`"`)) || !bytes.Contains(v, []byte(`"sum":"sha256:`)) {
			return fmt.Errorf("the rebuilt node of %s: %s", target, v)
		}
		return nil
	})
}

// lineage runs fn on the lineage bucket of the home's catalog.db, in a
// write transaction of bbolt's own.
func (e *doctorEnv) lineage(fn func(*bolt.Bucket) error) {
	e.t.Helper()
	db, err := bolt.Open(filepath.Join(e.home, "catalog.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("lineage"))
		if b == nil {
			return errors.New("no lineage bucket")
		}
		return fn(b)
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		e.t.Fatal(err)
	}
}
