// Package hosttest lets tests drive the real host programs, Claude Code
// 2.1.332 and Codex 0.171.0 (pinned in testdata/node's package-lock; the
// behaviours this package's comments date to 2.1.328 and 0.169.0 hold on
// both, and make hosts-latest runs the same tests against each host's
// latest release, or any lock HOSTTEST_NODE_DIR names), offline: against a
// fake model server on 127.0.0.1 that records every request, with a
// throw-away profile each.
//
// # Use
//
//	h := hosttest.Install(t)           // skips with -short
//	srv := hosttest.NewModelServer(t)  // replies "ok", records requests
//	c := h.NewClaude(t, srv)           // fresh HOME, CLAUDE_CONFIG_DIR, working dir
//	c.Print(t, "hello").Ok(t)          // claude -p hello
//	x := h.NewCodex(t, srv)            // fresh HOME, CODEX_HOME with config.toml
//	x.Exec(t, "hello").Ok(t)           // codex exec --skip-git-repo-check hello
//	srv.ModelRequests(), srv.Compactions(), c.Transcripts(t), x.Rollouts(t)
//
// Install runs "npm ci --ignore-scripts" of testdata/node/package-lock.json
// (exact versions, platform packages included) once into
// <module root>/build/hosts/<short sha256 of the lock>/, under a file lock
// because the test binaries of "go test ./..." run in parallel, and writes
// a stamp there so that later runs skip npm. It returns the native
// binaries inside the platform packages:
// @anthropic-ai/claude-code-linux-x64/claude (bin/claude.exe of the main
// package is a stub without the postinstall script) and
// @openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex (what
// bin/codex.js execs; run directly, no Node involved). Both run on Node 20
// although npm warns that Claude Code wants Node 22.
//
// Every run starts from a minimal environment, not the developer's: PATH,
// a throw-away HOME and TMPDIR, the host's config directory, a dummy API
// key, and HTTP(S)_PROXY pointing at the fake server with NO_PROXY for
// 127.0.0.1, so a request to any other machine arrives at the server as a
// refused CONNECT (ModelServer.Foreign) instead of leaving the machine.
// Runs are killed with their process group at a timeout (90 s by default):
// Codex retries forever when its server is unreachable.
//
// Gemini CLI (@google/gemini-cli 0.61.0, pinned in the same lock) runs on
// Node from h.Dir/node_modules/.bin/gemini: h.NewGemini(t, NewGeminiServer(t))
// gives it a throw-away HOME with .gemini/settings.json (API-key auth,
// usage statistics off), GEMINI_API_KEY=fake and GOOGLE_GEMINI_BASE_URL at
// the fake Gemini API, which answers generateContent (the model router's
// classifier) and streamGenerateContent?alt=sse (a turn: a text, or a
// function call the host runs), records every request and refuses any
// other machine as the proxy. Its tests are package hosts/gemini's.
// Its runs set NODE_OPTIONS so that Node.js writes a diagnostic report on
// SIGUSR2; a run killed at its timeout is sent that first, and its failure
// (Result.Diagnosis) lists each process's command line, JavaScript stack
// and the handles that kept it waiting (nodereport.go). Gemini CLI 0.61.0
// has hung at start-up, rarely and under load: a run that timed out with
// no request to the server, no output and no hooks in its settings is run
// again once, said in the test's log; a second hang, or a hang after a
// request, with output or with hooks (graft's may be the cause), fails
// (TestGeminiHangAtStartUpIsTriedOnce).
//
// An interactive host runs in a tmux server of its own: NewTerminal(t,
// env, dir, width, height, argv...) starts it, Type and Keys type into it,
// WaitFor reads the screen, and Quit("/quit") ends it and waits until its
// process has exited, typing the command again when a busy host did not
// take it. The cleanup waits for every process the terminal started (they
// carry its mark in their environment, the host's hooks too) and fails the
// test for any still running 20 s later.
//
// # What the tests verified against the real binaries
//
// Run by default (skipped with -short): one turn of each host (one model
// request holding the prompt; a transcript under
// <CLAUDE_CONFIG_DIR>/projects/<enc>/<uuid>.jsonl, a rollout under
// <CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl); the proxy
// guard; Claude Code resuming a hand-written transcript (compact JSON lines
// with only type, uuid, parentUuid, timestamp and message{role, content},
// a user content a plain string or text blocks, ending with an assistant
// line or with an extra user line, which Claude answers with a synthetic
// "No response requested." before the new prompt); Codex resuming a
// hand-written rollout (session_meta with only id, timestamp, cwd,
// originator and cli_version, then response_item messages); the project
// folder name rule of ClaudeProjectDirName (symlinks resolved, non-ASCII
// and the 200-character cut with its hash); Claude Code's hooks for -p, for
// --resume <id> "/compact" and a PreCompact hook blocking it; Codex's
// hooks skipped untrusted, run with --dangerously-bypass-hook-trust, and
// run when trusted through config.toml entries made by CodexHookTrust;
// Codex's notify program; Codex running shell commands through its
// unified-exec tools when the fake answers with a function_call
// (Reply.Call): the function_call_output text of exec_command and
// write_stdin (codex_exec_test.go, importer/codex's doc).
//
// With HOSTTEST_EXPLORE=1 (explore_test.go): which fields of hand-written
// Claude transcripts and Codex rollouts are required and what happens
// without them, auto-compaction of both hosts, Codex PreCompact hooks
// (they cannot veto a compaction except with {"continue":false}, which
// ends the run with exit 1), and CodexHookTrust against the currentHash
// Codex's app-server reports.
package hosttest
