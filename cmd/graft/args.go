package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exactArgs is cobra.ExactArgs reported as a usage error (exit 2).
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("%s takes %d argument(s), got %d; see %s --help", cmd.CommandPath(), n, len(args), cmd.CommandPath())}
		}
		return nil
	}
}

// flagError is every flag parse error (cobra's FlagErrorFunc): a usage
// error that names the nearest flag the command has, when one is near, and
// the command's usage line.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if s := nearest(name, flagNames(cmd)); s != "" {
			msg += fmt.Sprintf(" (did you mean --%s?)", s)
		}
	}
	return usageError{fmt.Errorf("%s\nusage: %s (see %s --help)", msg, cmd.UseLine(), cmd.CommandPath())}
}

// commandError makes cobra's unknown command error a usage error on one
// line, with the nearest command; other errors are returned as they are.
func commandError(cmd *cobra.Command, err error) error {
	var ue usageError
	if err == nil || errors.As(err, &ue) || cmd == nil {
		return err
	}
	m := unknownCommandRE.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	msg := fmt.Sprintf("unknown command %q for %q", m[1], m[2])
	if s := cmd.SuggestionsFor(m[1]); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
	}
	return usageError{fmt.Errorf("%s\nusage: %s (see %s --help)", msg, cmd.UseLine(), cmd.CommandPath())}
}

var unknownCommandRE = regexp.MustCompile(`^unknown command "(.*)" for "(.*)"`)

// flagNames are the long flags cmd takes, its own and inherited.
func flagNames(cmd *cobra.Command) []string {
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	return names
}

// nearest is the candidate closest to s: within two edits, or one that
// starts with s (or s with it); "" when none is.
func nearest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		d := editDistance(s, c)
		if d > 2 && len(s) >= 3 && (strings.HasPrefix(c, s) || strings.HasPrefix(s, c)) {
			d = 2
		}
		if d < bestD || d == bestD && best != "" && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, a transposition of
// neighbours counting once ("statsu" is one edit from "status").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// argsWantJSON reports whether the command line asks for --json (before a
// "--"): a flag or command that did not parse has no parsed --json to ask.
func argsWantJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "--json=true":
			return true
		}
	}
	return false
}
