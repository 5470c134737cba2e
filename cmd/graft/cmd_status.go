package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
)

func newStatusCmd(a *app) *cobra.Command {
	var (
		asJSON  bool
		lineage string
	)
	cmd := &cobra.Command{
		Use:   "status [--lineage <session>]",
		Short: "List sessions, journal records in flight, leftovers and the last recovery scan",
		Long: `Lists every session (state, events, generation, parent, target, and the head:
the session to continue in), then the journal records still in flight, the
leftovers of crashed grafts and the report of the last recovery scan.

--lineage <session> draws the session's lineage as a tree instead: the root is
generation 1, each graft target sits under its source, re-slices are siblings.
The state of each session is judged from the logs (the catalog only helps to
find leftovers):
  live        the session to continue in
  retired     grafted into a live target
  reverted    a target whose graft was undone (graft revert)
  leftover    a target whose graft never reached its commit point
  abandoned   marked abandoned although its parent's log commits it
  unreadable  its log is missing or cannot be read`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service()
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("lineage") {
				l, err := svc.Lineage(lineage)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(l)
				}
				return printLineage(a.stdout, l)
			}
			st, err := svc.Status()
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(st)
			}
			return printStatus(a.stdout, st)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.Flags().StringVar(&lineage, "lineage", "", "draw the lineage tree of this session")
	return cmd
}

func printStatus(w io.Writer, st *graft.Status) error {
	if len(st.Sessions) == 0 {
		fmt.Fprintf(w, "no sessions in %s\n", st.Home)
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SESSION\tSTATE\tEVENTS\tGEN\tPARENT\tTARGET\tHEAD")
		for _, r := range st.Sessions {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\n", r.ID, r.State, r.Events, r.Generation, dash(r.Parent), dash(r.Target), dash(r.Head))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, r := range st.Sessions {
			if r.Error != "" {
				fmt.Fprintf(w, "%s: %s\n", r.ID, r.Error)
			}
			if r.HeadProblem != "" {
				fmt.Fprintf(w, "warning: %s: %s\n", r.ID, r.HeadProblem)
			}
		}
	}
	if len(st.Pending) > 0 {
		fmt.Fprintf(w, "journal records in flight (%d):\n", len(st.Pending))
		for _, r := range st.Pending {
			fmt.Fprintf(w, "  %s %s %s → %s, %s since %s\n", r.Txn, r.Kind, r.Source, r.Target, r.State, dash(r.Updated))
		}
	}
	for _, c := range st.Corrupt {
		fmt.Fprintf(w, "corrupt journal record: %s\n", c)
	}
	if len(st.Leftovers) > 0 {
		fmt.Fprintf(w, "leftovers of crashed grafts (%d):\n", len(st.Leftovers))
		for _, l := range st.Leftovers {
			fmt.Fprintf(w, "  %s (from %s, txn %s, reached %s): %s\n", l.Target, l.Source, l.Txn, l.State, l.Reason)
		}
	}
	if len(st.OwedExports) > 0 {
		fmt.Fprintf(w, "owed exports (%d): a handoff committed, its host session not written yet; the next graft command writes it:\n", len(st.OwedExports))
		for _, o := range st.OwedExports {
			fmt.Fprintf(w, "  %s (from %s, txn %s) owed to %s in %s; by hand: graft export %s %s --cwd %s\n", o.Target, o.Source, o.Txn, o.Host, o.Cwd, o.Host, o.Target, o.Cwd)
		}
	}
	if st.CatalogError != "" {
		fmt.Fprintf(w, "catalog not read: %s (sessions above come from the logs)\n", st.CatalogError)
	}
	if len(st.HostSessions) > 0 {
		fmt.Fprintf(w, "host sessions (%d):\n", len(st.HostSessions))
		for _, b := range st.HostSessions {
			verb := "continues"
			if b.Role == hosts.RoleImported {
				verb = "is imported into"
			}
			fmt.Fprintf(w, "  %s %s %s %s (%s)\n", b.Host, b.HostSessionID, verb, b.Session, b.Path)
			if b.Stray != nil {
				fmt.Fprintf(w, "    used after its handoff: %d line(s) not merged; the work goes on in %s\n", b.Stray.Lines, b.Stray.Target)
			}
		}
	}
	for _, name := range st.Strays {
		fmt.Fprintf(w, "not a session: sessions/%s (its name is no valid session id, so no command reads it; rename it to ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\\.jsonl$)\n", name)
	}
	if st.Store != "file" {
		fmt.Fprintf(w, "store: %s (journal, locks, catalog and host bindings on the cluster)\n", st.Store)
	}
	return printLastRecovery(w, st.LastRecovery)
}

func printLastRecovery(w io.Writer, lr *graft.LastRecovery) error {
	if lr == nil {
		_, err := fmt.Fprintln(w, "last recovery scan: none recorded (a scan that finds nothing is not recorded)")
		return err
	}
	if lr.Report == nil {
		return fmt.Errorf("the last recovery report in the catalog (at %s) has no report", lr.At.Format(time.RFC3339))
	}
	r := lr.Report
	fmt.Fprintf(w, "last recovery scan: %s: scanned %d, rolled forward %d, rolled back %d, busy %d, corrupt %d\n",
		lr.At.Format(time.RFC3339), r.Scanned, r.RolledForward, r.RolledBack, r.Busy, r.Corrupt)
	for _, l := range r.Leftovers {
		fmt.Fprintf(w, "  leftover: %s\n", l)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "  error: %s\n", e)
	}
	if lr.Error != "" {
		fmt.Fprintf(w, "  the scan failed: %s\n", lr.Error)
	}
	return nil
}

func printLineage(w io.Writer, l *graft.Lineage) error {
	fmt.Fprintf(w, "lineage of %s (root %s; continue in %s)\n", l.Session, l.Root, l.Head)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	// prefix is what the ancestors' branches draw; connector joins the node
	// to its parent ("" for the root).
	var draw func(n *graft.LineageNode, prefix, connector string)
	draw = func(n *graft.LineageNode, prefix, connector string) {
		detail := ""
		if n.Parent != "" && n.Boundary > 0 {
			detail = fmt.Sprintf("from %s seq %d", n.Parent, n.Boundary)
		}
		if n.Detail != "" {
			detail = strings.TrimPrefix(detail+"; "+n.Detail, "; ")
		}
		var marks []string
		if n.Session == l.Head {
			marks = append(marks, "← head")
		}
		if n.Session == l.Session && l.Session != l.Head {
			marks = append(marks, "← asked")
		}
		line := fmt.Sprintf("%s%s%s\tgen %d\t%s\t%d events", prefix, connector, n.Session, n.Generation, n.State, n.Events)
		if notes := strings.TrimSpace(strings.Join(append([]string{detail}, marks...), "  ")); notes != "" {
			line += "\t" + notes
		}
		fmt.Fprintln(tw, line)
		switch connector {
		case "├── ":
			prefix += "│   "
		case "└── ":
			prefix += "    "
		}
		for k, c := range n.Children {
			if k == len(n.Children)-1 {
				draw(c, prefix, "└── ")
			} else {
				draw(c, prefix, "├── ")
			}
		}
	}
	draw(l.Tree, "", "")
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range l.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
