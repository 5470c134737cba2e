// Package hookinstall merges graft's hooks into an agent host's settings
// file and takes them out again ("graft hook install" / "graft hook
// uninstall"). It edits another program's file, so it changes only graft's
// own entries and keeps everything else as it was.
//
// # Files
//
//	claude-code, project   <dir>/.claude/settings.json
//	claude-code, local     <dir>/.claude/settings.local.json
//	claude-code, user      $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json
//	codex                  $CODEX_HOME/hooks.json, else ~/.codex/hooks.json
//	gemini                 $GEMINI_CLI_HOME/.gemini/settings.json, else ~/.gemini/settings.json
//	qwen                   $QWEN_HOME/settings.json, else ~/.qwen/settings.json
//
// # Entries
//
// For each of the events SessionStart, UserPromptSubmit, Stop and PreCompact
// (in that order) graft appends one group, with no matcher (it runs on every
// occurrence of the event), to the event's array under "hooks":
//
//	{"hooks": [{"type": "command", "command": "<cmd>", "timeout": <s>}]}
//
// <cmd> is "<graft> [--home <home>] [--config <file>] hook claude-code" (or
// "hook codex", "hook gemini", "hook qwen"), each word shell-quoted when
// needed; <s> is 60 for PreCompact (it may hand a whole session off) and 15
// for the others. The entry is the same for Claude Code, Codex and Qwen Code
// (which reads Claude Code's shape, its timeout in seconds too). A host's
// adapter may give the group a matcher and the timeout another unit
// (adapter.Hooks Matcher, TimeoutUnit): Gemini CLI's events (SessionStart,
// BeforeAgent, AfterAgent, PreCompress, which graft runs as SessionStart,
// UserPromptSubmit, Stop and PreCompact) get
//
//	{"matcher": "*", "hooks": [{"type": "command", "command": "<cmd>", "timeout": <ms>}]}
//
// with <ms> 60000 and 15000. An event's value that is not an array is
// refused for the host's own event names as for graft's. A missing "hooks"
// object is added as the last key of the file, a missing event as the last
// key of "hooks".
//
// # Graft's entries
//
// A hook (an element of a group's "hooks" array, whose "type" is "command"
// or absent) is graft's when its "command" equals the command being
// installed, or when its program — the first word after any NAME=value
// assignments, words split as a POSIX shell splits them — has the base name
// "graft" and the words after it are exactly what graft writes: --home and
// --config with their values, then "hook" and the host's name, nothing
// after. A user's own hook that runs graft among other things ("graft hook
// claude-code && backup", "… | tee log") is the user's. Hook entries for the
// other host, and every other hook, are never touched.
//
// Install, per event:
//   - no graft hook: the group above is appended (added);
//   - one graft hook running exactly the command: nothing changes (present);
//     its timeout and any other key the user set are kept;
//   - otherwise (another graft path or home, or several graft hooks): the
//     first is replaced in place by graft's hook object, inside its own
//     group, and the others are removed (updated).
//
// Uninstall removes every graft hook of every event; a group whose hooks
// were all graft's goes, an event whose groups all went goes, and "hooks"
// goes when that left it empty, unless the newest of graft's backups that
// holds the file as it is left had them (below): the person's own
// "hooks": {} or "Stop": [] stays. A file without graft's hooks, or no file,
// is left untouched and reported as nothing to remove.
//
// # Keeping the rest
//
// The file is parsed into ordered lists of raw JSON spans, never through a
// map: every other key, event, group and hook keeps its place and its bytes
// (string escapes, number spelling). The whole file is re-indented with its
// own indent unit (the blanks that open its second line, else two spaces, as
// both hosts write), so a file in that style differs only in graft's
// entries, and it ends in a newline exactly when it did before. An empty
// file is taken as {}. Uninstall gives a file back byte for byte: when one
// of graft's backups of it (newest first) holds, compacted, exactly the
// JSON left once graft's hooks are out (an empty or blank backup holding
// {}), the backup's own bytes are written
// (its indentation and spacing too); when the person changed the file
// since, graft's rendering of it is.
//
// Refused, with an error naming the file, line, column and byte offset and
// nothing written: a file that is not valid JSON, whose top level or "hooks"
// is not an object, that has a key twice in either, or in which one of
// graft's four events is not an array. Groups and hooks of other shapes are
// kept as they are (they are not graft's).
//
// # Writing
//
// An install or uninstall holds an exclusive flock(2) on the file's
// directory from its read to its write, so that graft's own edits of one
// file follow each other (eight installs at once: one backup, one change).
// Nothing is written when nothing changes. A file with no write bit
// (0444) is refused, not replaced. Before an existing file changes,
// its bytes are copied to <file>.graft-backup, or, when that exists,
// <file>.graft-backup.1, .2, … — a backup is never overwritten — with the
// file's mode, fsynced with its directory. The new file is then written
// atomically (vfs.WriteFileAtomic: a temp file ".<name><digits>" in the same
// directory, fsync, rename, fsync of the directory) with the old file's mode;
// a new file gets 0600 and missing directories 0700. If the file's bytes
// changed since graft read them (the host saved a setting meanwhile), nothing
// is written and the command asks to be run again. A symlinked settings file
// is edited at its target.
//
// # Result
//
// Install and Uninstall report (JSON names): host, file (the path written,
// a symlink resolved), command (installed, or also recognised on uninstall),
// created (the file was new), changed (the file was written), added,
// updated, present and removed (event names), moved (events where taking
// graft's entries out moved another hook to a new group or hook index),
// backup (the copy made, if any) and notes (what the user must do: Codex's
// hook trust, Claude Code's "disableAllHooks"); for codex, mcpServer: what
// the same step did to config.toml (below): file, command and args (the
// server's), created, changed, present (graft's table was there as it would
// write it), removed (uninstall removed the config.toml graft had created),
// backup and notes.
//
// # Codex's MCP server
//
// "graft hook install codex" also registers graft's MCP server in Codex's
// $CODEX_HOME/config.toml (else ~/.codex/config.toml), and "graft hook
// uninstall codex" removes it, in the same step (mcpserver.go, asking
// Codex's adapter, an adapter.MCPRegistrar: hosts/codex/mcp.go). The table
// graft writes is text, never a re-encoding of the file:
//
//	# graft's MCP server, added by "graft hook install codex"; "graft hook uninstall codex" removes this table
//	[mcp_servers.graft]
//	command = "<graft>"
//	args = ["--home", "<home>", "--config", "<file>", "mcp"]
//
// (--home and --config as for the hook command). It is appended after one
// blank line (two newlines when the file did not end in one; nothing before
// it in an empty file); every byte before it stays. Only a table under that
// marker line is graft's: it runs from the marker to the first blank line,
// comment or table header after the header. Installing again with the same
// command changes nothing; with another, graft's table is replaced in
// place. A [mcp_servers.graft] of the person's own (no marker) is left
// alone, with a note. Uninstall cuts graft's table and the blank line
// before it; when a backup of the file (newest first) holds exactly what is
// left, up to the blanks at its end (a file of blanks gets graft's table
// alone), the backup's bytes are written, and
// when graft created the file (no backup) and nothing else is in it, the
// file is removed: a config.toml graft only installed into and uninstalled
// from comes back byte for byte. Tables Codex wrote meanwhile (its hook
// trust, [hooks.state."…"]) are kept. A file that is not valid TOML is
// refused with nothing written; locking, backups and the atomic write are
// those of the hooks file.
//
// # Codex trust
//
// Codex runs only hooks the user has trusted and skips the others without a
// message; the trust is recorded in $CODEX_HOME/config.toml, per hook, keyed
// by the hooks file, the event, the group index and the hook index, with a
// hash of the hook's definition. Install does not write it: every codex
// install returns codex.TrustNote in notes (start codex once and approve
// graft's hooks, or run it with --dangerously-bypass-hook-trust).
// codex.Trust computes the key and hash Codex records for one hook, and
// Installed lists graft's hooks with the positions they are keyed by:
// graft doctor compares them with $CODEX_HOME/config.toml. Because trust follows positions, graft's groups are
// appended after the user's and replaced in place; when an uninstall (or
// dropping a duplicate) moves another hook, the result lists the event in
// moved and a note says Codex will ask for those hooks again.
//
// # Claude Code's plugin
//
// InstallPlugin enables graft's Claude Code plugin in the user's
// settings.json with two members, each object created when missing and
// appended after the person's keys:
//
//	"extraKnownMarketplaces": {"graft": {"source": {"path": "<marketplace dir>", "source": "directory"}}}
//	"enabledPlugins": {"graft@graft": true}
//
// Claude Code loads the plugin from them (a project's settings do not load
// it this way). UninstallPlugin removes the two members (a "graft"
// marketplace that is no directory source is the person's and stays) and,
// of the objects they leave empty, those a backup of the file lacks; a
// file the backups show graft created and that holds nothing else goes,
// with the uninstall's backup. The result (PluginResult): file, created,
// changed, deleted, backup.
package hookinstall
