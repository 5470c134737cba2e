package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/hosts"
)

// hostArg reads the host argument as a usage error when it is not one.
func hostArg(s string) (hosts.Host, error) {
	h, err := hosts.ParseHost(s)
	if err != nil {
		return "", usageError{err}
	}
	return h, nil
}

// resumers are the hosts' resume commands without an id: "claude --resume
// / codex resume".
func resumers() string {
	var rs []string
	for _, ad := range hosts.Adapters() {
		rs = append(rs, strings.TrimSpace(ad.ResumeCommand("")))
	}
	return strings.Join(rs, " / ")
}

// exportPlaces is where each host's export goes and how it resumes.
func exportPlaces() string {
	var b strings.Builder
	for _, ad := range hosts.Adapters() {
		fmt.Fprintf(&b, "  %-12s %s\n  %-12s resume with: %s%s\n", ad.Name(), ad.Help().ExportPath, "", ad.ResumeCommand("<uuid>"), ad.Help().ResumeMore)
	}
	return b.String()
}

func newExportCmd(a *app) *cobra.Command {
	var (
		cwd    string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "export <" + hosts.Names("|", "|") + "> <session>",
		Short: "Write a graft target as a host session that " + resumers() + " loads",
		Long: `Writes the tape of a committed graft target as a new host session:

` + exportPlaces() + `
The tape becomes one closed turn: a user message with the handoff text and
every recap block in order, and the acknowledgement. The file is written
crash-safely (temporary file, fsync, link, directory fsync) and never replaces
an existing file. The host session is bound to the target ($GRAFT_HOME/hosts/),
so exporting the same target again gives the same id and bytes, and when the
host goes on in that session, "graft import" or the hooks append its new turns
to the target. "graft status" lists the bindings.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			host, err := hostArg(args[0])
			if err != nil {
				return err
			}
			svc, err := a.service()
			if err != nil {
				return err
			}
			res, err := svc.Export(args[1], host, cwd)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(res)
			}
			printExport(a.stdout, res)
			return nil
		},
	}
	cmd.Flags().StringVar(&cwd, "cwd", "", "working directory the host session belongs to (default: the current one)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print host, hostSessionId, path and resumeCommand as JSON")
	return cmd
}

func printExport(w io.Writer, res *hosts.ExportResult) {
	verb := "Exported"
	if !res.Created {
		verb = "Already exported"
	}
	fmt.Fprintf(w, "%s %s as %s session %s\n  file  %s\n  cwd   %s\nResume it there:  %s\n", verb, res.Session, res.Host, res.HostSessionID, res.Path, res.Cwd, res.ResumeCommand)
}
