// Package adapter says what graft needs to know of one agent host: the
// Adapter interface that each host's package implements (hosts/claudecode,
// hosts/codex, hosts/qwen), the types its methods take (Turn, ImportOptions, Hooks,
// Help) and the helpers they share (DerivedUUID, Stamp, WriteLine,
// RealDir, OneMatch). Package hosts holds the registry of the adapters
// (hosts/registry.go) and everything that is the same for every host:
// bindings, Export's crash-safe write, Follow, the context size read from
// a transcript's tail.
//
// # An adapter
//
// One host, one package, one value implementing Adapter:
//
//	where its sessions live   Root, RootVar, TranscriptRoot, FindTranscript,
//	                          SessionID, TranscriptName (and Continuer, for a
//	                          host that resumes "the newest session here")
//	how its file grows        Growth: Appends (a follow imports the lines past
//	                          its cursor) or Rewrites (a later record replaces
//	                          the message list: a follow must work on
//	                          snapshots; hosts.Follow refuses such a host with
//	                          ErrCannotFollow until it does)
//	transcript → events       Mapper, Import (package importer's mappers)
//	tape → host session       ExportID, ExportPath, Render, Writer (who made
//	                          an export: Made, graft's version and the host's);
//	                          Versioned, for a host whose records name its
//	                          version; GoalCarrier, for a host that restores
//	                          a goal from its session file (Render writes
//	                          Turn.Goal's record after the acknowledgement);
//	                          the bytes are written by hosts.Export
//	                          through the store's vfs.FS, never by the adapter
//	resuming                  ResumeCommand
//	autoGraft                 LineTokens: the context size one line reports
//	hooks                     Hooks: its events and what graft does on each,
//	                          its settings files (Scopes, Settings), how a hook
//	                          answer stops a compaction (Block; nil: no answer
//	                          does, and graft does not intercept it), whether
//	                          a PreCompact hook's context reaches the summary
//	                          (CompactContext) and how much of it the host
//	                          keeps (CompactContextMax, counted by
//	                          CompactContextLen), how much of a SessionStart's
//	                          or UserPromptSubmit's context it gives its model
//	                          as it is (ContextMax, counted by ContextLen;
//	                          ContextCap picks the pair of an event), whether
//	                          notices must go to the model too, its notify
//	                          program, the notes an install prints, whether
//	                          graft's plugin is one of its plugins (Plugin),
//	                          the host's command that removes graft's plugin
//	                          or extension (PluginRemove) and where it keeps
//	                          one once installed (PluginAt);
//	                          and install.go's MCPRegistrar (graft's MCP
//	                          server in one more config file) and HookTruster
//	                          (hooks run only once the person trusts them),
//	                          for a host that needs them
//	help texts                Help
//
// Errors an adapter returns are this package's (ErrNoTranscript,
// ErrHostSessionID, ErrBadCwd, ErrUnknownHost); package hosts returns the
// same values under its own names.
//
// # Adding a host
//
// A host is a new package hosts/<name> of at most five files, and one line
// in the registry:
//
//	hosts/<name>/doc.go       what the host does: its files, records, resume
//	                          command, hooks (the facts the adapter relies on)
//	hosts/<name>/adapter.go   Name, Title, Program, InstructionFiles, UserInstructionFiles,
//	                          Root…, FindTranscript,
//	                          SessionID, Growth, Mapper, Import, ResumeCommand,
//	                          LineTokens
//	hosts/<name>/render.go    ExportID, ExportPath, Render, Writer
//	hosts/<name>/hooks.go     Hooks, Help
//	hosts/<name>/<name>_test.go
//	hosts/registry.go         + <name>.Adapter{},
//
// The mapper may live in importer/<name> (as Claude Code's and Codex's do)
// or in the host's package. The CLI's subcommands and host lists, the MCP
// tools' schemas, graft hook install and graft doctor take the new host
// from the registry.
package adapter
