package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/graft-project/graft/config"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hookinstall"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/version"
)

// probeTimeout bounds each program doctor runs (a host's --version, the
// graft a hook names): a program that hangs is reported, never waited for.
const probeTimeout = 5 * time.Second

// doctorReport is "graft doctor --json".
type doctorReport struct {
	Graft    version.Info    `json:"graft"`
	OK       bool            `json:"ok"`
	Problems []doctorProblem `json:"problems"`
	Hosts    []doctorHost    `json:"hosts"`
	Home     doctorHome      `json:"home"`
	Config   doctorConfig    `json:"config"`
}

// doctorProblem is one thing that is not well, with the command that fixes
// it; code and exit are graft's stable codes (graft help exit-codes).
type doctorProblem struct {
	Code    string `json:"code"`
	Exit    int    `json:"exit"`
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
}

// doctorHost is one agent host: found when its program is on PATH or its
// directory exists.
type doctorHost struct {
	Host    string `json:"host"`
	Found   bool   `json:"found"`
	Program string `json:"program,omitempty"` // the host's program on PATH
	// Version is the first line "<program> --version" printed;
	// VersionError why there is none (not on PATH, failed, timed out).
	Version      string `json:"version,omitempty"`
	VersionError string `json:"versionError,omitempty"`
	Dir          string `json:"dir"` // $CLAUDE_CONFIG_DIR or ~/.claude; $CODEX_HOME or ~/.codex
	// Hooks are the settings files holding graft's hooks for this host.
	Hooks []doctorHooks `json:"hooks"`
	// Plugin is where the host keeps graft's plugin or extension, which
	// runs graft's hooks too (adapter.Hooks.PluginAt); "" when none.
	Plugin string `json:"plugin,omitempty"`
}

// doctorHooks is graft's hooks in one settings file.
type doctorHooks struct {
	Scope   string   `json:"scope"` // user, project or local
	File    string   `json:"file"`
	Events  []string `json:"events"`
	Command string   `json:"command"`
	// Program is the graft the command runs, found on PATH when named
	// without a directory; Runs: it exists, runs, and is this graft's
	// version; ProgramVersion is what it says it is.
	Program        string `json:"program"`
	Runs           bool   `json:"runs"`
	ProgramVersion string `json:"programVersion,omitempty"`
	// Untrusted are the events whose hook Codex has not trusted
	// ($CODEX_HOME/config.toml): Codex skips them silently.
	Untrusted []string `json:"untrusted,omitempty"`
}

// doctorHome is the graft home.
type doctorHome struct {
	Path     string `json:"path"`
	Exists   bool   `json:"exists"`
	Writable bool   `json:"writable"`
	Store    string `json:"store"`
	// From the home (graft.Service.Status, opened without the recovery
	// scan, so that doctor changes nothing): sessions, transactions in
	// flight or left by a crash, unreadable records, exports owed, and
	// why catalog.db could not be read.
	Sessions       int    `json:"sessions"`
	Pending        int    `json:"pending"`
	CorruptRecords int    `json:"corruptRecords"`
	OwedExports    int    `json:"owedExports"`
	CatalogError   string `json:"catalogError,omitempty"`
}

// doctorConfig is the config: the file, every key's value and source, and
// why it did not load.
type doctorConfig struct {
	File       string        `json:"file"`
	FileExists bool          `json:"fileExists"`
	Values     []configValue `json:"values"`
	Error      string        `json:"error,omitempty"`
}

func newDoctorCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the hosts, graft's hooks in them, the home and the config; name each fix",
		Long: `Checks what graft needs to work and says what is wrong, each problem with the
command that fixes it:

  the hosts     ` + hosts.Titles(", ", " and ") + `: found (the program on
                PATH or its directory), their version ("<program> --version",
                5 s at most each), graft's hooks in each settings
                file and whether they would run: the graft they name exists
                and is this version; Codex runs only the hooks it trusts
                ($CODEX_HOME/config.toml), Claude Code runs graft twice when
                two of its settings files hold graft's hooks
  the home      a directory graft can write; the store; catalog.db readable;
                transactions in flight or left by a crash; unreadable journal
                records; host sessions owed by committed handoffs
  the config    the file, each key's value and where it comes from; a file
                that does not load; autoGraft or interceptCompaction set with
                no host running graft's hooks

It reads, and changes nothing: the home is opened without the recovery scan
(so what it would do is reported, not done). Exit 0 when all is well; else
the exit code of the first problem (graft help exit-codes).`,
		Annotations: map[string]string{lazyConfig: "reports a config that does not load"},
		Args:        exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep := a.doctor(cmd.Context())
			if asJSON {
				if err := a.printJSON(rep); err != nil {
					return err
				}
			} else {
				printDoctor(a.stdout, rep)
			}
			if len(rep.Problems) > 0 {
				return doctorFailed{rep.Problems}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON: graft, ok, problems [{code, exit, problem, fix}], hosts, home, config")
	return cmd
}

// doctorFailed is doctor's error: the first problem's code, after the
// report (printed already, so not again as JSON).
type doctorFailed struct{ problems []doctorProblem }

func (e doctorFailed) Error() string {
	return fmt.Sprintf("doctor: %d problem(s); the first: %s", len(e.problems), e.problems[0].Problem)
}

func (e doctorFailed) Unwrap() error { return graft.ErrOfCode(graft.Code(e.problems[0].Code)) }

func (a *app) doctor(ctx context.Context) doctorReport {
	if ctx == nil {
		ctx = context.Background()
	}
	rep := doctorReport{Graft: version.Get(), Problems: []doctorProblem{}, Hosts: []doctorHost{}}
	add := func(err error, problem, fix string) {
		code, exit := graft.CodeOf(err)
		rep.Problems = append(rep.Problems, doctorProblem{Code: string(code), Exit: exit, Problem: problem, Fix: fix})
	}

	// The config first: the home may come from it.
	cfg, cerr := a.config()
	src := a.configSources()
	rep.Config = doctorConfig{File: src.File, FileExists: src.Exists, Values: []configValue{}}
	if cerr != nil {
		rep.Config.Error = errorMessage(cerr)
		fix := "edit " + src.File
		var ce *config.Error
		if errors.As(cerr, &ce) && ce.Line > 0 {
			fix = fmt.Sprintf("edit %s at line %d", ce.File, ce.Line)
		}
		add(graft.ErrBadConfig, "the config file does not load: "+rep.Config.Error, fix+", then run graft config to see every value")
		cfg = config.Default()
		cfg.DataDir = a.home
	} else {
		for _, k := range config.Keys() {
			rep.Config.Values = append(rep.Config.Values, configValue{Key: k, Value: cfg.Get(k), Source: src.Of(k).String()})
		}
	}

	a.doctorHome(&rep, cfg, add)
	a.doctorHosts(ctx, &rep, add)

	hooked := false
	for _, h := range rep.Hosts {
		hooked = hooked || len(h.Hooks) > 0 || h.Plugin != ""
	}
	if !hooked && (cfg.InterceptCompaction || cfg.AutoGraft > 0) {
		set := "interceptCompaction"
		if !cfg.InterceptCompaction {
			set = "autoGraft"
		}
		add(graft.ErrHooksMissing, fmt.Sprintf("config key %s is set, but no host runs graft's hooks: only a hook does it", set),
			"graft hook install claude-code (or graft hook install codex)")
	}
	rep.OK = len(rep.Problems) == 0
	return rep
}

