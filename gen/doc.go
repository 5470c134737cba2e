// Package gen writes synthetic agent sessions: deterministic event streams
// shaped like a coding agent's real work, for the tape builder, the
// benchmarks and the demo. It owns no file; "graft gen" streams its events
// into the session store (see package session for the line format).
//
// # Determinism
//
// Generate(opts, emit) emits exactly opts.Events events in exactly
// opts.Turns turns, seq 1..Events, and the same Options give the same
// events byte for byte once encoded, on every machine and Go release: the
// random numbers come from this package's own SplitMix64, not math/rand, and
// the timestamps from a fixed base time (2025-03-03T09:00:00Z, moved by the
// seed up to a year) plus gaps drawn from the seed, never from the clock.
// Changing what a seed produces is a format change: say so in the commit.
//
// # What a session contains
//
// A turn starts at a human instruction (user/message, source.kind "user"),
// the only events for which session.Event.IsHumanInstruction holds.
//
//   - A plugin injection before the first turn (when the budget allows);
//     the first human instruction is a clear goal ("Goal: …") with an
//     English hard constraint. The next constraint-carrying turns speak
//     Chinese and Russian, then the languages rotate: "Never push to main
//     without running make test.", "必须保留原有的错误码。", "Нельзя менять
//     формат журнала.". A later turn may repeat an earlier constraint
//     verbatim (a second origin of the same constraint).
//   - Assistant messages of one to four paragraphs; the ones between and
//     after tool calls end with a paragraph that says what comes next.
//   - Tool call/result pairs with matching callId ("toolu_01…"): Read,
//     Write, Edit, MultiEdit (input file_path), Bash (command), Grep, Glob,
//     apply_patch ("*** Begin Patch\n*** Update File: …"), Task (which
//     launches a sub-agent whose report comes before the result); sometimes
//     two calls before their two results. About one result in ten fails
//     (ok: false). Outputs run from empty to MiBs: big ones are Reads with
//     offset/limit and Bash log dumps, cut from a text built once per
//     Generate, and are placed wherever the session falls behind its
//     preset's bytes per event, so a preset's size holds for every seed.
//   - todo/write lists whose items go pending → in_progress → completed.
//   - subagent/report events: about 70% open with a report keyword
//     ("Summary:", "Result:", "Findings:", "Done:", "Report:"); the rest
//     bury the keyword mid-text or are file or log dumps a de-noiser drops.
//   - Injected user/message events from plugin, system and skill sources
//     (and a Read of AGENTS.md) whose text reads like orders ("You MUST
//     always…", "NEVER…", "必须…", "обязательно…"): none is human.
//   - The session ends inside its last, open turn. When that turn has at
//     least 9 events, it ends with a todo write that leaves the push in
//     progress and an item pending, then three successful Bash calls (make
//     test, git push, git status) that make the list stale, then an
//     assistant step.
//
// # Presets
//
//	(none)  6 turns, 200 events by default; ~3 KiB per event
//	seed    48 turns, 14,978 events: the original plugin's real session (~27 MiB)
//	large   500 turns, 220,000 events, ≥ 1 GiB (5,500 bytes per event)
package gen
