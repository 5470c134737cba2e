package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/hookinstall"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
)

func newHookCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Run graft from a host's hooks, or install those hooks",
		Long: `A host (` + hosts.Titles(", ", ", ") + `) runs ` + hookRuns() + `
on its events, with the event's JSON on stdin (session_id, transcript_path,
cwd, hook_event_name, …). "graft hook install" writes those hooks into the
host's settings; "graft hook uninstall" takes exactly them out again.

The events and what graft does on each:
  SessionStart      the recovery scan; start following the session's
                    transcript; after a compaction, re-inject the session's
                    constraints
  UserPromptSubmit  follow the transcript incrementally; past autoGraft,
  Stop              suggest a handoff to a fresh session
  PreCompact        with interceptCompaction, hand the session off and block
                    the compaction`,
	}
	cmd.AddCommand(newHookInstallCmd(a), newHookUninstallCmd(a))
	for _, h := range hosts.Hosts {
		cmd.AddCommand(newHookRunCmd(a, h)) // cmd_hookrun.go
	}
	return cmd
}

// hookRuns is `"graft hook claude-code" or "graft hook codex"`.
func hookRuns() string {
	var runs []string
	for _, h := range hosts.Hosts {
		runs = append(runs, `"graft hook `+string(h)+`"`)
	}
	return joinOr(runs)
}

// hostArgs makes "install"/"uninstall" without a known host a usage error
// (cobra would print the help and exit 0).
func hostArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return usageError{fmt.Errorf("%s: name the host: %s", cmd.CommandPath(), hosts.Names(", ", " or "))}
	}
	if _, err := hookinstall.ParseHost(args[0]); err != nil {
		return usageError{fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
	}
	return usageError{fmt.Errorf("%s %s takes no further arguments, got %q", cmd.CommandPath(), args[0], args[1:])}
}

const hookInstallLong = `Merges graft's hooks into the host's settings file: for each of SessionStart,
UserPromptSubmit, Stop and PreCompact one entry (no matcher)
  {"hooks": [{"type": "command", "command": "<graft> [--home H] hook <host>", "timeout": S}]}
with S = 60 for PreCompact and 15 for the others. Every other setting and
hook is kept, in its order. An existing file is first copied to
<file>.graft-backup (.graft-backup.1, .2, … when taken; a backup is never
overwritten); the new file is written atomically with the old file's mode
(a new file 0600, a new directory 0700). Installing again changes nothing;
graft's entry with another command (another graft path or home) is replaced
in place. A file that is not valid JSON, or whose "hooks" or event values
are not shaped as the host's, is refused with nothing written.

The command is the running graft's absolute path (symlinks resolved), then
--home <home> when the home was given with --home or GRAFT_HOME, --config
<file> when the config file was given with --config or GRAFT_CONFIG or is
config.toml in GRAFT_HOME (and exists), then "hook <host>"; --command writes
another one.`

func newHookInstallCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "install " + hosts.Names("|", "|"),
		Short: "Merge graft's hooks into " + hosts.Titles("'s, ", "'s or ") + "'s settings (with a backup)",
		Long:  hookInstallLong,
		Args:  cobra.ArbitraryArgs,
		RunE:  hostArgs,
	}
	addHookHostCmds(a, cmd, true)
	return cmd
}

func newHookUninstallCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "uninstall " + hosts.Names("|", "|"),
		Short: "Remove exactly graft's hooks from " + hosts.Titles("'s, ", "'s or ") + "'s settings (with a backup)",
		Long: `Removes graft's hooks from the host's settings file, and the groups, events
and "hooks" key that leaves empty; every other setting and hook is kept. A
hook is graft's when its program is named graft and it runs "hook <host>",
or when it runs exactly the command "install" would write (or --command).
The file is backed up first, as by install. Nothing to remove: the file is
left untouched.`,
		Args: cobra.ArbitraryArgs,
		RunE: hostArgs,
	}
	addHookHostCmds(a, cmd, false)
	return cmd
}

// hookFlags are the flags install and uninstall share.
type hookFlags struct {
	command string
	asJSON  bool
}

