package tape

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// "Address the PR feedback" is a turn agents are given every day: the
// agent fetches the pull request's review comments (gh api
// repos/o/r/pulls/N/comments, a review's, an issue's) and each comment is
// an item of the turn's work. Their JSON's last line is a comment's code
// suggestion or its link, and the key lines of such an output said
// nothing of what the reviewers asked; a real Codex session's tape lost
// the one comment it fixed ("Only fall back for inherited providers").
// The key lines of such an output are its comments: who, on which file
// and line, and the comment's title, as a review bot puts it in bold or a
// heading above its badges, or its first sentence.
func TestReviewCommentsAreTheKeyLinesOfTheirFetch(t *testing.T) {
	comments := []map[string]any{
		{"url": "https://api.github.com/repos/o/r/pulls/comments/1", "pull_request_review_id": 10, "diff_hunk": "@@ -1 +1 @@\n-a\n+b", "path": "crates/core/src/providers/mod.rs",
			"user": map[string]any{"login": "greptile-apps[bot]"}, "line": nil,
			"body": "<a href=\"#\"><img alt=\"P2\" src=\"https://example.com/p2.svg\"></a> The joined path preserves the `./` component of `store_dir`.\n\n```suggestion\n    parent.join(path)\n```"},
		{"url": "https://api.github.com/repos/o/r/pulls/comments/2", "pull_request_review_id": 11, "diff_hunk": "@@ -2 +2 @@", "path": "crates/core/src/providers/mod.rs",
			"user": map[string]any{"login": "coderabbitai[bot]"}, "line": 412,
			"body": "_🎯 Functional Correctness_ | _🟠 Major_ | _⚡ Quick win_\n\n**Only fall back for inherited providers.**\n\nIf a non-default profile defines the provider, this helper falls back to the top-level source.\n\n<details>\n<summary>Suggested fix</summary>\n\n```diff\n-    if profile != \"default\"\n```\n</details>"},
		{"url": "https://api.github.com/repos/o/r/pulls/comments/3", "pull_request_review_id": 12, "diff_hunk": "@@ -3 +3 @@", "path": "src/step.rs",
			"user": map[string]any{"login": "cursor[bot]"}, "line": 88,
			"body": "### Invalid argv passes has_command\n\n<!-- **Medium Severity** -->\n\n<!-- DESCRIPTION START -->An empty argv list is accepted.<!-- DESCRIPTION END -->"},
	}
	raw, err := json.Marshal(comments)
	if err != nil {
		t.Fatal(err)
	}
	out := "Chunk ID: 100b76\nWall time: 0.3247 seconds\nProcess exited with code 0\nOriginal token count: 3930\nOutput:\n" + string(raw)
	want := []string{
		"greptile-apps[bot] on crates/core/src/providers/mod.rs: The joined path preserves the `./` component of `store_dir`.",
		"coderabbitai[bot] on crates/core/src/providers/mod.rs:412: Only fall back for inherited providers.",
		"cursor[bot] on src/step.rs:88: Invalid argv passes has_command",
	}
	got := keyLines(out, true)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("key lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// gh pr view --json comments,reviews: the conversation's comments and
	// the reviews, by their authors (a review with no body says nothing).
	view := `{"comments":[{"author":{"login":"jdx"},"body":"Can you also cover the keepass provider?"}],"reviews":[{"author":{"login":"coderabbitai"},"state":"COMMENTED","body":"**Actionable comments posted: 1**"},{"author":{"login":"jdx"},"state":"APPROVED","body":""}],"url":"https://github.com/o/r/pull/582"}`
	if got := keyLines(view, true); strings.Join(got, "\n") != "jdx: Can you also cover the keepass provider?\ncoderabbitai (COMMENTED): Actionable comments posted: 1" {
		t.Fatalf("key lines of gh pr view --json comments,reviews:\n%s", strings.Join(got, "\n"))
	}
	// More comments than key lines: the line comments first, in order.
	var many []map[string]any
	for _, p := range []string{"a.go", "b.go", "c.go", "d.go", "e.go"} {
		many = append(many, map[string]any{"path": p, "user": map[string]any{"login": "rev"}, "body": "Fix " + p + " please.", "diff_hunk": "@@"})
	}
	raw, _ = json.Marshal(many)
	if got := keyLines(string(raw), true); len(got) != maxKeyLines || got[0] != "rev on a.go: Fix a.go please." {
		t.Fatalf("key lines of five comments: %q", got)
	}
	// JSON that is no comments keeps its line (TestAJSONOutputIsQuotedAsTheTextItHolds).
	if got := keyLines(`[{"name":"ci","body":"x","conclusion":"success"}]`, true); len(got) != 1 || !strings.HasPrefix(got[0], `[{"name"`) {
		t.Fatalf("key lines of JSON with no author: %q", got)
	}
}

// A script that prints the comments, then its own verdict: the comments
// are read past the script's own lines before them, and the verdict
// stays among the key lines (a real Codex session's PR inspector printed
// "PR #1067: no failing checks detected." after the threads).
func TestAVerdictAfterTheCommentsStays(t *testing.T) {
	out := "Script completed\nWall time 0.0 seconds\nOutput:\n{\n  \"review_comments\": [\n    {\"author\": {\"login\": \"cursor\"}, \"path\": \"src/a.rs\", \"body\": \"### Argv batching ignores the arg cap\"},\n    {\"author\": {\"login\": \"cursor\"}, \"path\": \"src/b.rs\", \"body\": \"### Workspace placeholder expands to nothing\"},\n    {\"author\": {\"login\": \"cursor\"}, \"path\": \"src/c.rs\", \"body\": \"### Third finding here\"},\n    {\"author\": {\"login\": \"cursor\"}, \"path\": \"src/d.rs\", \"body\": \"### Fourth finding here\"}\n  ]\n}\n---RESULT 2---\nPR #1067: no failing checks detected."
	got := keyLines(out, true)
	if len(got) != maxKeyLines || got[0] != "cursor on src/a.rs: Argv batching ignores the arg cap" || got[len(got)-1] != "PR #1067: no failing checks detected." {
		t.Fatalf("key lines: %q", got)
	}
}

// A review thread (GraphQL's reviewThreads, a PR inspector's
// review_threads) is its first comment with the thread's id and state:
// the agent replies to and resolves a thread by its id, and an unresolved
// one is what is left to do. A real Codex session's next steps named the
// two threads' ids.
func TestAReviewThreadIsNamedByItsID(t *testing.T) {
	out := `{"review_threads":[` +
		`{"id":"PRRT_done","isResolved":true,"path":"src/a.rs","line":7,"comments":{"nodes":[{"body":"### Old finding here","author":{"login":"cursor"}}]}},` +
		`{"id":"PRRT_kwDONvxy6M6Qh9-K","isResolved":false,"path":"src/step/batching.rs","line":63,"comments":{"nodes":[{"body":"### Argv batching ignores Linux arg cap\n\n**Medium Severity**","author":{"login":"cursor"}},{"body":"Fixed in e2436b5, thanks.","author":{"login":"jdx"}}]}}]}`
	// The most to do last: an older call's quote keeps its last key lines.
	want := "cursor on src/a.rs:7: Old finding here (thread PRRT_done, resolved)\ncursor on src/step/batching.rs:63: Argv batching ignores Linux arg cap (thread PRRT_kwDONvxy6M6Qh9-K, unresolved)"
	if got := strings.Join(keyLines(out, true), "\n"); got != want {
		t.Fatalf("key lines:\n%s\nwant:\n%s", got, want)
	}
	// A long title is clipped, the thread's id after it kept.
	long := strings.Replace(out, "### Old finding here", "### "+strings.Repeat("A finding with a long title ", 12), 1)
	got := keyLines(long, true)
	if !strings.HasSuffix(got[0], "… (thread PRRT_done, resolved)") || utf8.RuneCountInString(got[0]) > keyLineRunes {
		t.Fatalf("a long title's key line: %q (%d runes)", got[0], utf8.RuneCountInString(got[0]))
	}
}

// Agents slim the fetch with --jq: a JSON object per comment, one a line,
// the author's login a string or left out. Read so, a fetch gave only its
// first comment, or none.
func TestCommentsSlimmedWithJQAreRead(t *testing.T) {
	out := `{"path":"src/a.go","line":12,"user":"coderabbitai[bot]","body":"**Close the file on error.**"}` + "\n" +
		`{"path":"src/b.go","line":40,"body":"### Guard the nil map\n\nDetails."}` + "\n"
	want := "coderabbitai[bot] on src/a.go:12: Close the file on error.\ncomment on src/b.go:40: Guard the nil map"
	if got := strings.Join(keyLines(out, true), "\n"); got != want {
		t.Fatalf("key lines:\n%s\nwant:\n%s", got, want)
	}
	// A request's path and body in a log is no comment.
	req := `{"method":"POST","path":"/api/users","body":"Create the user named in the form.","status":201}`
	if got := keyLines(req, true); len(got) != 1 || !strings.HasPrefix(got[0], `{"method"`) {
		t.Fatalf("a request logged as JSON read as a comment: %q", got)
	}
}
