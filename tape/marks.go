package tape

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The marks of key lines, error lines and decisions (tape/doc.go,
// Actions): word lists read by one scan of a line's words, lower-cased,
// with no pattern run over it (a fold and a Build read thousands of lines).

// countWords follow a number in a verdict: "87 tests", "0 failures",
// "2 files changed".
var countWords = markWords("test tests example examples spec specs doctest doctests properties passed passing failed failing failure failures error errors skipped pending warning warnings file files insertion insertions deletion deletions issue issues problem problems offense offenses")

// checkCount: line counts what a check found or ran, a number before one
// of countWords ("20 passed, 5 failed", "3 issues"), not the files,
// insertions and deletions of a commit's stat.
func checkCount(line string) bool {
	found := false
	eachWord(withoutPaths(line), func(w string, afterNumber bool) bool {
		found = afterNumber && countWords[w] && !statWords[w]
		return !found
	})
	return found
}

// statWords are the countWords of a commit's or a diff's stat.
var statWords = markWords("file files insertion insertions deletion deletions")

// verdictWords make a line a key line wherever they stand.
var verdictWords = markWords("pass passed fail failed failure error errors panic fatal exception traceback denied refused cannot unable undefined timeout warning created closed updated merged compiled finished success successful successfully succeeded")

// errorWords make a line the error line of a failure (also any word
// ending in "error" or "exception": TypeError, ENOENT… are words).
var errorWords = markWords("fatal panic fail failed failure traceback cannot unable denied refused undefined")

// decisionWords make a paragraph carry a choice or its reason.
var decisionWords = markWords("instead because since chose approach ignored workaround")

func markWords(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// keyPhrases are substrings of a lower-cased line that make it a key line.
var keyPhrases = append([]string{"could not", "not found", "no such", "timed out", "nothing to commit", "working tree clean",
	"untracked files", "your branch", "on branch", "->", "/pull/", "/merge_requests/", "/issues/", "/releases/tag/", "✓", "✗", "✔", "✘",
	// A merge stopped on its conflicts (TestGitsOperationInProgressIsAKeyLine),
	// and git's state above the paths of its status (gitStatePhrases).
	"unmerged paths", "merge conflict in", "automatic merge failed",
	// go test's package without tests: what the run did not test.
	"[no test files]"}, gitStatePhrases...)

// keyOpeners open a key line (trimmed, as written).
var keyOpeners = []string{"ok ", "ok\t", "FAIL", "PASS", "--- FAIL:", "--- PASS:", "--- SKIP:", "modified:", "new file:", "deleted:", "renamed:", "typechange:", "copied:",
	// git status's labels of an unmerged path (TestGitStatusKeepsTheStateAboveItsPaths)
	"both modified:", "both added:", "both deleted:", "added by us:", "added by them:", "deleted by us:", "deleted by them:"}

// gitStatePhrases are substrings of a lower-cased line by which git says
// the state of the repository above the paths of its status: an operation
// in progress, or how far the branch is from its upstream. They are an
// output's verdict: kept before the paths that fill the rest of the room
// (TestGitStatusKeepsTheStateAboveItsPaths).
var gitStatePhrases = []string{"you have unmerged paths", "still merging", "rebase in progress", "currently rebasing",
	"currently cherry-picking", "cherry-pick in progress", "currently reverting", "revert in progress", "currently bisecting",
	"your branch is ahead", "your branch is behind", "have diverged"}

// gitStateLine: line is one of git's words on the repository's state
// (gitStatePhrases).
func gitStateLine(line string) bool {
	lower := strings.ToLower(line)
	for _, p := range gitStatePhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// decisionPhrases are substrings of a lower-cased paragraph that carry a
// choice or its reason.
var decisionPhrases = []string{"so that", "rather than", "won't", "will not", "no need", "not needed", "root cause", "the fix", "the problem", "the issue", "decid", "choos"}

// eachWord calls fn with each run of letters and digits of s, lower-cased
// ASCII (other runes kept), and whether a number came just before it.
func eachWord(s string, fn func(w string, afterNumber bool) bool) {
	var buf [48]byte
	prevNumber := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += n
			continue
		}
		j, w, number := i, buf[:0], true
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			if r < utf8.RuneSelf {
				c := byte(r)
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				if c < '0' || c > '9' {
					number = false
				}
				w = append(w, c)
			} else {
				number = false
				w = utf8.AppendRune(w, unicode.ToLower(r))
			}
			j += n
		}
		if !fn(string(w), prevNumber) {
			return
		}
		prevNumber = number
		i = j
	}
}

