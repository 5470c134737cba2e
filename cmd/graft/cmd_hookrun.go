package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hookrun"
	"github.com/graft-project/graft/hosts"
)

// maxHookInput bounds what a hook reads from stdin: hook JSON is small.
const maxHookInput = 16 << 20

// newHookRunCmd is "graft hook claude-code" / "graft hook codex": what the
// host runs. It always exits 0 (hookrun/doc.go): a broken graft must never
// wedge the host's session.
func newHookRunCmd(a *app, host hosts.Host) *cobra.Command {
	use := string(host)
	if ad, err := hosts.Of(host); err == nil && ad.Hooks().Notify != nil {
		use += " [notify-json]"
	}
	var plugin bool
	cmd := &cobra.Command{
		Use:   use,
		Short: fmt.Sprintf("Run as a %s hook: the hook JSON on stdin, act on the event, always exit 0", host),
		Long: `What the host runs (installed by "graft hook install"). Reads the hook's JSON
on stdin and acts on its event:

  SessionStart      recovery scan; follow the transcript; after a compaction,
                    re-inject the Anchor + Hard Constraints block (with origins)
  UserPromptSubmit  follow the transcript; past autoGraft tokens, prepare a
  Stop              review and tell the user how to hand off
  PreCompact        with interceptCompaction: hand off and block the compaction,
                    giving the resume command; on any failure, do not block

Codex's notify program passes one JSON argument instead of stdin; it is taken
as a Stop. Malformed input or another event: one line on stderr, nothing
written. Failures never change the exit code (0) and never block the host.

A failure that keeps graft's hooks from doing their job (config.toml has an
error, the graft home cannot be opened, the plugin's hooks standing down for
graft hook install's) is told once per cause as a systemMessage on the next
SessionStart or UserPromptSubmit; it is remembered in the graft home
(hook-notices/), and told at every SessionStart when the home cannot be
written.

--plugin: run by graft's Claude Code plugin (plugin/graft in graft's
repository, which Codex and Qwen Code install too) or Gemini CLI extension
(plugin/gemini), whose script runs $GRAFT_BIN, else graft on PATH.`,
		Annotations: map[string]string{lazyConfig: "hooks read config.toml themselves and never fail the host"},
		Args:        cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.runHook(host, args, plugin)
			return nil
		},
	}
	cmd.Flags().BoolVar(&plugin, "plugin", false, "run by graft's Claude Code plugin or Gemini CLI extension: stand down when graft hook install put graft's hooks into a settings file too")
	return cmd
}

func (a *app) runHook(host hosts.Host, args []string, plugin bool) {
	warn := func(format string, v ...any) { fmt.Fprintf(a.stderr, "graft hook: "+format+"\n", v...) }
	var data []byte
	if len(args) == 0 {
		var err error
		data, err = io.ReadAll(io.LimitReader(a.stdin, maxHookInput+1))
		if err != nil {
			warn("reading the hook input: %v; nothing done", err)
			return
		}
		if len(data) > maxHookInput {
			warn("the hook input is larger than %d bytes; nothing done", maxHookInput)
			return
		}
	}
	in, err := hookrun.Parse(host, data, args)
	if err != nil {
		warn("ignored: %v; nothing done", err)
		return
	}
	cfg, err := a.config()
	// Notices live in the graft home: the configured one, or, when the
	// config cannot be read, the one --home or GRAFT_HOME names, else the
	// default.
	home := defaultHome()
	if err == nil || a.rootFlags != nil && a.rootFlags.Changed("home") {
		home = a.home
	}
	notices := hookrun.OpenNotices(hookrun.NoticesDir(home))
	if plugin {
		notices.Resolve(hookrun.KindNoBinary) // the plugin found this graft
	}
	if err != nil {
		warn("%s: %v; nothing done (fix the file, then graft config)", in.HookEventName, err)
		notices.Record(hookrun.KindConfig, fmt.Sprintf("graft's hooks did nothing: %v. Fix the file (graft config shows what it reads), then run graft doctor.", err))
		var out hookrun.Outcome
		hookrun.Tell(host, in.HookEventName, notices, &out)
		a.writeHookOutcome(out, warn)
		return
	}
	notices.Resolve(hookrun.KindConfig)
	self := "graft"
	if exe, err := os.Executable(); err == nil {
		self = exe
	}
	if a.rootFlags != nil && a.rootFlags.Changed("home") || os.Getenv("GRAFT_HOME") != "" {
		self += " --home " + a.home
	}
	out := hookrun.Run(host, in, a.service, hookrun.Settings{
		AutoGraft:           cfg.AutoGraft,
		InterceptCompaction: cfg.InterceptCompaction,
		Prepare:             graft.PrepareOptions{Tape: cfg.TapeOptions()},
		Self:                self,
		Notices:             notices,
		Plugin:              plugin,
	})
	a.writeHookOutcome(out, warn)
}

func (a *app) writeHookOutcome(out hookrun.Outcome, warn func(string, ...any)) {
	for _, l := range out.Stderr {
		fmt.Fprintln(a.stderr, l)
	}
	if len(out.Stdout) > 0 {
		if _, err := a.stdout.Write(out.Stdout); err != nil {
			warn("writing the hook output: %v", err)
		}
	}
}
