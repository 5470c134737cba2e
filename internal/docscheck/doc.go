// Package docscheck holds the test that keeps README.md and docs/DESIGN.md
// (and the labels of BENCHMARKS.md) true to the code: every fact they state
// about the code is read from the document and checked against the code
// itself, and a mismatch names the document, the line and the fact. The
// package has no code; its test is part of "make test".
//
// Where the code's side comes from:
//
//   - the CLI: the command tree of the built binary, printed by its hidden
//     command "graft __doc-facts" (cmd/graft/cmd_docfacts.go: every command,
//     hidden or not, with its flags), "graft --help" and "graft help
//     exit-codes";
//   - exit codes, crash points, config keys, hook events, crash suite groups,
//     tape limits: the packages' own lists (graft.ExitCodes, txn.Points,
//     config.Keys, hookinstall.Events, crashtest.Groups, tape's constants);
//   - the hosts: the registry (hosts.Adapters): README's table of the hosts
//     names each, in its order, with its adapter's title, program, resume
//     command, growth and whether its compaction is intercepted;
//   - the MCP tools: a server (mcpserver.New) listed by a client over the
//     SDK's in-memory transport: names, annotations, input and output schemas;
//   - the on-disk layout: a real flow run by the binary in a temporary home
//     (gen, prepare, commit, export to Claude Code and Codex, import, handoff,
//     a hook, a catalog rebuilt after damage), and the files it left;
//   - config and hooks: the binary run in temporary homes ("graft config
//     --json", "graft hook install"), and the files it wrote;
//   - figures from a run: the Makefile, the flags of the program that printed
//     them, and the format strings that print them (parsed from the source);
//   - links to tests: the test files, parsed for the named functions.
//
// How the documents state a fact so the test finds it: Markdown tables are
// found by their header row, numbers in prose by a specific pattern next to
// the words that state them, and a figure from a run is preceded by a line
//
//	Run: `<command>`, <YYYY-MM-DD>[ HH:MM UTC], <machine>[; <more>].
//
// Each check is one fact; the test logs how many it checked.
package docscheck