func (f *hookFlags) add(cmd *cobra.Command, install bool) {
	if install {
		cmd.Flags().StringVar(&f.command, "command", "", "the hook command to write (default: this graft, see above)")
	} else {
		cmd.Flags().StringVar(&f.command, "command", "", "also remove hooks running exactly this command (default: the command install would write)")
	}
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print the result as JSON")
}

// addHookHostCmds adds "install <host>" (or "uninstall <host>") for every
// host of the registry: with --project, --local and --user for a host with
// settings files in the project, with --<its folder's variable> for a host
// that has only the user's.
func addHookHostCmds(a *app, parent *cobra.Command, install bool) {
	for _, ad := range hosts.Adapters() {
		if ad.Hooks().HasScope(hookinstall.ScopeProject) {
			parent.AddCommand(newHookScopesCmd(a, ad, install))
		} else {
			parent.AddCommand(newHookUserCmd(a, ad, install))
		}
	}
}

// newHookScopesCmd is install (or uninstall) for a host whose hooks go in
// the project's, the project's local or the user's settings file.
func newHookScopesCmd(a *app, ad adapter.Adapter, install bool) *cobra.Command {
	host := ad.Name()
	var (
		f       hookFlags
		project string
		local   bool
		user    bool
	)
	cmd := &cobra.Command{
		Use:   string(host) + " [--project DIR | --local | --user]",
		Short: ad.Help().Hooks,
		Long:  ad.Help().HooksLong,
		// "--project" alone is the current directory (NoOptDefVal), so
		// pflag leaves the DIR of "--project DIR" an argument: it is taken
		// back here.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && cmd.Flags().Changed("project") && project == "." && !projectGivenInline(cmd) {
				project = args[0]
				return nil
			}
			return exactArgs(0)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if user && (cmd.Flags().Changed("project") || local) {
				return usageError{errors.New("--user names the user's settings; it goes with neither --project nor --local")}
			}
			scope := hookinstall.ScopeProject
			switch {
			case user:
				scope = hookinstall.ScopeUser
				project = ""
			case local:
				scope = hookinstall.ScopeLocal
			}
			if scope != hookinstall.ScopeUser {
				if err := isDir("--project", project); err != nil {
					return err
				}
			}
			path, err := hookinstall.SettingsPath(host, scope, project)
			if err != nil {
				return err
			}
			r, err := a.runHookEdit(cmd, host, path, f, install)
			if err != nil {
				return err
			}
			if install {
				a.noteOtherSettingsFiles(&r, ad, scope, project, f.command)
			}
			return a.printHookResult(r, f.asJSON, install)
		},
	}
	cmd.Flags().StringVar(&project, "project", ".", "the project directory whose .claude/settings.json to edit (--project alone: the current directory)")
	cmd.Flags().Lookup("project").NoOptDefVal = "."
	cmd.Flags().BoolVar(&local, "local", false, "edit the project's .claude/settings.local.json instead")
	cmd.Flags().BoolVar(&user, "user", false, "edit the user's settings ("+ad.Help().UserSettings+")")
	f.add(cmd, install)
	if install {
		cmd.Long = hookInstallLong + "\n\n" + cmd.Long
	}
	return cmd
}

// newHookUserCmd is install (or uninstall) for a host whose hooks go in
// one file in its folder, which --<the folder's variable> (--codex-home)
// names.
func newHookUserCmd(a *app, ad adapter.Adapter, install bool) *cobra.Command {
	host := ad.Name()
	flag := strings.ReplaceAll(strings.ToLower(ad.RootVar()), "_", "-")
	var (
		f    hookFlags
		root string
	)
	cmd := &cobra.Command{
		Use:   fmt.Sprintf("%s [--%s DIR]", host, flag),
		Short: ad.Help().Hooks,
		Long:  ad.Help().HooksLong,
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed(flag) {
				if err := isDir("--"+flag, root); err != nil {
					return err
				}
			}
			path, err := hookinstall.SettingsPath(host, hookinstall.ScopeUser, root)
			if err != nil {
				return err
			}
			r, err := a.runHookEdit(cmd, host, path, f, install)
			if err != nil {
				return err
			}
			if err := a.editMCPServer(cmd, host, root, &r, install); err != nil {
				return err
			}
			return a.printHookResult(r, f.asJSON, install)
		},
	}
	cmd.Flags().StringVar(&root, flag, "", ad.Help().Folder)
	f.add(cmd, install)
	if install {
		cmd.Long = hookInstallLong + "\n\n" + cmd.Long
	}
	return cmd
}

