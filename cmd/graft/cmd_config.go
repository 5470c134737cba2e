package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/config"
)

// configValue is one key of "graft config --json".
type configValue struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// configReport is "graft config --json".
type configReport struct {
	File       string        `json:"file"`
	FileExists bool          `json:"fileExists"`
	Values     []configValue `json:"values"`
}

func newConfigCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print each effective setting and where it came from",
		Long: `Prints the config file looked for (and whether it exists) and every key of
config.toml with its effective value and its source: "default",
"file PATH:LINE", "env GRAFT_HOME" or "flag --NAME". The text form is TOML:
it can be pasted into the file.

The file is --config, else $GRAFT_CONFIG, else $GRAFT_HOME/config.toml, else
$XDG_CONFIG_HOME/graft/config.toml, else ~/.config/graft/config.toml. For each
key a flag wins over the environment, which wins over the file, which wins
over the default. An unknown key or a bad value fails this and every other
command with exit code 2, naming the file, the line and the key.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.config()
			if err != nil {
				return err
			}
			src := a.configSources()
			rep := configReport{File: src.File, FileExists: src.Exists, Values: []configValue{}}
			for _, k := range config.Keys() {
				rep.Values = append(rep.Values, configValue{Key: k, Value: cfg.Get(k), Source: src.Of(k).String()})
			}
			if asJSON {
				return a.printJSON(rep)
			}
			return printConfig(a, rep)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON: file, fileExists, values [{key, value, source}]")
	return cmd
}

// printConfig writes the report as TOML, each value's source a comment.
func printConfig(a *app, rep configReport) error {
	state := "exists"
	if !rep.FileExists {
		state = "not found"
	}
	fmt.Fprintf(a.stdout, "# config file: %s (%s)\n", rep.File, state)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	for _, v := range rep.Values {
		fmt.Fprintf(tw, "%s = %s\t# %s\n", v.Key, tomlValue(v.Value), v.Source)
	}
	return tw.Flush()
}

// tomlValue writes a value of config.Config as TOML: a JSON string is a
// valid TOML basic string, and numbers and booleans are the same in both.
func tomlValue(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
