package hookinstall

import (
	"path"
	"strings"
)

// ShellQuote returns s as one word of a POSIX shell command: unchanged when
// it holds only characters no shell treats specially, else in single quotes
// (each quote inside becomes quote, backslash, quote, quote).
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("_@%+=:,./-", r):
		default:
			safe = false
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command is the hook command graft installs for host: the graft program,
// then flags (graft's global flags, e.g. "--home", "/h"), then
// "hook <host>", each word shell-quoted.
func Command(host Host, program string, flags ...string) string {
	words := []string{ShellQuote(program)}
	for _, f := range flags {
		words = append(words, ShellQuote(f))
	}
	return strings.Join(append(words, "hook", string(host)), " ")
}

// IsGraftCommand reports whether a hook command is graft's hook for host:
// it equals installing (the command being installed, if any), or its
// program — the first word after any VAR=value assignments — has the base
// name "graft" and the words after it are what Command writes and nothing
// else: --home and --config with their values, "hook", the host's name
// in the registry (package hosts). Words are split the way a POSIX shell splits
// plain words, with '…', "…" and backslash quoting; a shell operator is a
// word of its own, so "graft hook claude-code && backup" is not graft's.
func IsGraftCommand(host Host, command, installing string) bool {
	if installing != "" && strings.TrimSpace(command) == strings.TrimSpace(installing) {
		return true
	}
	words, ok := shellWords(command)
	if !ok {
		return false
	}
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return false
	}
	if base := strings.TrimSuffix(path.Base(strings.ReplaceAll(words[0], `\`, "/")), ".exe"); base != "graft" {
		return false
	}
	// Then exactly what Command writes: --home and --config with their
	// values, "hook", the host, nothing after (issue 24, item 3: a
	// user's "graft hook claude-code && backup" is the user's).
	rest := words[1:]
	for len(rest) > 0 {
		switch w := rest[0]; {
		case w == "--home" || w == "--config":
			if len(rest) < 2 {
				return false
			}
			rest = rest[2:]
		case strings.HasPrefix(w, "--home=") || strings.HasPrefix(w, "--config="):
			rest = rest[1:]
		default:
			return len(rest) == 2 && rest[0] == "hook" && rest[1] == string(host)
		}
	}
	return false
}

// isAssignment reports whether w is a shell variable assignment NAME=value.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// shellWords splits s into words as sh does for plain words, quotes and
// backslashes (no expansions). ok is false for an unterminated quote.
func shellWords(s string) (words []string, ok bool) {
	var (
		cur    strings.Builder
		inWord bool
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					cur.WriteByte(s[i])
				}
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += 1 + j
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue // a line continuation
					}
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}
