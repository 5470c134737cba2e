package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hookinstall"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/importer"
)

// progressMinBytes: smaller transcripts import in well under a second, so
// they print no progress.
const progressMinBytes = 4 << 20

func newImportCmd(a *app) *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import [" + hosts.Names("|", "|") + "] <transcript.jsonl>",
		Short: "Import " + importWhat() + " into a session",
		Long: `Imports a host's transcript into a native session and remembers how far it
got ($GRAFT_HOME/imports/<id>.json), so running the same import again appends
only the lines the host wrote since. A transcript that was shortened or
rewritten in the part already imported is refused, nothing appended. The
first import of a file none of whose first 64 lines is a record of the host
named is refused before anything is written (exit 64), naming the host the
file reads as and the command that imports it.

Without the host's name (graft import <transcript.jsonl>), the host is the
one whose records the file's first 64 lines are, said on stderr with the
command that names it; a file that is no one host's, or has no complete line
yet, is refused (exit 67) and nothing is written.

Malformed lines are reported with their line numbers and skipped; a last
line still being written is left for the next run. The summary gives counts
per kind (human instructions, assistant messages, tool calls, results, todo
lists, sub-agent reports, system events, skipped, malformed).`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 1:
				// A word that names neither a file nor a host is a usage
				// error; a file there that cannot be read is the import's
				// to report (no_transcript).
				if _, err := os.Stat(args[0]); errors.Is(err, fs.ErrNotExist) {
					return usageError{fmt.Errorf("%s: no file %q and no host of that name: want %s, or the path of a transcript", cmd.CommandPath(), args[0], hosts.Names(", ", " or "))}
				}
				return nil
			case len(args) > 1:
				return usageError{fmt.Errorf("unknown transcript format %q: want %s", args[0], hosts.Names(", ", " or "))}
			}
			var forms []string
			for _, ad := range hosts.Adapters() {
				forms = append(forms, fmt.Sprintf("%s %s <%s>", cmd.CommandPath(), ad.Name(), ad.Help().Transcript))
			}
			return usageError{fmt.Errorf("%s needs a transcript: %s (or the file alone, its host told by its lines)", cmd.CommandPath(), joinOr(forms))}
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			host, file, err := detectHost(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "%s reads as %s: importing it as %s (graft import %s %s)\n", args[0], file, host, host, hookinstall.ShellQuote(args[0]))
			ctx, stop := interruptible(cmd)
			defer stop()
			return a.runImport(ctx, host, args[0], &f)
		},
	}
	f.add(cmd)
	for _, ad := range hosts.Adapters() {
		cmd.AddCommand(newImportHostCmd(a, ad))
	}
	return cmd
}

// detectHost is the host of the transcript at path, told by its first
// lines (hosts.Detect), and what its files are called ("a Codex
// rollout"), for a command that was not given the host's name.
func detectHost(path string) (hosts.Host, string, error) {
	host, err := hosts.Detect(path)
	if err != nil {
		return "", "", err
	}
	ad, err := hosts.Of(host)
	if err != nil {
		return "", "", err
	}
	file := ad.Title() + " transcript"
	if rec, ok := ad.Mapper().(importer.Recognizer); ok {
		_, file = rec.Describe()
	}
	return host, file, nil
}

// importWhat names what each host's import takes: "a Claude Code
// transcript or a Codex rollout".
func importWhat() string {
	var what []string
	for _, ad := range hosts.Adapters() {
		kind := strings.TrimSuffix(ad.Help().Transcript, ".jsonl")
		what = append(what, "a "+ad.Title()+" "+kind)
	}
	return joinOr(what)
}

// joinOr joins words as "a, b or c".
func joinOr(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
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

// newImportHostCmd is "graft import <host>", as the host's adapter
// describes it.
func newImportHostCmd(a *app, ad adapter.Adapter) *cobra.Command {
	var f importFlags
	help := ad.Help()
	host := ad.Name()
	cmd := &cobra.Command{
		Use:   fmt.Sprintf("%s <%s>", host, help.Transcript),
		Short: help.Import,
		Long:  help.ImportLong,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := interruptible(cmd)
			defer stop()
			return a.runImport(ctx, host, args[0], &f)
		},
	}
	f.add(cmd)
	return cmd
}

// runImport imports path (graft.Service.Import: a transcript bound to a
// graft session is followed into it) and prints the summary.
func (a *app) runImport(ctx context.Context, host hosts.Host, path string, f *importFlags) error {
	svc, err := a.service()
	if err != nil {
		return err
	}
	res, err := svc.Import(ctx, host, path, graft.ImportOptions{ID: f.id, KeepThinking: f.keepThinking, Progress: progressPrinter(a.stderr)})
	if res == nil {
		return err
	}
	if fr := res.Followed; fr != nil {
		fmt.Fprintf(a.stderr, "%s session %s continues graft session %s: following it there\n", host, fr.HostSessionID, fr.Session)
	}
	return a.reportImport(res.Summary, err, f.asJSON)
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