// doctorHome checks the home: a directory graft can write, then what the
// service reports of it.
func (a *app) doctorHome(rep *doctorReport, cfg config.Config, add func(error, string, string)) {
	home := cfg.DataDir
	if abs, err := filepath.Abs(home); err == nil {
		home = abs
	}
	h := &rep.Home
	h.Path, h.Store = home, "file"
	if cfg.Store != "" {
		h.Store = cfg.Store
	}
	fi, err := os.Stat(home)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR):
		// Not made yet: the first command makes it, if it can.
		dir := filepath.Dir(home)
		for {
			if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
				break
			}
			dir = filepath.Dir(dir)
		}
		if dfi, err := os.Stat(dir); err != nil || !dfi.IsDir() || unix.Access(dir, unix.W_OK) != nil {
			add(graft.ErrHomeUnusable, fmt.Sprintf("the home %s does not exist and cannot be made: %s is not a directory this user can write", home, dir),
				fmt.Sprintf("mkdir -p %s (as a user who can), or name another home: graft --home DIR, GRAFT_HOME or config key dataDir", home))
			return
		}
		h.Writable = true
		return
	case err != nil:
		add(graft.ErrHomeUnusable, fmt.Sprintf("the home %s: %v", home, err), "graft --home DIR names another home (or GRAFT_HOME, or config key dataDir)")
		return
	case !fi.IsDir():
		h.Exists = true
		add(graft.ErrHomeUnusable, fmt.Sprintf("the home %s is not a directory", home),
			"move it aside (mv "+home+" "+home+".old), or name another home: graft --home DIR, GRAFT_HOME or config key dataDir")
		return
	}
	h.Exists = true
	if err := unix.Access(home, unix.W_OK|unix.X_OK); err != nil {
		add(graft.ErrHomeUnusable, fmt.Sprintf("the home %s is not writable by this user: %v", home, err), "chmod u+rwx "+home+" (or chown it to this user)")
		return
	}
	h.Writable = true
	svc, err := a.openService(graft.Options{SkipRecovery: true})
	if err != nil {
		add(err, "the home cannot be opened: "+errorMessage(err), "graft status says the same; fix what it names (graft help exit-codes)")
		return
	}
	st, err := svc.Status()
	if err != nil {
		add(err, "the home cannot be read: "+errorMessage(err), "graft status says the same; fix what it names")
		return
	}
	h.Store, h.Sessions, h.Pending, h.CorruptRecords, h.OwedExports = st.Store, len(st.Sessions), len(st.Pending), len(st.Corrupt), len(st.OwedExports)
	if st.CatalogError != "" {
		h.CatalogError = st.CatalogError
		err := svc.CheckCatalog()
		fix := "graft recover --rebuild-catalog (the damaged file is kept beside it)"
		if c, _ := graft.CodeOf(err); c == "catalog_busy" {
			fix = "wait for the graft process holding catalog.db, then run graft doctor again"
		}
		if err == nil {
			err = graft.ErrOfCode("catalog_damaged")
		}
		add(err, "catalog.db cannot be read: "+st.CatalogError, fix)
	}
	if len(st.Corrupt) > 0 {
		add(graft.ErrOfCode("corrupt_journal_record"), fmt.Sprintf("%d journal record(s) cannot be read: %s", len(st.Corrupt), strings.Join(st.Corrupt, "; ")),
			"graft recover (it reports them and leaves them in place as evidence; move a record out of .txn/ once you have read it)")
	}
	if len(st.Pending) > 0 {
		var ids []string
		for _, r := range st.Pending {
			ids = append(ids, r.Txn)
		}
		add(graft.ErrOfCode("recovery_incomplete"), fmt.Sprintf("%d transaction(s) in flight or left by a crash: %s", len(st.Pending), strings.Join(ids, ", ")),
			"graft recover (it rolls each forward or back; every graft command runs it first)")
	}
	for _, o := range st.OwedExports {
		add(graft.ErrExportOwed, fmt.Sprintf("the handoff of %s to %s still owes its %s session (in %s)", o.Source, o.Target, o.Host, o.Cwd),
			fmt.Sprintf("graft recover (it writes the export), or graft export %s %s --cwd %s", o.Host, o.Target, o.Cwd))
	}
}