// isKeyLine: a line of output that says how a command went: a verdict
// with its count, a word of success or failure, version control (a commit
// "[branch hash]", a push "a..b", "nothing to commit", "modified:"), a
// tracker's closed or created, a pull-request URL, a line by which a
// check says it failed (failedCheckLine: a check piped into head or tail
// exits as the filter does, and the host reports it ok).
func isKeyLine(line string) bool {
	t := strings.TrimSpace(line)
	if diffHeader(t) {
		return false
	}
	for _, o := range keyOpeners {
		if strings.HasPrefix(t, o) {
			return true
		}
	}
	if commitLine(t) || strings.Contains(t, "..") && hexRange(t) || failedCheckLine(t) {
		return true
	}
	lower := strings.ToLower(t)
	for _, p := range keyPhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	if i := strings.Index(lower, "found "); i >= 0 && i+6 < len(lower) && (lower[i+6] >= '0' && lower[i+6] <= '9' || strings.HasPrefix(lower[i+6:], "no ")) {
		return true // a linter's or a scanner's count: "found 5 suggestions", "found no issues"
	}
	if strings.Contains(lower, "branch") && (strings.Contains(lower, "set up") || strings.Contains(lower, "tracking") || strings.Contains(lower, "ahead") || strings.Contains(lower, "behind")) {
		return true
	}
	found := false
	eachWord(withoutPaths(t), func(w string, afterNumber bool) bool {
		found = verdictWords[w] || afterNumber && countWords[w]
		return !found
	})
	return found
}

// diffHeader: a line of a diff's header, "--- a/x", "+++ b/x", "---
// /dev/null", "index 703c470e..8a73cde9 100644": it names the file and its
// blobs, no outcome ("--- " opens go test's "--- FAIL: …", and two hashes
// with ".." a push's range).
func diffHeader(t string) bool {
	for _, p := range []string{"--- a/", "+++ b/", "--- /dev/null", "+++ /dev/null"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	rest, ok := strings.CutPrefix(t, "index ")
	f := strings.Fields(rest)
	return ok && len(f) > 0 && hexRange(f[0])
}

// withoutPaths is t without its words that name a path (a slash or a
// backslash in them): the words of "create mode 100644 tests/test_fail.py"
// are no count of tests and no verdict.
func withoutPaths(t string) string {
	if !strings.ContainsAny(t, `/\`) {
		return t
	}
	f := strings.Fields(t)
	kept := f[:0]
	for _, w := range f {
		if !strings.ContainsAny(w, `/\`) {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// isErrorLine: a line that names what went wrong.
func isErrorLine(line string) bool {
	lower := strings.ToLower(line)
	for _, p := range []string{"could not", "not found", "no such"} {
		if strings.Contains(lower, p) {
			return true
		}
	}
	if i := strings.Index(lower, "exit code "); i >= 0 && i+10 < len(lower) && lower[i+10] >= '1' && lower[i+10] <= '9' {
		return true
	}
	found := false
	eachWord(line, func(w string, _ bool) bool {
		found = errorWords[w] || strings.HasSuffix(w, "error") || strings.HasSuffix(w, "exception")
		return !found
	})
	return found
}

// isDecision: a paragraph that carries a choice or its reason.
func isDecision(p string) bool {
	lower := strings.ToLower(p)
	for _, d := range decisionPhrases {
		if strings.Contains(lower, d) {
			return true
		}
	}
	found := false
	eachWord(p, func(w string, _ bool) bool {
		found = decisionWords[w]
		return !found
	})
	return found
}

// commitLine: "[branch 3f2a1b9] message", as git commit prints it.
func commitLine(t string) bool {
	if !strings.HasPrefix(t, "[") {
		return false
	}
	end := strings.IndexByte(t, ']')
	if end < 0 {
		return false
	}
	f := strings.Fields(t[1:end])
	return len(f) >= 2 && isHex(f[len(f)-1], 7)
}

// hexRange: a word "a..b" or "a...b" of two hex hashes, as git push prints.
func hexRange(t string) bool {
	for _, w := range strings.Fields(t) {
		a, b, ok := strings.Cut(w, "..")
		if ok && isHex(a, 7) && isHex(strings.TrimPrefix(b, "."), 7) {
			return true
		}
	}
	return false
}

func isHex(s string, min int) bool {
	if len(s) < min || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// shortStatusLine: a line of git status --short (-s, --porcelain) naming
// a tracked file the work changed: two status letters of " MTADRCU" (not
// both blank), a blank, and the path, one word, or "a -> b" for a rename
// (git quotes a path with a blank in it). Untracked ("??") and ignored
// ("!!") files are not changes of the work.
func shortStatusLine(l string) bool {
	if len(l) < 4 || l[2] != ' ' || l[0] == ' ' && l[1] == ' ' {
		return false
	}
	for _, c := range l[:2] {
		if !strings.ContainsRune(" MTADRCU", c) {
			return false
		}
	}
	path := l[3:]
	if from, to, ok := strings.Cut(path, " -> "); ok {
		return oneWord(from) && oneWord(to)
	}
	return oneWord(path) || len(path) > 2 && path[0] == '"' && path[len(path)-1] == '"'
}

// oneWord: s is not empty and holds no blank.
func oneWord(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t")
}