// editMCPServer registers (or removes) graft's MCP server in the config
// file of host under root, the same reversible step as its hooks
// (hookinstall/mcpserver.go), for a host that reads graft's MCP server
// from one beside its hooks file (adapter.MCPRegistrar: Codex's
// config.toml); nothing for the others.
func (a *app) editMCPServer(cmd *cobra.Command, host hookinstall.Host, root string, r *hookinstall.Result, install bool) error {
	cfgPath, ok, err := hookinstall.MCPConfigPath(host, root)
	if err != nil || !ok {
		return err
	}
	var m hookinstall.MCPResult
	if install {
		exe, flags, err := a.graftWords(cmd)
		if err != nil {
			return err
		}
		m, err = hookinstall.InstallMCP(host, cfgPath, exe, append(flags, "mcp"))
		if err != nil {
			return fmt.Errorf("graft's hooks are installed in %s, but registering its MCP server failed: %w", r.File, err)
		}
	} else if m, err = hookinstall.UninstallMCP(host, cfgPath); err != nil {
		return fmt.Errorf("graft's hooks are removed from %s, but removing its MCP server failed: %w", r.File, err)
	}
	r.MCPServer = &m
	return nil
}

// projectGivenInline reports whether the command line wrote --project=DIR
// (so a word after it is an argument, not the directory).
func projectGivenInline(cmd *cobra.Command) bool {
	for _, a := range os.Args[1:] {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--project=") {
			return true
		}
	}
	return false
}

// isDir makes a flag's directory that does not exist a usage error.
func isDir(flag, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageError{fmt.Errorf("%s %s: no such directory", flag, dir)}
	case err != nil:
		return usageError{fmt.Errorf("%s %s: %w", flag, dir, err)}
	case !fi.IsDir():
		return usageError{fmt.Errorf("%s %s: not a directory", flag, dir)}
	}
	return nil
}

// defaultHookCommand is the command install writes without --command: this
// executable's absolute path, --home when the home was chosen explicitly
// (--home or GRAFT_HOME), --config when the config file in effect was chosen
// so (--config, GRAFT_CONFIG, or config.toml in GRAFT_HOME) and exists, then
// "hook <host>". The host runs hooks with neither the user's flags nor
// necessarily their environment, and the hook must read the same home and
// config.toml (autoGraft, interceptCompaction) as this command does.
func (a *app) defaultHookCommand(cmd *cobra.Command, host hookinstall.Host) (string, error) {
	exe, flags, err := a.graftWords(cmd)
	if err != nil {
		return "", err
	}
	return hookinstall.Command(host, exe, flags...), nil
}

// graftWords are this executable's absolute path and the global flags a
// command run by a host needs to find this home and config (see
// defaultHookCommand).
func (a *app) graftWords(cmd *cobra.Command) (string, []string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("find the graft executable for the hook command (pass --command): %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", nil, fmt.Errorf("find the graft executable for the hook command (pass --command): %w", err)
	}
	var flags []string
	homeFlag := cmd.Flags().Lookup("home")
	if (homeFlag != nil && homeFlag.Changed) || os.Getenv("GRAFT_HOME") != "" {
		home, err := filepath.Abs(a.home)
		if err != nil {
			return "", nil, err
		}
		flags = append(flags, "--home", home)
	}
	if src := a.configSources(); src.Exists && (a.configFile != "" || os.Getenv("GRAFT_CONFIG") != "" || os.Getenv("GRAFT_HOME") != "") {
		file, err := filepath.Abs(src.File)
		if err != nil {
			return "", nil, err
		}
		flags = append(flags, "--config", file)
	}
	return exe, flags, nil
}

