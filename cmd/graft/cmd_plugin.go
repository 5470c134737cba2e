package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/hookinstall"
)

func newPluginCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Enable or disable graft's Claude Code plugin in your Claude Code settings, reversibly",
		Long: `graft's Claude Code plugin (plugin/ in graft's repository: hooks and the MCP
server) loads from the user's Claude Code settings ($CLAUDE_CONFIG_DIR, else
~/.claude, settings.json) when two keys name it:

  extraKnownMarketplaces.graft     {"source": {"source": "directory", "path": <plugin dir>}}
  enabledPlugins["graft@graft"]    true

"graft plugin install" adds exactly those and "graft plugin uninstall" takes
them out again: the file comes back byte for byte (a file graft created goes).
"claude plugin install graft@graft" works too, but Claude Code then rewrites
the whole settings file and its own uninstall does not restore it.`,
	}
	cmd.AddCommand(newPluginInstallCmd(a), newPluginUninstallCmd(a))
	return cmd
}

// defaultMarketplace is plugin/ beside the directory of the running graft
// (bin/graft of a checkout built with make), "" when there is none.
func defaultMarketplace() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir := filepath.Join(filepath.Dir(filepath.Dir(exe)), "plugin")
	if _, err := os.Stat(filepath.Join(dir, ".claude-plugin", "marketplace.json")); err != nil {
		return ""
	}
	return dir
}

func newPluginInstallCmd(a *app) *cobra.Command {
	var (
		market string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Enable graft's plugin in the user's Claude Code settings (two keys, undone byte for byte by uninstall)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if market == "" {
				if market = defaultMarketplace(); market == "" {
					return usageError{errors.New("name the plugin's marketplace directory with --marketplace DIR (plugin/ in graft's repository): none beside this graft")}
				}
			}
			abs, err := filepath.Abs(market)
			if err != nil {
				return err
			}
			path, err := pluginSettings()
			if err != nil {
				return err
			}
			r, err := hookinstall.InstallPlugin(path, abs)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(r)
			}
			switch {
			case !r.Changed:
				fmt.Fprintf(a.stdout, "graft's plugin is already enabled in %s\n", r.File)
			default:
				fmt.Fprintf(a.stdout, "graft's plugin (%s) is enabled in %s\n", abs, r.File)
				if r.Backup != "" {
					fmt.Fprintf(a.stdout, "  backup  %s\n", r.Backup)
				}
				fmt.Fprintln(a.stdout, "Claude Code loads it at its next start; graft plugin uninstall undoes this.")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&market, "marketplace", "", "the plugin's marketplace directory (default: plugin/ beside this graft's bin/)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newPluginUninstallCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Take graft's plugin out of the user's Claude Code settings again",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := pluginSettings()
			if err != nil {
				return err
			}
			r, err := hookinstall.UninstallPlugin(path)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(r)
			}
			switch {
			case !r.Changed:
				fmt.Fprintf(a.stdout, "graft's plugin is not enabled in %s\n", r.File)
			case r.Deleted:
				fmt.Fprintf(a.stdout, "graft's plugin is out of Claude Code's settings; %s, which graft created, is gone\n", r.File)
			default:
				fmt.Fprintf(a.stdout, "graft's plugin is out of %s\n", r.File)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// pluginSettings is the user's settings file of the host graft's plugin
// is a plugin of (hookinstall.PluginHost), where graft plugin enables it.
func pluginSettings() (string, error) {
	host, err := hookinstall.PluginHost()
	if err != nil {
		return "", err
	}
	return hookinstall.SettingsPath(host, hookinstall.ScopeUser, "")
}