// doctorHosts finds every host of the registry and checks graft's hooks
// in them.
func (a *app) doctorHosts(ctx context.Context, rep *doctorReport, add func(error, string, string)) {
	mine := version.Get()
	for _, ad := range hosts.Adapters() {
		host := ad.Name()
		dh := doctorHost{Host: string(host), Hooks: []doctorHooks{}}
		prog := ad.Program()
		if d, err := ad.Root(); err == nil {
			dh.Dir = d
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				dh.Found = true
			}
		}
		if p, err := exec.LookPath(prog); err == nil {
			dh.Found, dh.Program = true, p
			dh.Version, dh.VersionError = probe(ctx, p, "--version")
		} else {
			dh.VersionError = prog + " is not on PATH"
		}
		var files []struct {
			scope hookinstall.Scope
			flag  string
		}
		hooks := ad.Hooks()
		for _, scope := range []hookinstall.Scope{hookinstall.ScopeUser, hookinstall.ScopeProject, hookinstall.ScopeLocal} {
			if hooks.HasScope(scope) {
				files = append(files, struct {
					scope hookinstall.Scope
					flag  string
				}{scope, scopeFlag(hooks, scope)})
			}
		}
		var installedAt, unreadable []string
		for _, f := range files {
			path, err := hookinstall.SettingsPath(host, f.scope, "")
			if err != nil {
				continue
			}
			hs, err := hookinstall.Installed(host, path)
			if err != nil {
				add(err, fmt.Sprintf("%s's settings %s cannot be read: %s", host, path, errorMessage(err)), "fix the file as the message says (graft never edits a file it cannot parse)")
				unreadable = append(unreadable, path)
				continue
			}
			if len(hs) == 0 {
				continue
			}
			dh.Found = true
			install := fmt.Sprintf("graft hook install %s%s", host, f.flag)
			installedAt = append(installedAt, string(f.scope)+" ("+path+")")
			dk := doctorHooks{Scope: string(f.scope), File: path, Events: []string{}, Command: hs[0].Command}
			for _, h := range hs {
				dk.Events = append(dk.Events, h.Event)
			}
			dk.Program = hookinstall.Program(dk.Command)
			if !strings.ContainsRune(dk.Program, '/') {
				if p, err := exec.LookPath(dk.Program); err == nil {
					dk.Program = p
				}
			}
			out, perr := probe(ctx, dk.Program, "version", "--json")
			var theirs version.Info
			switch {
			case perr != "":
				add(graft.ErrHooksWontRun, fmt.Sprintf("%s's hooks in %s run %s, which does not run: %s", host, path, dk.Program, perr), install+" (writes this graft into them)")
			case json.Unmarshal([]byte(out), &theirs) != nil:
				dk.ProgramVersion = "unknown: it has no version command"
				add(graft.ErrHooksWontRun, fmt.Sprintf("%s's hooks in %s run %s, an older graft (no version command)", host, path, dk.Program), install+" (writes this graft into them)")
			default:
				dk.ProgramVersion = theirs.Short()
				if theirs.Version != mine.Version || theirs.Revision != mine.Revision || theirs.Modified != mine.Modified {
					add(graft.ErrHooksWontRun, fmt.Sprintf("%s's hooks in %s run %s, graft %s, not this graft (%s)", host, path, dk.Program, theirs.Short(), mine.Short()), install+" (writes this graft into them)")
				} else {
					dk.Runs = true
				}
			}
			if tr, ok := ad.(adapter.HookTruster); ok {
				untrusted, err := tr.Untrusted(dh.Dir, path, hs)
				file, fix := tr.TrustHelp()
				if err != nil {
					add(err, fmt.Sprintf("%s's %s cannot be read: %s", ad.Title(), filepath.Base(file), errorMessage(err)), "fix "+file+" as the message says")
				}
				dk.Untrusted = untrusted
				if len(untrusted) > 0 {
					add(graft.ErrHooksWontRun, fmt.Sprintf("%s has not trusted graft's hooks for %s, so it skips them without a word", ad.Title(), strings.Join(untrusted, ", ")), fix)
				}
			}
			dh.Hooks = append(dh.Hooks, dk)
		}
		if at := hooks.PluginAt; at != nil {
			// A settings file the scan above named unreadable is not
			// named twice.
			file, on, err := at()
			if err != nil && !slices.Contains(unreadable, file) {
				add(err, fmt.Sprintf("where %s keeps graft's plugin cannot be read: %s", ad.Title(), errorMessage(err)), "fix the file as the message says")
			}
			if on {
				dh.Found, dh.Plugin = true, file
			}
		}
		if len(installedAt) > 1 {
			add(graft.ErrHooksTwice, fmt.Sprintf("%s runs graft twice per event: graft's hooks are in %s", ad.Title(), strings.Join(installedAt, " and ")),
				fmt.Sprintf("keep one: graft hook uninstall %s --local (or --user, or the project's without a flag)", host))
		}
		rep.Hosts = append(rep.Hosts, dh)
	}
}