func (a *app) runHookEdit(cmd *cobra.Command, host hookinstall.Host, path string, f hookFlags, install bool) (hookinstall.Result, error) {
	command := f.command
	if cmd.Flags().Changed("command") && strings.TrimSpace(command) == "" {
		return hookinstall.Result{}, usageError{errors.New("--command is empty")}
	}
	if command == "" {
		var err error
		if command, err = a.defaultHookCommand(cmd, host); err != nil {
			return hookinstall.Result{}, err
		}
	}
	if !install {
		return hookinstall.Uninstall(host, path, command)
	}
	r, err := hookinstall.Install(host, path, command)
	if err != nil {
		return r, err
	}
	if !hookinstall.IsGraftCommand(host, command, "") {
		r.Notes = append(r.Notes, fmt.Sprintf("the command's program is not named graft or does not run \"hook %s\": a later install or uninstall recognises these entries only when given the same --command", host))
	}
	return r, nil
}

// noteOtherSettingsFiles notes graft's hooks in the host's other settings
// files: the host runs the hooks of all of them (Claude Code does), so
// graft would run twice per event.
func (a *app) noteOtherSettingsFiles(r *hookinstall.Result, ad adapter.Adapter, scope hookinstall.Scope, project, command string) {
	if project == "" {
		project = "."
	}
	host := ad.Name()
	for _, s := range []hookinstall.Scope{hookinstall.ScopeUser, hookinstall.ScopeProject, hookinstall.ScopeLocal} {
		if s == scope || !ad.Hooks().HasScope(s) {
			continue
		}
		path, err := hookinstall.SettingsPath(host, s, project)
		if err != nil || path == r.File {
			continue
		}
		if events, err := hookinstall.Find(host, path, command); err == nil && len(events) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s also holds graft's hooks (%s): %s runs both, so graft would run twice on those events; remove one set with graft hook uninstall %s", path, strings.Join(events, ", "), ad.Title(), host))
		}
	}
}

func (a *app) printHookResult(r hookinstall.Result, asJSON, install bool) error {
	if asJSON {
		return a.printJSON(r)
	}
	w := a.stdout
	if install {
		printHookInstall(w, r)
	} else {
		printHookUninstall(w, r)
	}
	if m := r.MCPServer; m != nil {
		switch {
		case install && m.Changed:
			fmt.Fprintf(w, "registered graft's MCP server in %s\n", m.File)
		case install && m.Present:
			fmt.Fprintf(w, "graft's MCP server is already registered in %s\n", m.File)
		case !install && m.Changed:
			fmt.Fprintf(w, "removed graft's MCP server from %s\n", m.File)
		}
		if m.Changed && m.Backup != "" {
			fmt.Fprintf(w, "  backup of the previous file: %s\n", m.Backup)
		}
		r.Notes = append(r.Notes, m.Notes...)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

func printHookInstall(w io.Writer, r hookinstall.Result) {
	if !r.Changed {
		fmt.Fprintf(w, "graft's %s hooks are already installed in %s; nothing changed\n", r.Host, r.File)
		fmt.Fprintf(w, "  command: %s\n", r.Command)
		return
	}
	fmt.Fprintf(w, "installed graft's %s hooks in %s\n", r.Host, r.File)
	printEvents(w, "added", r.Added)
	printEvents(w, "replaced graft's old entry", r.Updated)
	printEvents(w, "already installed", r.Present)
	fmt.Fprintf(w, "  command: %s\n", r.Command)
	printBackup(w, r)
}

func printHookUninstall(w io.Writer, r hookinstall.Result) {
	if !r.Changed {
		if _, err := os.Stat(r.File); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(w, "nothing to remove: %s does not exist\n", r.File)
		} else {
			fmt.Fprintf(w, "nothing to remove: %s has no graft hooks for %s\n", r.File, r.Host)
		}
		return
	}
	fmt.Fprintf(w, "removed graft's %s hooks from %s\n", r.Host, r.File)
	printEvents(w, "removed", r.Removed)
	printBackup(w, r)
}

func printEvents(w io.Writer, what string, events []string) {
	if len(events) > 0 {
		fmt.Fprintf(w, "  %s: %s\n", what, strings.Join(events, ", "))
	}
}

func printBackup(w io.Writer, r hookinstall.Result) {
	switch {
	case r.Backup != "":
		fmt.Fprintf(w, "  backup of the previous file: %s\n", r.Backup)
	case r.Created:
		fmt.Fprintf(w, "  new file (no backup needed)\n")
	}
}
