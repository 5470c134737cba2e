package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/tape"
)

// cleanEnv gives the test an environment of its own: a home directory in a
// temp dir and none of the variables Load and Path read.
func cleanEnv(t *testing.T) (home string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"GRAFT_HOME", "GRAFT_CONFIG", "XDG_DATA_HOME", "XDG_CONFIG_HOME"} {
		t.Setenv(v, "")
	}
	return home
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaults(t *testing.T) {
	home := cleanEnv(t)
	c, src, err := Load(filepath.Join(t.TempDir(), "absent.toml"), false)
	if err != nil {
		t.Fatalf("Load of a missing file: %v", err)
	}
	want := Config{DataDir: filepath.Join(home, ".local", "share", "graft"), Tier: "A", Budget: tape.DefaultBudget}
	if c != want {
		t.Fatalf("defaults = %+v, want %+v", c, want)
	}
	if src.Exists {
		t.Error("Exists is true for a missing file")
	}
	for _, k := range Keys() {
		if s := src.Of(k).String(); s != "default" {
			t.Errorf("source of %s = %q, want default", k, s)
		}
	}
	if got := c.TapeOptions(); got != (tape.Options{Tier: "A", Budget: tape.DefaultBudget}) {
		t.Errorf("TapeOptions of the defaults = %+v", got)
	}
	if err := c.TapeOptions().Validate(); err != nil {
		t.Errorf("the default tape options do not validate: %v", err)
	}
	t.Setenv("XDG_DATA_HOME", "/xdg/data")
	if got := Default().DataDir; got != "/xdg/data/graft" {
		t.Errorf("DataDir with XDG_DATA_HOME = %q", got)
	}
}

