// Package bench measures graft against the floors issue 9 compares it
// with, in the same run and on the same files:
//
//   - prepare against a bare scan (a Go loop reading the log and counting
//     its lines);
//   - a prepare of a session grown by one turn (reading from its scan
//     index) against a full prepare;
//   - commit against a replay of the writes and fsyncs it made: the same
//     target bytes, journal records and retire line, with the same file
//     and directory fsyncs, and nothing else (recordFS counts them);
//   - the recovery scan, per pending record (hand-made records of grafts
//     that crashed after flushing their target, each rolled back);
//   - recall of random seqs (median), through the seq index;
//   - the peak RSS of the real binary's prepare (the child's ru_maxrss).
//
// And the figures of issue 15, graft run as a host runs it (a process, its
// wall time measured around it):
//
//   - graft handoff claude-code of the real compacted sessions of testdata
//     (the first handoff of each on a fresh home: import, prepare, commit,
//     export), beside what Claude Code's own compaction of the same session
//     took, read from its files (Compactions: the compact_boundary record
//     and the agent-acompact-*.jsonl transcript of the call);
//   - the Stop hook (graft hook claude-code) after one more turn of a
//     transcript already imported, on 1 and 100 MiB (SynthesizeTranscript:
//     the real lines repeated with fresh ids), with where its time goes
//     (HookBench.Parts), and the floor of a process that does nothing.
//
// bench/cmd/benchtable (make bench) runs all of them on the seed preset,
// the large preset and the real Claude Code fixture imported with graft
// import claude-code, and prints one table, then the section of issue 15
// (-datasets handoff runs that section alone). The testing.B benchmarks of
// this package measure the same things, one per figure, on the dataset
// GRAFT_BENCH_DATASET names (small, seed, large or fixture; small is a
// generated session of 4,000 events); BenchmarkHandoffFixture and
// BenchmarkHookTurn1MB / 100MB use the real session and the synthetic
// transcripts whatever it names.
//
// # Files
//
// Everything lives under build/bench/ of the module root:
//
//	build/bench/graft                 the binary benchtable builds
//	build/bench/cache/<name>/         a generated dataset's home (sessions/<name>.jsonl)
//	build/bench/cache/<name>.json     its manifest: the gen.Options and the Dataset
//	                                  (bytes, events, where the last turn starts);
//	                                  other options or another size regenerate it
//	build/bench/cache/fixture/        the imported fixture (imported again each run)
//	build/bench/cache/hook-<n>mib/    a synthetic Claude Code transcript of n MiB
//	build/bench/cache/hook-<n>mib.json  its manifest (source digest, size, version)
//	build/bench/work/                 homes of one run, removed at its end
//
// A dataset's log is never written: a measurement that only reads it gets
// a hard link, one that appends (commit) or cuts it (the grown session) a
// copy.
package bench
