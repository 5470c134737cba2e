package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/session"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/claudecode"
	"github.com/graft-project/graft/importer/codex"
)

func init() { commands = append(commands, newImportCmd) }

// progressMinBytes: smaller transcripts import in well under a second, so
// they print no progress.
const progressMinBytes = 4 << 20

func newImportCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import <claude-code|codex> <transcript.jsonl>",
		Short: "Import a Claude Code transcript or a Codex rollout into a session",
		Long: `Imports a host's transcript into a native session and remembers how far it
got ($GRAFT_HOME/imports/<id>.json), so running the same import again appends
only the lines the host wrote since. A transcript that was shortened or
rewritten in the part already imported is refused, nothing appended.

Malformed lines are reported with their line numbers and skipped; a last
line still being written is left for the next run. The summary gives counts
per kind (human instructions, assistant messages, tool calls, results, todo
lists, sub-agent reports, system events, skipped, malformed).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("unknown transcript format %q: want claude-code or codex", args[0])}
			}
			return usageError{fmt.Errorf("%s needs a format: %s claude-code <transcript.jsonl> or %s codex <rollout.jsonl>", cmd.CommandPath(), cmd.CommandPath(), cmd.CommandPath())}
		},
		RunE: func(cmd *cobra.Command, args []string) error { return nil },
	}
	cmd.AddCommand(newImportClaudeCodeCmd(a), newImportCodexCmd(a))
	return cmd
}

// importFlags are the flags both formats take.
type importFlags struct {
	id           string
	keepThinking bool
	asJSON       bool
}

func (f *importFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.id, "id", "", "session id (default: the file name, sanitised)")
	cmd.Flags().BoolVar(&f.keepThinking, "keep-thinking", false, `keep the model's thinking as assistant messages (source.name "thinking")`)
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print the summary as JSON")
}

func newImportClaudeCodeCmd(a *app) *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "claude-code <transcript.jsonl>",
		Short: "Import a Claude Code transcript (~/.claude/projects/<dir>/<uuid>.jsonl)",
		Long: `Imports a Claude Code transcript, and each sub-agent transcript under
<uuid>/subagents/ beside it as a session of its own (agent-<name>.jsonl into
<id>.agent-<name>, another <name>.jsonl into <id>.subagent-<name>), linked
from the parent's sub-agent report.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if done, err := a.followBound(hosts.ClaudeCode, args[0], &f); done {
				return err
			}
			st, err := a.openStore()
			if err != nil {
				return err
			}
			sum, err := claudecode.Import(claudecode.Options{
				Store: st, Home: a.home, Path: args[0], ID: f.id, KeepThinking: f.keepThinking,
				Progress: progressPrinter(a.stderr),
			})
			return a.reportImport(sum, err, f.asJSON)
		},
	}
	f.add(cmd)
	return cmd
}

func newImportCodexCmd(a *app) *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "codex <rollout.jsonl>",
		Short: "Import a Codex rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if done, err := a.followBound(hosts.Codex, args[0], &f); done {
				return err
			}
			st, err := a.openStore()
			if err != nil {
				return err
			}
			progress := progressPrinter(a.stderr)
			var onProgress func(read, total int64)
			if progress != nil {
				onProgress = func(read, total int64) { progress(args[0], read, total) }
			}
			sum, err := codex.Import(codex.Options{
				Store: st, Home: a.home, Path: args[0], ID: f.id, KeepThinking: f.keepThinking,
				Progress: onProgress,
			})
			return a.reportImport(sum, err, f.asJSON)
		},
	}
	f.add(cmd)
	return cmd
}

// followBound imports a transcript whose host session is bound to a graft
// session (graft exported it, or imported it before) into that session, as
// the hooks do: a resumed export goes on in its graft target. Only without
// --id and --keep-thinking, and only when the file's name holds the host's
// session uuid; done is false otherwise (a plain import).
func (a *app) followBound(host hosts.Host, path string, f *importFlags) (done bool, err error) {
	if f.id != "" || f.keepThinking {
		return false, nil
	}
	hid, err := hosts.HostSessionIDFromPath(host, path)
	if err != nil {
		return false, nil
	}
	svc, err := a.service()
	if err != nil {
		return true, err
	}
	if _, err := hosts.Load(svc.FS, a.home, host, hid); errors.Is(err, hosts.ErrNoBinding) {
		return false, nil
	} else if err != nil {
		return true, err
	}
	var progress func(read, total int64)
	if p := progressPrinter(a.stderr); p != nil {
		progress = func(read, total int64) { p(path, read, total) }
	}
	fr, err := svc.Follow(host, path, hid, "", progress)
	if err != nil {
		return true, a.reportImport(nil, err, f.asJSON)
	}
	if fr.HandedOffTo != "" {
		what := "no human instruction was added since (the end of the handed-off turn is not merged)"
		if fr.Stray != nil {
			what = fmt.Sprintf("%d new line(s) with %d human instruction(s) of this transcript are not merged", fr.Stray.Lines, fr.Stray.Humans)
		}
		return true, fmt.Errorf("%w: %s session %s continues graft session %s, which was handed off: the work goes on in %s; %s",
			session.ErrRetired, host, hid, fr.Session, fr.HandedOffTo, what)
	}
	fmt.Fprintf(a.stderr, "%s session %s continues graft session %s: following it there\n", host, hid, fr.Session)
	return true, a.reportImport(fr.Import, nil, f.asJSON)
}

// reportImport prints the summary; after a failure what was done before it
// goes to stderr and the error is returned.
func (a *app) reportImport(sum *importer.Summary, err error, asJSON bool) error {
	if err != nil {
		if sum != nil {
			fmt.Fprintf(a.stderr, "before the error:\n%s", sum.Text())
		}
		return err
	}
	if asJSON {
		return a.printJSON(sum)
	}
	_, werr := io.WriteString(a.stdout, sum.Text())
	return werr
}

// progressPrinter returns a progress callback that rewrites one line on w
// for transcripts of 4 MiB or more, or nil when w is not a terminal.
func progressPrinter(w io.Writer) func(path string, read, total int64) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return func(path string, read, total int64) {
		if total < progressMinBytes || total <= 0 {
			return
		}
		fmt.Fprintf(w, "\rimporting %s: %3d%% (%.1f of %.1f MiB)", filepath.Base(path), read*100/total, float64(read)/(1<<20), float64(total)/(1<<20))
		if read >= total {
			fmt.Fprintln(w)
		}
	}
}