// Each key: good values are taken (and sourced to their line), bad ones
// are errors naming the file, the line and the key.
func TestKeys(t *testing.T) {
	home := cleanEnv(t)
	good := []struct {
		text string
		key  string
		want any
	}{
		{`dataDir = "/srv/graft"`, "dataDir", "/srv/graft"},
		{`dataDir = "/srv/graft/../g/"`, "dataDir", "/srv/g"},
		{`dataDir = "~/graft"`, "dataDir", filepath.Join(home, "graft")},
		{`dataDir = "~"`, "dataDir", home},
		{`tier = "A"`, "tier", "A"},
		{`tier = 'B'`, "tier", "B"},
		{`recentTurns = 0`, "recentTurns", 0},
		{`recentTurns = 5`, "recentTurns", 5},
		{`adaptiveTier = true`, "adaptiveTier", true},
		{`adaptiveTier = false`, "adaptiveTier", false},
		{`budget = 4000`, "budget", 4000},
		{`budget = 100_000`, "budget", 100000},
		{`autoGraft = 0`, "autoGraft", int64(0)},
		{`autoGraft = 150000`, "autoGraft", int64(150000)},
		{`autoGraft = 9223372036854775807`, "autoGraft", int64(9223372036854775807)},
		{`interceptCompaction = true`, "interceptCompaction", true},
		{`"budget" = 8000`, "budget", 8000},
	}
	for _, tc := range good {
		t.Run(tc.text, func(t *testing.T) {
			p := writeFile(t, "# graft\n\n"+tc.text+"\n")
			c, src, err := Load(p, false)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := c.Get(tc.key); got != tc.want {
				t.Errorf("%s = %#v, want %#v", tc.key, got, tc.want)
			}
			if got, want := src.Of(tc.key).String(), "file "+p+":3"; got != want {
				t.Errorf("source = %q, want %q", got, want)
			}
			if !src.Exists || src.File != p {
				t.Errorf("Sources = %+v", src)
			}
			// The other keys keep their defaults.
			d := Default()
			for _, k := range Keys() {
				if k != tc.key && c.Get(k) != d.Get(k) {
					t.Errorf("%s = %#v, want the default %#v", k, c.Get(k), d.Get(k))
				}
			}
		})
	}

	bad := []struct {
		text string
		want string // the error after "config: FILE:"
	}{
		// Values out of range.
		{"budget = -4", `3: key "budget": want an integer from 4000 to 100000, got -4`},
		{"budget = 3999", `3: key "budget": want an integer from 4000 to 100000, got 3999`},
		{"budget = 100001", `3: key "budget": want an integer from 4000 to 100000, got 100001`},
		{"budget = 99999999999999999999", `3: key "budget": want an integer from 4000 to 100000, got 99999999999999999999`},
		{"recentTurns = -1", `3: key "recentTurns": want an integer from 0 to 5, got -1`},
		{"recentTurns = 6", `3: key "recentTurns": want an integer from 0 to 5, got 6`},
		{"autoGraft = -1", `3: key "autoGraft": want an integer ≥ 0 (0: off), got -1`},
		{`tier = "C"`, `3: key "tier": want "A" or "B", got "C"`},
		{`tier = "a"`, `3: key "tier": want "A" or "B", got "a"`},
		{`tier = ""`, `3: key "tier": want "A" or "B", got ""`},
		{`dataDir = "rel/dir"`, `3: key "dataDir": want an absolute path or one starting with ~/, got "rel/dir"`},
		{`dataDir = ""`, `3: key "dataDir": want an absolute path or one starting with ~/, got ""`},
		{`dataDir = "~bob/x"`, `3: key "dataDir": want an absolute path or one starting with ~/, got "~bob/x"`},
		// Values of the wrong TOML type.
		{`budget = "16000"`, `3: key "budget": want an integer from 4000 to 100000, got "16000"`},
		{"budget = 16000.0", `3: key "budget": want an integer from 4000 to 100000, got 16000.0`},
		{"recentTurns = true", `3: key "recentTurns": want an integer from 0 to 5, got true`},
		{"adaptiveTier = 1", `3: key "adaptiveTier": want true or false, got 1`},
		{`interceptCompaction = "yes"`, `3: key "interceptCompaction": want true or false, got "yes"`},
		{`store = "etcd://nohost/x"`, `3: key "store": want "file" or etcd://host:port[,host:port…]/prefix[?lease=10s&timeout=5s], got "etcd://nohost/x"`},
		{`store = "etcd://h:1"`, `3: key "store": want "file" or etcd://host:port[,host:port…]/prefix[?lease=10s&timeout=5s], got "etcd://h:1"`},
		{"tier = 2", `3: key "tier": want "A" or "B", got 2`},
		{"dataDir = ['/a']", `3: key "dataDir": want an absolute path or one starting with ~/, got an array`},
		{"autoGraft = {n = 1}", `3: key "autoGraft": want an integer ≥ 0 (0: off), got a table`},
		{"autoGraft = 2025-01-01", `3: key "autoGraft": want an integer ≥ 0 (0: off), got a date or time 2025-01-01`},
		{"dataDir.x = '/a'", `3: key "dataDir": want an absolute path or one starting with ~/, got a table`},
		// Unknown keys and tables.
		{"budgett = 16000", `3: unknown key "budgett"`},
		{"Budget = 16000", `3: unknown key "Budget"`},
		{"budget = 16000\nfoo = 1\nbar = 2", `4: unknown key "foo" (and 1 more unknown keys)`},
		{"[tape]\nbudget = 16000", `3: unknown key "tape"`},
		{"[Budget]\nx = 1", `3: unknown key "Budget"`},
		{"budget = 8000\nBudget = 9000", `4: unknown key "Budget"`},
		{"[budget]\nx = 1", `3: key "budget": want an integer from 4000 to 100000, got a table`},
		// Syntax.
		{"budget = ", `3: unexpected character U+000A at start of value`},
		{"budget = 5000\nbudget = 6000", `4: key budget is already defined`},
	}
	for _, tc := range bad {
		t.Run(tc.text, func(t *testing.T) {
			p := writeFile(t, "# graft\n\n"+tc.text+"\n")
			_, _, err := Load(p, false)
			if err == nil {
				t.Fatal("Load took it")
			}
			if got, want := err.Error(), "config: "+p+":"+tc.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.File != p || ce.Line == 0 {
				t.Errorf("error is not an *Error with file and line: %#v", err)
			}
		})
	}
}

func TestWholeFile(t *testing.T) {
	cleanEnv(t)
	p := writeFile(t, `# all keys
dataDir = "/data/graft"
tier = "B"
recentTurns = 2
adaptiveTier = true
budget = 24000   # a comment
autoGraft = 150000
interceptCompaction = true
store = "etcd://10.0.0.1:2379,10.0.0.2:2379/team-a?lease=4s"
`)
	c, src, err := Load(p, true)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{DataDir: "/data/graft", Tier: "B", RecentTurns: 2, AdaptiveTier: true, Budget: 24000, AutoGraft: 150000, InterceptCompaction: true,
		Store: "etcd://10.0.0.1:2379,10.0.0.2:2379/team-a?lease=4s"}
	if c != want {
		t.Fatalf("Load = %+v, want %+v", c, want)
	}
	for i, k := range Keys() {
		if got := src.Of(k); got != (Source{Kind: FromFile, Name: p, Line: i + 2}) {
			t.Errorf("source of %s = %+v", k, got)
		}
	}
	if got := c.TapeOptions(); got != (tape.Options{Tier: "B", RecentTurns: 2, AutoTier: true, Budget: 24000}) {
		t.Errorf("TapeOptions = %+v", got)
	}
	// An empty file is the defaults, found.
	c, src, err = Load(writeFile(t, ""), true)
	if err != nil || c != Default() || !src.Exists {
		t.Errorf("empty file: %+v %+v %v", c, src, err)
	}
}

