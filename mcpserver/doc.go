// Package mcpserver serves graft to agents over the Model Context Protocol
// (github.com/modelcontextprotocol/go-sdk): "graft mcp" runs it over stdio,
// "graft mcp --http 127.0.0.1:PORT" over streamable HTTP on loopback only:
// an IP literal that is loopback, or "localhost" when every address it
// resolves to is (the server listens on that IP, never on the name), and
// the listener's bound address must be a loopback IP too.
// It owns nothing on disk; every call goes to one graft.Service, which opens
// catalog.db per operation, so CLI commands on the same home never block
// behind a running server.
//
// # Tools
//
//	graft_prepare  {source | host (transcript?, hostSessionId?), tier?, recentTurns?,
//	                autoTier?, budget?, allowReslice?, to?}
//	               → review: preparedId, tapeHash, goal, constraints with origins,
//	                 leftovers, warnings, tape (one chunk), next; with to (another
//	                 host the work goes on in) the tape tells the agent the
//	                 instruction files that host does not read, as graft handoff
//	                 --to does, and the warnings tell the user
//	               {preparedId, offset} → the next chunk of a stored review's tape
//	graft_commit   {preparedId, tapeHash, target?, host?} → targetId, txnId, notes,
//	                 hostSession, next; a review prepared with to is committed
//	                 to that host only
//	graft_recall   {session, seq, offset?} → one event; its largest payload
//	               (text, tool.input or tool.output) in content, one chunk
//	graft_find     {session, words, limit?, before?} → the newest events holding
//	               every word (seq, type, source, tool, snippet), total, older,
//	               continues (the session a graft target continues)
//	graft_status   {session?, offset?} → sessions (one page), pending
//	               transactions, leftovers, startupRecovery, lastRecovery
//	graft_revert   {target, force?} → source active again, target abandoned
//
// graft_prepare's tape options default to Options.Defaults ("graft mcp"
// passes config.toml's tier, recentTurns, adaptiveTier and budget): an
// option the call leaves out is the default's, and a call that sets tier
// or recentTurns sets both.
//
// Annotations: graft_status, graft_recall and graft_find are read-only and
// idempotent;
// graft_prepare is neither read-only nor destructive (it only stores a
// review); graft_commit and graft_revert are destructive. openWorldHint is
// false everywhere: the tools touch only the graft home.
//
// # Start-up
//
// New takes an opened graft.Service: graft.Open runs the recovery scan, so
// the scan has finished before the first request is read. Its report is
// graft_status's startupRecovery.
//
// # Errors
//
// Every typed error is a tool result with isError set and one text content:
//
//	<code>: <message>; next: <what to do>
//
// e.g. "boundary_drift: boundary drifted: a new user message arrived at seq
// 812 in s (…); prepare again; next: call graft_prepare again and show the
// new review to the user before committing". The codes are graft.CodeOf's
// (no_such_seq among them) plus invalid_input (also for arguments the
// tool's input schema refuses, which the SDK rejects before any tool runs)
// and internal_error (a handler panicked: the server recovers and keeps
// serving). An unknown tool or a malformed request is a JSON-RPC error:
// those are protocol faults. Over stdio (StdioTransport) a line that is not
// a JSON-RPC message (not UTF-8, not one JSON value, a batch, a wrong
// "jsonrpc", an id that is no string or number) is answered with -32700
// (parse error) or -32600 (invalid request), carrying the id when it can be
// read, and the server keeps serving: the SDK's own reader would end the
// session at such a line.
//
// # Sizes
//
// A tape chunk and a recall's content are at most ChunkChars characters
// (runes; default 32,000). When more follows, nextOffset is set: call the
// same tool again with offset=nextOffset (graft_prepare with the preparedId,
// which reads the stored review instead of preparing a new one). Goal quotes
// and constraints, carried whole, are cut at 2,000 characters with a note
// naming the session and seq that graft_recall reads in full. graft_status
// lists at most PageSessions sessions per call, with the same cursor.
//
// # Output
//
// Over stdio, stdout carries only protocol; log lines go to Options.Logger
// (stderr in "graft mcp"). Tool calls run one at a time per session: each
// takes a lock per session it touches (graft_prepare, graft_recall and graft_find:
// the session; graft_commit: source and target; graft_revert: target and
// source), several in sorted order; graft_status takes none. So a recall
// of one session never waits for a prepare of another. Each call passes
// its request's context to the service: a cancelled call stops its prepare
// or recall at the next check, and a commit before its journal record. A
// read that fell
// back to the logs because catalog.db or index/ could not be used
// (graft.Service.TakeDegraded) is logged as a "degraded read" after its
// call; graft_status also says so in catalogError, graft_prepare in its
// warnings, and graft_prepare without a usable catalog is a tool error
// (catalog_damaged when the file is damaged).
package mcpserver
