package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/config"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/tape"
)

func newHandoffCmd(a *app) *cobra.Command {
	var (
		o        graft.HandoffOptions
		to       string
		yes      bool
		asJSON   bool
		tapeOpts func(config.Config) tape.Options // set with the flags below
	)
	cmd := &cobra.Command{
		Use:   "handoff [" + hosts.Names("|", "|") + "] (--transcript FILE | --session-id UUID) [--to HOST]",
		Short: "Import, prepare, commit and export in one step: a host session in, a resumable one out",
		Long: `Hands a ` + hosts.Titles(", ", " or ") + ` session off to a fresh one, instead of a compaction:

  1. import   the transcript's new lines (incrementally; a transcript graft
              exported continues its graft session, so lineage goes on)
  2. prepare  build the tape and print the review
  3. commit   after --yes, or "y" at the prompt on a terminal
  4. export   write the target as a new host session, in the directory the
              session worked in (its transcript names it) unless --cwd says
              otherwise; the current one when that directory is gone
  5. print    the command that resumes it (` + resumeCommands("<id>") + `)

--to HOST continues the work in another host (a person whose quota ran out
in one goes on in another): the new session is written for HOST, with the
lineage and the constraints' origins kept, and HOST's resume command printed.
A note names each instruction file of the project the first host read and
HOST does not (Codex's AGENTS.md for Claude Code, Claude Code's CLAUDE.md
for Codex…): its rules do not reach the new session by themselves, so the
tape's Handoff block tells the new session's agent to read it first. So is
each of your own instruction files in the first host's folder
(~/.claude/CLAUDE.md…), which no other host reads.

Without the host's name, --transcript FILE is handed off as the host whose
records its first 64 lines are (said on stderr; exit 67 when no one host's).
--session-id finds the transcript as the host does:
` + findByIDs() + `
Without --yes and without a terminal, the review is printed and nothing is
committed (exit 2).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var host hosts.Host
			var err error
			switch {
			case len(args) == 1:
				if host, err = hostArg(args[0]); err != nil {
					return err
				}
			case o.HostSessionID != "":
				return usageError{fmt.Errorf("handoff --session-id needs the host named: graft handoff %s --session-id %s", hosts.Names("|", "|"), o.HostSessionID)}
			case o.Transcript == "":
				return usageError{fmt.Errorf("handoff needs the host and --transcript FILE or --session-id UUID: graft handoff %s --session-id UUID, or graft handoff --transcript FILE (its host told by its lines)", hosts.Names("|", "|"))}
			default:
				var file string
				if host, file, err = detectHost(o.Transcript); err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "%s reads as %s: handing it off as %s\n", o.Transcript, file, host)
			}
			o.Host, o.To = host, host
			if to != "" {
				if o.To, err = hostArg(to); err != nil {
					return err
				}
			}
			cfg, err := a.config()
			if err != nil {
				return err
			}
			o.Prepare.Tape = tapeOpts(cfg)
			if (o.Transcript == "") == (o.HostSessionID == "") {
				return usageError{errors.New("handoff needs exactly one of --transcript FILE and --session-id UUID")}
			}
			out := a.stdout
			if asJSON {
				out = a.stderr // the review for a person; stdout is the JSON
			}
			if !yes {
				tty, err := terminalOrNil(a.stderr)
				if err != nil {
					return err
				}
				in, ok := a.stdin.(*os.File)
				if tty == nil || !ok || !isTerminal(in) {
					o.Confirm = func(rv *graft.Review, notes []string) (bool, error) {
						printReview(out, rv)
						printNotes(out, notes)
						return false, usageError{fmt.Errorf("not committed: confirm with --yes (no terminal to ask on); or commit the review yourself: graft commit %s --hash %s, then graft export %s <target>", rv.PreparedID, rv.TapeHash, o.To)}
					}
				} else {
					o.Confirm = func(rv *graft.Review, notes []string) (bool, error) {
						printReview(out, rv)
						printNotes(out, notes)
						fmt.Fprintf(a.stderr, "\nCommit this graft and export it to %s? [y/N] ", o.To)
						line, err := bufio.NewReader(a.stdin).ReadString('\n')
						if err != nil && line == "" {
							return false, fmt.Errorf("reading the answer: %w", err)
						}
						return strings.EqualFold(strings.TrimSpace(line), "y") || strings.EqualFold(strings.TrimSpace(line), "yes"), nil
					}
				}
			} else if !asJSON {
				o.Confirm = func(rv *graft.Review, _ []string) (bool, error) {
					printReview(out, rv)
					fmt.Fprintln(out)
					return true, nil
				}
			}
			o.Progress = progressPrinter(a.stderr)
			svc, err := a.service()
			if err != nil {
				return err
			}
			ctx, stop := interruptible(cmd)
			defer stop()
			res, err := svc.Handoff(ctx, o)
			var self *graft.TargetIsSourceError
			if errors.As(err, &self) {
				return usageError{errors.New(self.Usage("--target"))} // as graft commit says it
			}
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(res)
			}
			if !res.Committed {
				fmt.Fprintln(a.stdout, "Not committed.")
				return nil
			}
			if res.Finished != nil {
				fmt.Fprintf(a.stdout, "Handed off earlier: %s → %s (generation %d, txn %s), stopped before its export.\n", res.Commit.Source, res.Commit.TargetID, res.Commit.Generation, res.Commit.TxnID)
			} else {
				fmt.Fprintf(a.stdout, "Committed %s → %s (generation %d, tape %d chars).\n", res.Commit.Source, res.Commit.TargetID, res.Commit.Generation, res.Commit.TapeChars)
			}
			printNotes(a.stdout, append(append([]string(nil), res.Commit.Notes...), res.Notes...))
			printExport(a.stdout, res.Export)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Transcript, "transcript", "", "the host's transcript ("+transcriptNames()+")")
	f.StringVar(&o.HostSessionID, "session-id", "", "the host session id: find its transcript as the host does")
	f.StringVar(&o.Cwd, "cwd", "", "working directory of the new host session (default: the one the session worked in, else the current one)")
	f.StringVar(&o.Target, "target", "", "id of the new graft session (default <source>.g<N>)")
	f.StringVar(&to, "to", "", "the host the work goes on in ("+hosts.Names(", ", " or ")+"; default: the same host)")
	f.BoolVar(&yes, "yes", false, "commit without asking")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON: host, hostSessionId, path, resumeCommand, and each step")
	tapeOpts = tapeFlags(f)
	return cmd
}

// isTerminal reports whether f is a character device.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// resumeCommands are the hosts' resume commands of id, joined by ", ".
func resumeCommands(id string) string {
	var cs []string
	for _, ad := range hosts.Adapters() {
		cs = append(cs, ad.ResumeCommand(id))
	}
	return strings.Join(cs, ", ")
}

// transcriptNames names each host's transcript files: "Claude Code
// <uuid>.jsonl, Codex rollout-….jsonl".
func transcriptNames() string {
	var ns []string
	for _, ad := range hosts.Adapters() {
		ns = append(ns, ad.Title()+" "+ad.TranscriptName())
	}
	return strings.Join(ns, ", ")
}

// printNotes prints each note on a line of its own.
func printNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// findByIDs says where --session-id looks, a host a line: "  Claude
// Code's project folder of --cwd (else any project folder)", …
func findByIDs() string {
	var ways []string
	for _, ad := range hosts.Adapters() {
		ways = append(ways, "  "+ad.Help().FindByID)
	}
	return strings.Join(ways, "\n")
}
