package main

import (
	"fmt"

	"github.com/spf13/cobra"
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
