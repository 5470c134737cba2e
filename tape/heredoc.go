package tape

import (
	"encoding/json"
	"strings"

	"github.com/graft-project/graft/session"
)

// Agents write whole files through the shell as often as through a file
// tool: Codex's models above all, with `cat <<'EOF' > path` (its
// apply_patch edits, the heredoc creates). Such a call writes the file as
// surely as a Write does, and the Workspace Files block lists it so.

// isShellTool: a tool that runs a shell command; the exact names of the
// hosts first, without lower-casing (it runs for every call). Codex has
// four (importer/codex: shell, shell_command, exec_command, local_shell).
func isShellTool(name string) bool {
	switch name {
	case "Bash", "shell", "shell_command", "exec_command", "local_shell", "container.exec":
		return true
	}
	shell, _ := lowerIn(shellTools, name)
	return shell
}

// shellTools are isShellTool's names, lower-cased.
var shellTools = map[string]bool{"bash": true, "shell": true, "shell_command": true, "exec_command": true,
	"local_shell": true, "container.exec": true, "run_shell_command": true,
	"powershell": true} // Claude Code's shell on Windows

// shellCommand is the command line of a shell call's input: "command" or
// "cmd" as a string, or a Codex argument list (["bash", "-lc", "…"]).
func shellCommand(input json.RawMessage) string {
	return (&callInput{raw: input}).command()
}

