package main

import (
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graft-project/graft/config"
	"github.com/graft-project/graft/storeurl"
	"github.com/graft-project/graft/tape"
)

// The root's PersistentPreRunE reads config.toml for every command, also
// under a command with a PersistentPreRunE of its own.
func init() { cobra.EnableTraverseRunHooks = true }

// lazyConfig is an annotation: a command that has it (or whose parent has
// it) is not failed by the root when config.toml is bad; it calls
// app.config itself and handles the error (a host hook that must not fail
// the host's turn, say).
const lazyConfig = "graft/lazy-config"

// loadedConfig is config.toml as this invocation resolved it.
type loadedConfig struct {
	cfg config.Config
	src config.Sources
	err error
}

// config returns the effective configuration of this invocation: the
// defaults, config.toml, the environment (GRAFT_HOME) and the root flags
// (--home), in rising precedence; it also sets a.home. It reads the file
// once. Its error, a bad or unreadable file, is a usage error (exit 2)
// naming the file, line and key.
func (a *app) config() (config.Config, error) {
	l := a.loadConfig()
	return l.cfg, l.err
}

// configSources says where each value of a.config() came from.
func (a *app) configSources() config.Sources {
	return a.loadConfig().src
}

func (a *app) loadConfig() *loadedConfig {
	if a.cfg != nil {
		return a.cfg
	}
	file, required := a.configFile, a.configFile != ""
	if !required {
		file, required = config.Path()
	}
	cfg, src, err := config.Load(file, required)
	if err != nil {
		a.cfg = &loadedConfig{src: config.Sources{File: file}, err: usageError{err}}
		return a.cfg
	}
	if a.rootFlags != nil && a.rootFlags.Changed("home") {
		if a.home == "" {
			// An empty path would put the home in the working directory.
			a.cfg = &loadedConfig{src: src, err: usageError{errors.New("--home is empty: name the graft data directory")}}
			return a.cfg
		}
		cfg.DataDir = a.home
		src.Set("dataDir", config.Source{Kind: config.FromFlag, Name: "home"})
	}
	if a.rootFlags != nil && a.rootFlags.Changed("store") {
		if err := storeurl.CheckSetting(a.store); err != nil {
			a.cfg = &loadedConfig{src: src, err: usageError{err}}
			return a.cfg
		}
		cfg.Store = a.store
		src.Set("store", config.Source{Kind: config.FromFlag, Name: "store"})
	}
	a.home = cfg.DataDir
	a.store = cfg.Store
	a.cfg = &loadedConfig{cfg: cfg, src: src}
	return a.cfg
}

// skipsConfig: help and shell completion work whatever config.toml holds,
// and a command annotated lazyConfig reads it itself.
func skipsConfig(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
			if c.Parent() != nil && c.Parent().Parent() == nil {
				return true
			}
		}
		if _, ok := c.Annotations[lazyConfig]; ok {
			return true
		}
	}
	return false
}

// tapeFlags adds --tier, --recent-turns, --auto-tier and --budget to f.
// The returned function gives the tape options of the invocation: each
// flag given on the command line, else config.toml's value. --tier and
// --recent-turns go together: giving either takes both from the flags, so
// that "--tier B" is not overridden by the file's recentTurns.
func tapeFlags(f *pflag.FlagSet) func(config.Config) tape.Options {
	var o tape.Options
	f.StringVar(&o.Tier, "tier", tape.TierA, "replay tier: A (no replay) or B (the last closed turn verbatim); config key tier")
	f.IntVar(&o.RecentTurns, "recent-turns", 0, "replay this many closed turns (overrides --tier); config key recentTurns")
	f.BoolVar(&o.AutoTier, "auto-tier", false, "switch to tier B when todos are unfinished or a recent tool call failed; config key adaptiveTier")
	f.IntVar(&o.Budget, "budget", tape.DefaultBudget, "character budget of the whole tape; config key budget")
	return func(cfg config.Config) tape.Options {
		eff := cfg.TapeOptions()
		if f.Changed("tier") || f.Changed("recent-turns") {
			eff.Tier, eff.RecentTurns = o.Tier, o.RecentTurns
		}
		if f.Changed("auto-tier") {
			eff.AutoTier = o.AutoTier
		}
		if f.Changed("budget") {
			eff.Budget = o.Budget
		}
		return eff
	}
}