// scopeFlag is the flag of graft hook install <host> that names the
// settings file of scope: none for the default one.
func scopeFlag(hooks adapter.Hooks, scope hookinstall.Scope) string {
	if len(hooks.Scopes) == 0 || hooks.Scopes[0] == scope {
		return ""
	}
	return " --" + string(scope)
}

// probe runs program with args for at most probeTimeout, stdin empty, and
// returns its output (the first line when it is not JSON), or why it has
// none.
func probe(ctx context.Context, program string, args ...string) (out, problem string) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.WaitDelay = time.Second // a child that keeps the pipe open
	b, err := cmd.Output()
	switch {
	case ctx.Err() != nil:
		return "", fmt.Sprintf("%s %s did not answer within %v", program, strings.Join(args, " "), probeTimeout)
	case err != nil:
		return "", fmt.Sprintf("%s %s: %v", program, strings.Join(args, " "), err)
	}
	s := strings.TrimSpace(string(b))
	if !strings.HasPrefix(s, "{") {
		s, _, _ = strings.Cut(s, "\n")
	}
	return s, ""
}

// printDoctor writes the report for a person: the problems first, each
// with its fix, then what was found.
func printDoctor(w io.Writer, r doctorReport) {
	fmt.Fprintln(w, r.Graft.String())
	if r.OK {
		fmt.Fprintln(w, "all is well")
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem (%s): %s\n  fix: %s\n", p.Code, p.Problem, p.Fix)
	}
	for _, h := range r.Hosts {
		if !h.Found {
			fmt.Fprintf(w, "%s: not found (%s)\n", h.Host, h.VersionError)
			continue
		}
		v := h.Version
		if v == "" {
			v = "version unknown: " + h.VersionError
		}
		fmt.Fprintf(w, "%s: %s; %s\n", h.Host, v, h.Dir)
		if h.Plugin != "" {
			fmt.Fprintf(w, "  graft's plugin: %s (it runs graft's hooks with the graft on PATH, or $GRAFT_BIN)\n", h.Plugin)
		}
		if len(h.Hooks) == 0 && h.Plugin == "" {
			fmt.Fprintf(w, "  graft's hooks: not installed (graft hook install %s)\n", h.Host)
		}
		for _, k := range h.Hooks {
			runs := "would run"
			if !k.Runs {
				runs = "would not run"
			}
			fmt.Fprintf(w, "  graft's hooks (%s, %s): %s; %s %s", k.Scope, k.File, strings.Join(k.Events, ", "), k.Program, runs)
			if len(k.Untrusted) > 0 {
				fmt.Fprintf(w, "; untrusted: %s", strings.Join(k.Untrusted, ", "))
			}
			fmt.Fprintln(w)
		}
	}
	hm := r.Home
	switch {
	case !hm.Exists && hm.Writable:
		fmt.Fprintf(w, "home: %s (not made yet: the first command makes it)\n", hm.Path)
	case hm.Writable:
		fmt.Fprintf(w, "home: %s (store %s): %d sessions, %d pending, %d corrupt records, %d owed exports\n", hm.Path, hm.Store, hm.Sessions, hm.Pending, hm.CorruptRecords, hm.OwedExports)
	default:
		fmt.Fprintf(w, "home: %s\n", hm.Path)
	}
	state := "exists"
	if !r.Config.FileExists {
		state = "not found: every key has its default"
	}
	fmt.Fprintf(w, "config: %s (%s)\n", r.Config.File, state)
	for _, v := range r.Config.Values {
		fmt.Fprintf(w, "  %s = %s  # %s\n", v.Key, tomlValue(v.Value), v.Source)
	}
}
