// Package hosts connects graft sessions with the sessions of the agent hosts
// people use: it writes a graft target as a host transcript that the host
// resumes (Export), follows a host transcript into the graft session it
// continues (Follow), and records which host session continues which graft
// session. It owns $GRAFT_HOME/hosts/ and the host transcripts it writes.
//
// # Hosts
//
// What one host is to graft is its adapter (hosts/adapter/doc.go), in one
// package per host: hosts/claudecode (Claude Code), hosts/codex (Codex),
// hosts/gemini (Gemini CLI).
// registry.go lists them, in the order help texts name them; Of finds a
// host's adapter, and a host not in the registry is ErrUnknownHost
// wherever it is named. Everything in this package is the same for every
// host: the bindings, Export's write, Follow, the context size read from a
// transcript's tail (ContextTokens).
//
// # Bindings
//
//	hosts/<host>/<hostSessionId>.json   one host session; mode 0600, directories 0700
//
// (On the etcd store the same JSON is the value of <prefix>/hosts/<host>/
// <hostSessionId>, etcdstore/doc.go: Bindings is the interface both keep.)
//
// <host> is a host's name in the registry ("claude-code", "codex", "gemini", "qwen");
// <hostSessionId> the host's lower-case session uuid. A binding is replaced atomically (temp file, fsync, rename,
// fsync of the directory). It is one JSON object:
//
//	version        1
//	host           the host's name ("claude-code", "codex", "gemini", "qwen")
//	hostSessionId  the host's session id
//	session        the graft session this host session continues
//	role           "exported": graft wrote the transcript from a graft target;
//	               "imported": the host wrote it and graft imports it
//	path           absolute path of the host transcript
//	cwd            the working directory the transcript belongs to (exported)
//	bytes, sha256  size and hex SHA-256 of the transcript graft wrote (exported)
//	created        RFC 3339 time the binding was first written
//	lastSeen       RFC 3339 time a hook last followed it, with cwd then the
//	               working directory the hook ran in (how graft_prepare finds
//	               the session an agent runs in)
//	stray          set when the host session got a new human instruction after
//	               its graft session was handed off (retired): nothing of it is
//	               merged; {"bytes", "lines", "humans", "seen", "target"} — new
//	               bytes, lines and human instructions past the import cursor,
//	               when graft saw them, and the live session that continues the
//	               work. The end of the turn that handed off (an agent's own
//	               graft_commit result, its last words) is no stray.
//	sum            "sha256:" and the hex SHA-256 of the binding's JSON as
//	               encoded without it (two-space indent, in the order above),
//	               its last member. Reading a binding decodes it, encodes it
//	               again without the sum and compares: a byte changed in a
//	               value or a name (a session id one digit off still reads
//	               as one) does not match, and the binding is refused,
//	               ErrBadBinding naming the file or key, never followed. A
//	               binding without a sum (written before it, or edited by a
//	               person who deleted it) reads as before.
//
// A session is bound to at most one host session per role "exported": a
// second export of the same target to the same host answers with the same
// host session id and bytes; an export to the other host is refused, since
// two hosts continuing one target would fork it.
//
// # Transcripts written
//
// The host session id is derived, not drawn: SHA-256 over "graft-host-v1",
// the host, the session id and the graft/origin txn, shaped as a uuid of the
// version the host's adapter says (adapter.DerivedUUID: version 4 for
// Claude Code and Gemini CLI, version 7 with the commit time in its first
// 48 bits for Codex). The timestamps are the tape events' own, a millisecond apart in
// file order. Same target, same bytes.
//
// The tape (tape/doc.go) becomes one closed turn (adapter.Turn): a user
// message holding the handoff text and then every recap block in order,
// one text block each, and the assistant's acknowledgement. Each text keeps
// its "[graft:tape …]" marker line, so graft never reads it back as a human
// instruction. Where the file goes and its records are the host's: see
// hosts/claudecode/doc.go and hosts/codex/doc.go.
//
// The goal the source's host still pursued at the cut (its /goal, active:
// the graft/origin's inherit.goal, adapter.Turn.Goal) goes on where the
// host restores a goal from its session file (adapter.GoalCarrier:
// Claude Code 2.1.332, Qwen Code 0.24.4): the export ends, after the
// acknowledgement, with the host's record of a goal just set, and the
// resumed session pursues it (the real-host tests resume such exports).
// Codex 0.171 restores a goal only from its own database, where graft
// never writes, and Gemini CLI has no /goal: their exports carry none,
// and a handoff tells the person to set it again. An export from before
// exports carried the goal (no goal record) is the same export: a
// re-export leaves it as it is.
//
// Who made it (adapter.Made): the hosts store which program wrote a record,
// and graft writes itself there, with its version (version.Info.Short:
// the module version, or "(devel)+<revision>") in a field the host keeps
// and reads nothing of (the real-host tests resume graft's exports). Where
// a host's records name its own version (adapter.Versioned: Claude Code,
// Codex, Qwen Code), an export names the version the person has, found
// without running the program (hostversion.go): the version the last, else
// the first, line of the host's newest session file names, the source
// session's own transcript first when it is the host's, the newest few
// under the host's transcript root by modification time next (graft's own
// records name none), else the adapter's TestedVersion. A file already at
// the export's path that another graft version wrote for the same target,
// or for another version of the host (an upgrade between a handoff and the
// export it owed, or a re-export) is the same export: the adapter reads
// who made it from its first line (adapter.Adapter.Writer), its bytes are
// rendered again as they made them and compared, and the import cursor is
// seeded with them.
//
// A transcript is written to a temporary file in its directory
// (.graft-export-<host session id>.tmp: a killed export's is known by its
// name, and the next export of the same host session removes it), fsynced,
// linked to its name (never replacing an existing file), the temporary name
// removed and the directory fsynced (before it, for a host that needs them,
// adapter.Claimer's markers, each the same way and never replacing one);
// then the import cursor of the session
// is seeded (importer.Seed), so that following the transcript appends only
// what the host writes after graft's lines, and the binding is written.
// Every file operation goes through the store's vfs.FS (the crash suite's
// seam); ExportOptions.Hook is called after each step (the crash points
// export/*, txn/doc.go). ExportID derives the host session id an export of
// a target gets, which is how graft knows a transcript it wrote but never
// bound (a handoff killed between the two: graft.Service.Follow finishes
// the export the handoff owed before following it).
package hosts
