package main

import (
	"bytes"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/graft"
)

// exitCodesTable renders every exit code and stable error code.
func exitCodesTable() string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXIT\tCODE\tMEANING")
	fmt.Fprintln(tw, "0\t-\tsuccess")
	fmt.Fprintln(tw, "1\terror\tany other error (the message says what failed and where)")
	fmt.Fprintln(tw, "2\tusage\twrong arguments or flags")
	for _, c := range graft.ExitCodes() {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", c.Exit, c.Code, c.Doc)
	}
	if err := tw.Flush(); err != nil { // a bytes.Buffer never fails; say so if it did
		return "exit codes unavailable: " + err.Error()
	}
	return b.String()
}

// newExitCodesTopic is "graft help exit-codes": a help topic (no Run), so
// cobra prints its Long text.
func newExitCodesTopic(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "The exit codes and stable error codes of every command",
		Long: "Every typed error has a stable code (in --json output and in MCP tool errors)\n" +
			"and an exit code. Codes are never renumbered. A command given --json that fails\n" +
			"prints {\"error\": {\"code\": <code>, \"message\": <message>}} on stdout, unless it\n" +
			"printed its own JSON first (audit's report); the message is on stderr too.\n\n" + exitCodesTable(),
	}
}
