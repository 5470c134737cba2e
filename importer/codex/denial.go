package codex

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// sandboxDenial reads the error Codex gives back for a command that ended
// nonzero in its sandbox (doc.go, "Sandbox denials") and returns the
// command's output after a few words that say where it failed and with
// which code, on its first line ("failed in sandbox LinuxSeccomp, exit code
// 128: [main 548dd49] …": a failure's first line is the one a reader keeps
// of it); found is false for any text it does not read whole, which is
// then kept as Codex wrote it.
//
// Codex writes the error in two forms. Display (codex-rs SandboxErr's
// #[error]): "failed in sandbox <kind> with execution error: sandbox
// denied exec error, exit code: N, stdout: S, stderr: E", where S and E
// are the raw texts (split at the last ", stderr: ", since S may hold it
// too). Debug: "… Denied { output: ExecToolCallOutput { exit_code: N,
// stdout: StreamOutput { text: "S", … }, stderr: …, timed_out: B } }",
// its texts escaped as Rust's Debug escapes a string, after "failed in
// sandbox <kind> with execution error: ", or inside exec_command's
// "CreateProcess { message: "Codex(Sandbox(Denied { … }))" }" and so
// escaped twice.
func sandboxDenial(t string) (text string, found bool) {
	const display = "sandbox denied exec error, exit code: "
	var lead, rest string
	if kindAndRest, ok := strings.CutPrefix(t, "failed in sandbox "); ok {
		kind, after, ok := strings.Cut(kindAndRest, " with execution error: ")
		if !ok || kind == "" || strings.ContainsAny(kind, " \n") {
			return "", false
		}
		lead, rest = "failed in sandbox "+kind, after
	} else if strings.HasPrefix(t, "exec_command failed") {
		i := strings.Index(t, ": CreateProcess { message: \"")
		if i < 0 {
			i = strings.Index(t, ": CreateSession { message: \"")
		}
		if i < 0 {
			return "", false
		}
		msg, _, ok := rustString(t, strings.IndexByte(t[i:], '"')+i)
		if !ok {
			return "", false
		}
		inner, ok := strings.CutPrefix(msg, "Codex(Sandbox(")
		if !ok {
			return "", false
		}
		lead, rest = "exec_command failed in the sandbox", inner
	} else {
		return "", false
	}
	if after, ok := strings.CutPrefix(rest, display); ok {
		code, out, ok := strings.Cut(after, ", stdout: ")
		if _, err := strconv.Atoi(code); err != nil || !ok {
			return "", false
		}
		stdout, stderr := out, ""
		if i := strings.LastIndex(out, ", stderr: "); i >= 0 {
			stdout, stderr = out[:i], out[i+len(", stderr: "):]
		}
		return withBody(lead+", exit code "+code, joinStreams(stdout, stderr)), true
	}
	f, ok := deniedOutput(rest)
	if !ok {
		return "", false
	}
	head := lead + ", exit code " + f.code
	if f.timedOut {
		head += ", timed out"
	}
	body := joinStreams(f.stdout, f.stderr)
	if body == "" {
		body = f.aggregated
	}
	return withBody(head, body), true
}

// withBody is "head: body", or head alone when the command printed nothing.
func withBody(head, body string) string {
	if body == "" {
		return head
	}
	return head + ": " + body
}

// joinStreams is stdout then stderr, on a line of its own.
func joinStreams(stdout, stderr string) string {
	if stdout == "" || stderr == "" || strings.HasSuffix(stdout, "\n") {
		return stdout + stderr
	}
	return stdout + "\n" + stderr
}

// denied is what deniedOutput reads of an ExecToolCallOutput.
type denied struct {
	code                       string
	stdout, stderr, aggregated string
	timedOut                   bool
}

// deniedOutput reads "Denied { output: ExecToolCallOutput { field: value,
// … } … }": exit_code, the text of the StreamOutputs stdout, stderr and
// aggregated_output, and timed_out; other fields are skipped. ok is false
// unless it reads an exit code and every field up to the struct's end.
func deniedOutput(s string) (d denied, ok bool) {
	const open = "Denied { output: ExecToolCallOutput { "
	if !strings.HasPrefix(s, open) {
		return denied{}, false
	}
	p := len(open)
	for {
		colon := strings.Index(s[p:], ": ")
		if colon <= 0 {
			return denied{}, false
		}
		name := s[p : p+colon]
		if strings.ContainsAny(name, " ,{}\"") {
			return denied{}, false
		}
		p += colon + 2
		if rest, isStream := strings.CutPrefix(s[p:], "StreamOutput { text: "); isStream {
			text, end, ok := rustString(s, len(s)-len(rest))
			if !ok {
				return denied{}, false
			}
			brace := strings.Index(s[end:], "}") // "truncated_after_lines: None }": no string in it
			if brace < 0 {
				return denied{}, false
			}
			p = end + brace + 1
			switch name {
			case "stdout":
				d.stdout = text
			case "stderr":
				d.stderr = text
			case "aggregated_output":
				d.aggregated = text
			}
		} else {
			end := strings.IndexAny(s[p:], ",}")
			if end < 0 {
				return denied{}, false
			}
			v := strings.TrimSpace(s[p : p+end])
			switch name {
			case "exit_code":
				if _, err := strconv.Atoi(v); err != nil {
					return denied{}, false
				}
				d.code = v
			case "timed_out":
				d.timedOut = v == "true"
			}
			p += end
		}
		switch {
		case strings.HasPrefix(s[p:], ", "):
			p += 2
		case strings.HasPrefix(s[p:], " }"), strings.HasPrefix(s[p:], "}"):
			return d, d.code != ""
		default:
			return denied{}, false
		}
	}
}

// rustString reads the string literal at s[i] ('"'), escaped as Rust's
// Debug escapes a string (\", \\, \n, \r, \t, \0, \', \u{…}), and returns
// its text and the index past its closing quote.
func rustString(s string, i int) (text string, end int, ok bool) {
	if i < 0 || i >= len(s) || s[i] != '"' {
		return "", 0, false
	}
	var b strings.Builder
	for k := i + 1; k < len(s); {
		c := s[k]
		switch c {
		case '"':
			return b.String(), k + 1, true
		case '\\':
			if k+1 >= len(s) {
				return "", 0, false
			}
			switch e := s[k+1]; e {
			case '"', '\\', '\'':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '0':
				b.WriteByte(0)
			case 'u':
				brace := strings.IndexByte(s[k:], '}')
				if k+2 >= len(s) || s[k+2] != '{' || brace < 0 {
					return "", 0, false
				}
				n, err := strconv.ParseUint(s[k+3:k+brace], 16, 32)
				if err != nil || !utf8.ValidRune(rune(n)) {
					return "", 0, false
				}
				b.WriteRune(rune(n))
				k += brace + 1
				continue
			default:
				return "", 0, false
			}
			k += 2
		default:
			b.WriteByte(c)
			k++
		}
	}
	return "", 0, false // no closing quote
}
