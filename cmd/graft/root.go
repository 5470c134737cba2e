package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graft-project/graft/config"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/internal/gctune"
	"github.com/graft-project/graft/version"
	"github.com/graft-project/graft/vfs"
)

// app is what every command shares: the resolved home and the outputs.
type app struct {
	// tuneGC: the process is graft's own (main1), whose collector a
	// short-lived command tunes (internal/gctune); tests that build an app
	// leave theirs alone.
	tuneGC bool
	home   string
	store  string // --store, else $GRAFT_STORE, else config key store: "" is the file store
	fs     vfs.FS
	stdout io.Writer
	stderr io.Writer
	stdin  io.Reader

	// configFile is --config; cfg is loaded once per invocation (config.go).
	configFile string
	rootFlags  *pflag.FlagSet
	cfg        *loadedConfig

	// args is the command line (without the program): a flag or command
	// that did not parse is JSON under --json all the same.
	args []string

	// svcs are the services this invocation opened (service.go): their
	// degraded reads are reported when it ends.
	svcs []*graft.Service
}

// defaultHome is what --help shows as --home's default: GRAFT_HOME, else
// the XDG default. The effective home also weighs config.toml's dataDir
// (app.config).
func defaultHome() string {
	if h := os.Getenv("GRAFT_HOME"); h != "" {
		return h
	}
	return config.DefaultDataDir()
}

// printJSON writes v as indented JSON to stdout.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "graft",
		Short: "Crash-safe session grafts for long agent sessions",
		Long: `graft slices a long AI-agent session into a fresh one: a deterministic tape
(breakpoint, constraints with their origin, goal, todos, files, pending state,
sub-agent reports, recall index) built from the event log, reviewed with
"prepare" and written with "commit" as a journaled, crash-safe transaction.

Data lives in --home (default $GRAFT_HOME, else dataDir in config.toml, else
$XDG_DATA_HOME/graft, else ~/.local/share/graft). config.toml sets the
defaults of the data directory, the tape options and the hooks; "graft config"
prints each effective value and where it came from.

Exit codes:
  0   success
  1   error (see the message)
  2   usage error
  10-67 name a typed error; "graft help exit-codes" lists them.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Every command but help and completion reads config.toml first: a
		// bad file fails them all with exit code 2, naming file, line, key.
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if a.tuneGC && cmd.Name() != "mcp" {
				gctune.Start() // a short-lived command: not the MCP server
			}
			if skipsConfig(cmd) {
				return nil
			}
			_, err := a.config()
			return err
		},
	}
	root.PersistentFlags().StringVar(&a.home, "home", defaultHome(), "graft data directory (env GRAFT_HOME, config key dataDir)")
	root.PersistentFlags().StringVar(&a.store, "store", "", "where transactions, locks and the catalog live: \"file\" (the home, the default) or etcd://host:port[,host:port…]/prefix[?lease=10s&timeout=5s] to share them with workers on other machines (env GRAFT_STORE, config key store)")
	root.PersistentFlags().StringVar(&a.configFile, "config", "", "config file (default $GRAFT_CONFIG, else config.toml in $GRAFT_HOME, else in $XDG_CONFIG_HOME/graft or ~/.config/graft)")
	a.rootFlags = root.PersistentFlags()
	// --version prints what "graft version" does, before any config is read.
	root.Version = version.Get().String()
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(subcommands(a)...)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetIn(a.stdin)
	return root
}

// subcommands is every command under graft, each built by its cmd_*.go
// file: a command not listed here does not exist. Each parses its flags,
// calls the graft service (or the package that does its work: crashtest,
// hookinstall, hookrun, mcpserver, config) and prints the result. cobra
// sorts them for help.
func subcommands(a *app) []*cobra.Command {
	return []*cobra.Command{
		newAppendCmd(a),      // cmd_append.go
		newShowCmd(a),        // cmd_show.go
		newStatusCmd(a),      // cmd_status.go
		newGenCmd(a),         // cmd_gen.go
		newHandoffCmd(a),     // cmd_handoff.go
		newExportCmd(a),      // cmd_export.go
		newImportCmd(a),      // cmd_import.go
		newPrepareCmd(a),     // cmd_prepare.go
		newCommitCmd(a),      // cmd_commit.go
		newRecoverCmd(a),     // cmd_recover.go
		newRevertCmd(a),      // cmd_revert.go
		newRecallCmd(a),      // cmd_recall.go
		newFindCmd(a),        // cmd_find.go
		newAuditCmd(a),       // cmd_audit.go
		newMCPCmd(a),         // cmd_mcp.go
		newHookCmd(a),        // cmd_hook.go, cmd_hookrun.go
		newPluginCmd(a),      // cmd_plugin.go
		newCrashtestCmd(a),   // cmd_crashtest.go
		newConfigCmd(a),      // cmd_config.go
		newVersionCmd(a),     // cmd_version.go
		newDoctorCmd(a),      // cmd_doctor.go
		newExitCodesTopic(a), // help_exitcodes.go: "graft help exit-codes"
		newDocFactsCmd(a),    // cmd_docfacts.go: hidden, for internal/docscheck
	}
}

// usageError marks errors that are the caller's invocation, exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func main1() int {
	stdout := &writeCounter{w: os.Stdout}
	a := &app{fs: vfs.Default, stdout: stdout, stderr: os.Stderr, stdin: os.Stdin, tuneGC: true}
	root := newRoot(a)
	root.SetFlagErrorFunc(flagError)
	a.args = os.Args[1:]
	cmd, err := root.ExecuteC()
	err = commandError(cmd, err)
	a.warnDegraded()
	a.closeServices()
	if err == nil {
		return 0
	}
	return a.reportError(cmd, err, stdout.n > 0)
}

func exitCode(err error) int {
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	_, code := graft.CodeOf(err) // 1 for an untyped error
	return code
}
