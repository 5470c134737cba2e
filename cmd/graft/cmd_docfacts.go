package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// docFacts is what "graft __doc-facts" prints: the command tree as cobra
// holds it, for internal/docscheck, the test that checks README.md and
// docs/DESIGN.md against the code. cmd/graft is package main, so the test
// cannot import the tree; it runs the built binary instead.
type docFacts struct {
	// Commands is every command of the tree, the root first, then depth
	// first in cobra's (sorted) order; hidden ones and cobra's own help
	// and completion commands included.
	Commands []docCommand `json:"commands"`
}

// docCommand is one command of the tree.
type docCommand struct {
	Path string `json:"path"` // "graft hook install claude-code"
	Use  string `json:"use"`
	// Hidden: cobra's Hidden (never listed by help).
	Hidden bool `json:"hidden"`
	// Available: cobra's IsAvailableCommand: not hidden, not deprecated,
	// not the help command, and runnable or with available subcommands.
	Available bool `json:"available"`
	// HelpTopic: no Run and no subcommands ("graft help exit-codes").
	HelpTopic bool `json:"helpTopic"`
	// Subcommands names the children (hidden ones included).
	Subcommands []string `json:"subcommands"`
	// Flags are the flags the command takes: its own and the ones it
	// inherits (--home, --config), --help included.
	Flags []docFlag `json:"flags"`
}

// docFlag is one flag of a command.
type docFlag struct {
	Name      string `json:"name"`
	Shorthand string `json:"shorthand,omitempty"`
	Type      string `json:"type"`
	Default   string `json:"default"`
	Usage     string `json:"usage"`
	Inherited bool   `json:"inherited"`
}

// newDocFactsCmd is "graft __doc-facts": hidden from help and from
// completion, it prints the command tree with every flag as JSON (docFacts)
// and touches no home and no config file. Its only reader is the docs test
// (internal/docscheck): keep its output a plain description of the tree.
func newDocFactsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:         "__doc-facts",
		Short:       "Print the command tree and its flags as JSON (for the docs test)",
		Hidden:      true,
		Annotations: map[string]string{lazyConfig: "reads nothing but the command tree"},
		Args:        exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			facts := docFacts{Commands: []docCommand{}}
			var walk func(c *cobra.Command)
			walk = func(c *cobra.Command) {
				d := docCommand{
					Path:        c.CommandPath(),
					Use:         c.Use,
					Hidden:      c.Hidden,
					Available:   c.IsAvailableCommand(),
					HelpTopic:   c.IsAdditionalHelpTopicCommand(),
					Subcommands: []string{},
					Flags:       []docFlag{},
				}
				add := func(inherited bool) func(f *pflag.Flag) {
					return func(f *pflag.Flag) {
						d.Flags = append(d.Flags, docFlag{Name: f.Name, Shorthand: f.Shorthand, Type: f.Value.Type(),
							Default: f.DefValue, Usage: f.Usage, Inherited: inherited})
					}
				}
				c.InitDefaultHelpFlag()
				c.LocalFlags().VisitAll(add(false))
				c.InheritedFlags().VisitAll(add(true))
				for _, s := range c.Commands() {
					d.Subcommands = append(d.Subcommands, s.Name())
				}
				facts.Commands = append(facts.Commands, d)
				for _, s := range c.Commands() {
					walk(s)
				}
			}
			walk(cmd.Root())
			return a.printJSON(facts)
		},
	}
}