// command is shellCommand of the input.
func (in *callInput) command() string {
	input := in.raw
	if len(input) == 0 {
		return ""
	}
	vals, ok := in.fields()
	if ok {
		vals = vals[whatCommand : whatCmd+1]
	} else {
		vals, ok = session.StringFields(input, "command", "cmd")
	}
	if ok {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	var args struct {
		Command json.RawMessage `json:"command"`
		Cmd     json.RawMessage `json:"cmd"`
	}
	if json.Unmarshal(input, &args) != nil {
		return ""
	}
	for _, raw := range []json.RawMessage{args.Command, args.Cmd} {
		var parts []string
		if len(raw) == 0 || json.Unmarshal(raw, &parts) != nil || len(parts) == 0 {
			continue
		}
		if len(parts) == 3 && (parts[1] == "-lc" || parts[1] == "-c") {
			return parts[2]
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// heredocWrite is one file a shell command writes from a here-document.
type heredocWrite struct {
	Path string
	Op   string // OpWrite, or OpEdit for an append (>> or tee -a)
	Text string // the here-document's lines
}

// heredocWrites are the files cmd writes from here-documents fed to cat or
// tee (`cat <<'EOF' > p`, `cat > p <<EOF`, `cat >> p <<-EOF`, `tee p
// <<EOF`), in order. A here-document fed to anything else (python3 - <<PY)
// writes no file the command names; /dev/ paths are not files.
func heredocWrites(cmd string) []heredocWrite {
	if !strings.Contains(cmd, "<<") {
		return nil
	}
	var out []heredocWrite
	lines := strings.Split(cmd, "\n")
	for k := 0; k < len(lines); k++ {
		line := strings.TrimRight(lines[k], "\r")
		at, body, end := heredocBody(lines, k)
		if at < 0 {
			continue
		}
		k = end
		path, op := heredocTarget(commandSegment(line, at))
		if path == "" {
			continue
		}
		out = append(out, heredocWrite{Path: path, Op: op, Text: strings.Join(body, "\n")})
	}
	return out
}

// heredocBody reads the here-document lines[k] opens: the index of its
// "<<" in the line (-1 when the line opens none, or names no delimiter),
// its lines, and the index of its delimiter's line (len(lines) when it is
// missing: the body runs to the end).
func heredocBody(lines []string, k int) (at int, body []string, end int) {
	line := strings.TrimRight(lines[k], "\r")
	at = heredocAt(line)
	if at < 0 {
		return -1, nil, k
	}
	delim, strip := heredocDelim(line[at+2:])
	if delim == "" {
		return -1, nil, k
	}
	for end = k + 1; end < len(lines); end++ {
		l := strings.TrimRight(lines[end], "\r")
		if strip {
			l = strings.TrimLeft(l, "\t")
		}
		if l == delim {
			break
		}
		body = append(body, l)
	}
	return at, body, end
}

// heredocAt is the index of the first "<<" of line that opens a
// here-document ("<<<" is a here-string), or -1.
func heredocAt(line string) int {
	from := 0
	for {
		i := strings.Index(line[from:], "<<")
		if i < 0 {
			return -1
		}
		i += from
		if i+2 < len(line) && line[i+2] == '<' {
			from = i + 3
			continue
		}
		return i
	}
}

// heredocDelim reads the delimiter after "<<": an optional "-" (leading
// tabs stripped), then a word, bare or quoted.
func heredocDelim(s string) (delim string, strip bool) {
	if strings.HasPrefix(s, "-") {
		strip, s = true, s[1:]
	}
	s = strings.TrimLeft(s, " \t")
	if s == "" {
		return "", strip
	}
	if q := s[0]; q == '\'' || q == '"' {
		if end := strings.IndexByte(s[1:], q); end > 0 {
			return s[1 : 1+end], strip
		}
		return "", strip
	}
	end := strings.IndexAny(s, " \t;&|<>)")
	if end < 0 {
		end = len(s)
	}
	return strings.Trim(s[:end], `\`), strip
}

// commandSegment is the simple command of line that holds position at:
// the text between the separators (;, &&, ||, |) around it, and the
// command after a pipe into tee.
func commandSegment(line string, at int) string {
	start, end := 0, len(line)
	for _, sep := range []string{";", "&&", "||"} {
		if i := strings.LastIndex(line[:at], sep); i >= 0 && i+len(sep) > start {
			start = i + len(sep)
		}
		if i := strings.Index(line[at:], sep); i >= 0 && at+i < end {
			end = at + i
		}
	}
	seg := line[start:end]
	// cat <<EOF | tee p: the pipe's far side names the file.
	if i := strings.Index(seg, "|"); i >= 0 {
		if rest := strings.TrimSpace(seg[i+1:]); strings.HasPrefix(rest, "tee ") {
			return rest
		}
		if at-start > i {
			seg = seg[i+1:]
		} else {
			seg = seg[:i]
		}
	}
	return seg
}

// heredocTarget is the file a cat or tee command segment writes: its
// stdout redirect (> or >>) or tee's first path; "" when it names none or
// the command is not cat or tee.
func heredocTarget(seg string) (path, op string) {
	fields := strings.Fields(seg)
	if len(fields) == 0 {
		return "", ""
	}
	switch fields[0] {
	case "cat":
		for k := 0; k < len(fields); k++ {
			f := fields[k]
			if strings.HasPrefix(f, "<<") || !strings.HasPrefix(f, ">") {
				continue // 2> or &> are other streams; <<EOF is the document
			}
			op = OpWrite
			rest := strings.TrimPrefix(f, ">")
			if strings.HasPrefix(rest, ">") {
				op, rest = OpEdit, rest[1:]
			}
			rest = strings.TrimPrefix(rest, "|")
			if rest == "" && k+1 < len(fields) {
				rest = fields[k+1]
			}
			return cleanTarget(rest), op
		}
	case "tee":
		op = OpWrite
		for _, f := range fields[1:] {
			switch {
			case f == "-a" || f == "--append":
				op = OpEdit
			case strings.HasPrefix(f, "-"):
			case strings.HasPrefix(f, "<") || strings.HasPrefix(f, ">"):
				return "", ""
			default:
				return cleanTarget(f), op
			}
		}
	}
	return "", ""
}

// cleanTarget is a redirect's path without its quotes; "" for a stream
// (&1) or a device.
func cleanTarget(p string) string {
	p = strings.Trim(p, `"'`)
	if p == "" || strings.HasPrefix(p, "&") || strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "<") {
		return ""
	}
	return p
}

// shellTouches are the files a shell call writes from here-documents or
// with PowerShell's cmdlets (shellWrites).
func shellTouches(input json.RawMessage) []fileTouch {
	return (&callInput{raw: input}).shellTouches()
}

// shellTouches is shellTouches of the input.
func (in *callInput) shellTouches() []fileTouch {
	ws := shellWrites(in.command())
	if len(ws) == 0 {
		return nil
	}
	out := make([]fileTouch, len(ws))
	for k, w := range ws {
		out[k] = fileTouch{Path: w.Path, Op: w.Op}
	}
	return out
}

// shellTexts are the here-documents and here-strings a shell call writes
// into files.
func shellTexts(input json.RawMessage) []string {
	var out []string
	for _, w := range shellWrites(shellCommand(input)) {
		out = append(out, w.Text)
	}
	return out
}

// printsIntoAFile: cmd sends a command's output into a file (`printf … >
// path`, `echo x >> notes.txt`, `jq … > out.json`): a command that only
// prints (readCommands) then writes, and is no read. A redirect inside
// quotes or a here-document's body is text; one to a stream (2>&1, >&2)
// or a device (/dev/null) writes no file; a here-document written with
// cat or tee is a file write already (shellTouches).
func printsIntoAFile(cmd string) bool {
	if !strings.Contains(cmd, ">") || len(heredocWrites(cmd)) > 0 {
		return false
	}
	lines := strings.Split(cmd, "\n")
	var quote byte // the quote open at the start of a line, 0 outside quotes
	for k := 0; k < len(lines); k++ {
		line, writes := lines[k], false
		quote = shellScan(line, quote, func(i int) bool {
			// ">>" is one redirect: its second '>' is read with the first.
			writes = line[i] == '>' && (i == 0 || line[i-1] != '>') && redirectTarget(line[i+1:]) != ""
			return !writes
		})
		if writes {
			return true
		}
		if quote != 0 {
			continue
		}
		// A here-document's body (python3 - <<PY … PY) is text.
		_, _, k = heredocBody(lines, k)
	}
	return false
}

// redirectTarget is the file a redirect writes, s being what follows its
// '>': "" for a stream (&1), a device (/dev/null), a process (>(…)) or a
// number (a comparison: (( n > 3 ))).
func redirectTarget(s string) string {
	s = strings.TrimPrefix(s, ">")
	s = strings.TrimPrefix(s, "|")
	s = strings.TrimLeft(s, " \t")
	end := strings.IndexAny(s, " \t;&|<>)\r")
	if end < 0 {
		end = len(s)
	}
	w := cleanTarget(s[:end])
	if w == "" || strings.HasPrefix(s, "(") || strings.Trim(w, "0123456789") == "" {
		return ""
	}
	return w
}

// commitSubjectRunes bounds the subject of a commit's message a call shows
// (git's own advice for a subject: at most 72 characters).
const commitSubjectRunes = 72

// messageMark opens the subject of a commit's message after the command.
const messageMark = " (message: "

// commitMessage is the subject of the message a here-document gives a git
// commit in cmd (git commit -F - <<EOF, --file=-, or -m "$(cat <<EOF …)"):
// the body's first line that is not blank; "" for any other command.
func commitMessage(cmd string) string {
	if !strings.Contains(cmd, "<<") || !strings.Contains(cmd, "git commit") {
		return ""
	}
	lines := strings.Split(cmd, "\n")
	for k := 0; k < len(lines); k++ {
		at, body, end := heredocBody(lines, k)
		if at < 0 {
			continue
		}
		line := strings.TrimRight(lines[k], "\r")
		seg := line[:at]
		if i := strings.LastIndex(seg, "git commit"); i >= 0 && !strings.ContainsAny(seg[i:], ";|") && !strings.Contains(seg[i:], "&&") {
			if flags := seg[i:]; strings.Contains(flags, " -F -") || strings.Contains(flags, " -F-") || strings.Contains(flags, "--file=-") || strings.Contains(flags, "--file -") || strings.Contains(flags, "$(cat") {
				for _, l := range body {
					if l = strings.TrimSpace(l); l != "" {
						return l
					}
				}
			}
		}
		k = end
	}
	return ""
}
