// Package fidelity measures what a tape carries of what the next context
// window must know (issue 23): it reads the hand-written truth set of
// testdata/fidelity (cases/*.json, format in testdata/fidelity/README.md),
// cuts each case's real transcript where the handoff happens, imports and
// prepares it with graft as a person would, and scores graft's tape and
// four baselines built from the same transcript: the excerpt popular
// handoff hooks inject (the first user message, the last 3, the last 5
// tool calls, 8,000 characters), the last 16,000 characters of the
// conversation (tool calls and outputs included), the last 16,000 of its
// messages alone (what a person pasting the end of the chat gives), and,
// at a cut where the host compacted, the host's own compaction summary. A fact is carried when every one of its evidence
// strings occurs in the text, case-insensitively, white space folded.
// Each fact is also placed (Where) in the kind of imported event that
// holds its evidence, the person's messages, the assistant's, text the
// host injects, tool inputs, tool outputs…: the sweep counts the places of
// what no budget carries, and -missed names each missed fact's.
// The cases marked heldOut (written blind, kept out of the tape's work)
// are also scored apart, as the project's own check on unseen sessions
// is: Lead asks 90 % of them and a lead in each of their categories.
//
// Reread marks the facts the host gives the next window itself: those
// whole in the instruction files a host writes into its log (Codex's
// AGENTS.md), which it reads again when the export resumes and the tape
// therefore leaves out. The candidates' tables count them as misses; one
// more table counts them as carried for every candidate alike.
//
// BlockTable splits each tuning case's tape into its blocks
// (tape.SplitText) and says where the tape spends its room: per kind of
// block, its characters and the facts only it carries (make
// fidelity-blocks).
//
// OracleCarries is the chooser's ceiling the sweep prints: a chooser that
// knows the facts takes whole entries (a line and the indented lines
// under it) of the largest budget's tape, the most facts per character
// first, within the default budget, after the marker lines and the
// Handoff blocks every tape opens with. It is no rule a tape could
// follow (it reads the facts); it splits what the tape misses at its
// budget into what a better choice of lines could carry and what needs
// content the tape does not hold.
//
// The package owns no file: it reads the truth set and writes only in a
// temporary directory. `make fidelity` prints its tables
// (bench/cmd/fidelity); its test runs the whole set and holds graft to the
// issue's bar.
package fidelity
