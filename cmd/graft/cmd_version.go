package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/version"
)

func newVersionCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print graft's version, build and formats",
		Long: `Prints the module version (stamped by make dist, else what the build
recorded: the tag of go install …@<tag>, a pseudo-version in a git checkout,
else "(devel)"), the VCS revision and whether the work tree was modified,
the Go version and platform, and the formats graft writes (the tape and the
prefix hash). "graft --version" prints the same line. Reads no home and no
config file.`,
		Annotations: map[string]string{lazyConfig: "reads nothing"},
		Args:        exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			v := version.Get()
			if asJSON {
				return a.printJSON(v)
			}
			_, err := fmt.Fprintln(a.stdout, v.String())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON: version, revision, time, modified, goVersion, platform, tapeFormat, prefixFormat")
	return cmd
}
