package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hookinstall"
)

func newFindCmd(a *app) *cobra.Command {
	var asJSON bool
	var limit int
	var before int64
	cmd := &cobra.Command{
		Use:   "find <session> <word>...",
		Short: "Find the events of any session that hold every word (retired ones included)",
		Long: `Lists the events of <session> that hold every word, newest first: what a
tape did not cite is still in its source's log, found by words instead of by
seq. Case does not matter, nor the order of the words; white space inside an
argument splits it into words. An event is searched with the person's or the
assistant's text, a tool call's input (a file written: its text; a command:
its command line), a tool's output and the todos.

Each match is one line: the seq, the event's type and source, the tool, and
the text around the first word. graft recall <session> <seq> prints one
whole. --limit keeps the newest (default 10, at most 100); --before SEQ
goes on below a seq, as the last line says when older matches remain.
The tape's Handoff block names the session to search: the one it continues.
In a graft target, the last line names the session the target continues,
whose log holds what the target's tape did not carry.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageError{fmt.Errorf("%s takes a session and at least one word, got %d argument(s); see %s --help", cmd.CommandPath(), len(args), cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service()
			if err != nil {
				return err
			}
			id := args[0]
			res, err := svc.Find(cmd.Context(), id, graft.FindQuery{Words: args[1:], Limit: limit, Before: before})
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(res)
			}
			for _, m := range res.Matches {
				what := m.Snippet
				if m.Tool != "" {
					what = m.Tool + ": " + what
				}
				fmt.Fprintf(a.stdout, "%6d  %-17s %-9s %s\n", m.Seq, m.Type, m.Source, what)
			}
			var quoted []string
			for _, w := range res.Words {
				quoted = append(quoted, hookinstall.ShellQuote(w))
			}
			words := strings.Join(quoted, " ")
			below := ""
			if before > 0 {
				below = fmt.Sprintf(" below seq %d", before)
			}
			switch {
			case res.Total == 0:
				fmt.Fprintf(a.stdout, "no event of %s%s holds every word of: %s\n", id, below, words)
			case res.Older > 0:
				page := ""
				if limit != graft.DefaultFindLimit {
					page = fmt.Sprintf(" --limit %d", limit)
				}
				fmt.Fprintf(a.stdout, "the newest %d of %d events of %s that hold every word%s; the older ones: graft find %s %s%s --before %d\n", len(res.Matches), res.Total, id, below, id, words, page, res.Older)
			case res.Total == 1:
				fmt.Fprintf(a.stdout, "1 event of %s%s holds every word; graft recall %s <seq> prints it whole.\n", id, below, id)
			default:
				fmt.Fprintf(a.stdout, "%d events of %s%s hold every word (newest first); graft recall %s <seq> prints one whole.\n", res.Total, id, below, id)
			}
			if res.Continues != "" {
				fmt.Fprintf(a.stdout, "%s continues %s, whose log holds what its tape did not carry: graft find %s %s\n", id, res.Continues, res.Continues, words)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	cmd.Flags().IntVar(&limit, "limit", graft.DefaultFindLimit, fmt.Sprintf("how many of the newest matches to print (1 to %d)", graft.MaxFindLimit))
	cmd.Flags().Int64Var(&before, "before", 0, "only events below this seq (the last line names it when older matches remain)")
	return cmd
}