func TestEnvHome(t *testing.T) {
	cleanEnv(t)
	p := writeFile(t, "dataDir = \"/from/file\"\n")
	t.Setenv("GRAFT_HOME", "/from/env")
	c, src, err := Load(p, false)
	if err != nil {
		t.Fatal(err)
	}
	if c.DataDir != "/from/env" || src.Of("dataDir").String() != "env GRAFT_HOME" {
		t.Errorf("GRAFT_HOME does not win over the file: %q from %s", c.DataDir, src.Of("dataDir"))
	}
	// A bad dataDir in the file is an error even when GRAFT_HOME hides it.
	if _, _, err := Load(writeFile(t, "dataDir = 3\n"), false); err == nil {
		t.Error("a bad dataDir under GRAFT_HOME was taken")
	}
}

func TestUnreadable(t *testing.T) {
	cleanEnv(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.toml")
	if _, _, err := Load(missing, true); err == nil || err.Error() != "config: "+missing+": no such file or directory" {
		t.Errorf("a missing required file: %v", err)
	}
	if _, _, err := Load(dir, false); err == nil || err.Error() != "config: "+dir+": is a directory" {
		t.Errorf("a directory: %v", err)
	}
	if os.Geteuid() != 0 { // root reads any file
		p := writeFile(t, "budget = 8000\n")
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Load(p, false); err == nil || err.Error() != "config: "+p+": permission denied" {
			t.Errorf("an unreadable file: %v", err)
		}
	}
	// A file under a regular file: not "missing", it cannot be there.
	f := writeFile(t, "")
	under := filepath.Join(f, FileName)
	if _, _, err := Load(under, false); err == nil || !strings.Contains(err.Error(), under) {
		t.Errorf("a path through a file: %v", err)
	}
}

func TestPath(t *testing.T) {
	home := cleanEnv(t)
	check := func(wantFile string, wantExplicit bool) {
		t.Helper()
		if f, e := Path(); f != wantFile || e != wantExplicit {
			t.Errorf("Path() = %q, %v; want %q, %v", f, e, wantFile, wantExplicit)
		}
	}
	check(filepath.Join(home, ".config", "graft", "config.toml"), false)
	t.Setenv("XDG_CONFIG_HOME", "relative") // ignored, as XDG says
	check(filepath.Join(home, ".config", "graft", "config.toml"), false)
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	check("/xdg/graft/config.toml", false)
	t.Setenv("GRAFT_HOME", "/gh")
	check("/gh/config.toml", false)
	t.Setenv("GRAFT_CONFIG", "/etc/graft.toml")
	check("/etc/graft.toml", true)
}

func TestSourceString(t *testing.T) {
	for _, tc := range []struct {
		s    Source
		want string
	}{
		{Source{}, "default"},
		{Source{Kind: FromDefault}, "default"},
		{Source{Kind: FromFile, Name: "/c.toml", Line: 3}, "file /c.toml:3"},
		{Source{Kind: FromEnv, Name: "GRAFT_HOME"}, "env GRAFT_HOME"},
		{Source{Kind: FromFlag, Name: "home"}, "flag --home"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.s, got, tc.want)
		}
	}
	var s Sources
	s.Set("budget", Source{Kind: FromFlag, Name: "budget"})
	if s.Of("budget").String() != "flag --budget" || s.Of("tier").String() != "default" {
		t.Errorf("Sources.Set/Of: %+v", s)
	}
}

func TestGet(t *testing.T) {
	c := Config{DataDir: "/d", Tier: "B", RecentTurns: 1, AdaptiveTier: true, Budget: 5000, AutoGraft: 7, InterceptCompaction: true, Store: "file"}
	var got []any
	for _, k := range Keys() {
		got = append(got, c.Get(k))
	}
	want := []any{"/d", "B", 1, true, 5000, int64(7), true, "file"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get over Keys = %#v, want %#v", got, want)
	}
	if c.Get("nope") != nil {
		t.Error("Get of an unknown key is not nil")
	}
}

// Issue 24, item 8: a config file that is not a regular file (a named
// pipe, a device) is refused at once: reading a FIFO would wait for a
// writer, and every command, the hooks included, would hang.
func TestNotARegularFile(t *testing.T) {
	cleanEnv(t)
	fifo := filepath.Join(t.TempDir(), FileName)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe here (%v); the directory case of TestUnreadable still runs", err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := Load(fifo, false)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), fifo) {
			t.Fatalf("a named pipe as the config file: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load of a named pipe still waits after 5 s")
	}
}
