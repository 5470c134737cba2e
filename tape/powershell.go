package tape

import (
	"slices"
	"strings"
)

// On Windows an agent writes files through PowerShell as often as through
// a file tool (Gemini CLI's write_file refuses a path outside its
// workspace, and its agent falls back to the shell; Codex and Claude Code
// run PowerShell there): a here-string assigned to a variable and piped
// into Set-Content or Out-File, Add-Content to append, or a file's lines
// piped back into it after -replace. Such a call writes the file as surely
// as a Write does, as a here-document fed to cat does (heredoc.go).

// shellWrites are the files a shell command writes: from here-documents,
// then with PowerShell's cmdlets.
func shellWrites(cmd string) []heredocWrite {
	return append(heredocWrites(cmd), powershellWrites(cmd)...)
}

// powershellWrites are the files cmd writes with Set-Content, Add-Content
// or Out-File, in order, each with the text a here-string gave it where
// one did (`$c = @'` … `'@` then `$c | Set-Content p`, `@"` … `"@ |
// Out-File p`, `Set-Content -Path p -Value $c`). Add-Content and Out-File
// -Append append (OpEdit), and so does a pipeline that reads the file it
// writes (`(Get-Content p) -replace … | Set-Content p`). A path held in a
// variable ($path, "$env:TEMP\x") names no file the command shows; a
// `powershell -Command "…"` is read as the command it runs.
func powershellWrites(cmd string) []heredocWrite {
	if !namesWriteCmdlet(cmd) {
		return nil
	}
	var out []heredocWrite
	vars := map[string]string{} // a variable's name, lower-cased: the here-string it holds
	lines := strings.Split(cmd, "\n")
	for k := 0; k < len(lines); k++ {
		line := strings.TrimRight(lines[k], "\r")
		if at, _, end := heredocBody(lines, k); at >= 0 {
			k = end // a shell's here-document: text (a script it writes)
			continue
		}
		q := hereStringOpen(line)
		if q == 0 {
			for _, st := range psStatements(line) {
				out = append(out, psWrite(st, "", vars)...)
			}
			continue
		}
		var body []string
		j := k + 1
		closing := string(q) + "@"
		for ; j < len(lines); j++ {
			l := strings.TrimRight(lines[j], "\r")
			if strings.HasPrefix(l, closing) {
				break
			}
			body = append(body, l)
		}
		text := strings.Join(body, "\n")
		rest := ""
		if j < len(lines) {
			rest = strings.TrimRight(lines[j], "\r")[2:]
		}
		k = j
		head := strings.TrimSpace(line[:len(line)-2])
		if name, ok := strings.CutSuffix(head, "="); ok && strings.HasPrefix(name, "$") && strings.TrimSpace(rest) == "" {
			vars[strings.ToLower(strings.TrimSpace(name))] = text
			continue
		}
		if head == "" { // @'…'@ | Set-Content p
			sts := psStatements(rest)
			for n, st := range sts {
				given := ""
				if n == 0 {
					given = text
				}
				out = append(out, psWrite(st, given, vars)...)
			}
		}
	}
	return out
}

// namesWriteCmdlet: cmd names Set-Content, Add-Content or Out-File, in
// any case, read without a copy (every shell call of a session is asked).
func namesWriteCmdlet(cmd string) bool {
	for i := 3; i+5 <= len(cmd); i++ {
		if cmd[i] != '-' {
			continue
		}
		if strings.EqualFold(cmd[i-3:i+5], "out-file") {
			return true
		}
		if i+8 <= len(cmd) && strings.EqualFold(cmd[i+1:i+8], "content") {
			if v := cmd[i-3 : i]; strings.EqualFold(v, "set") || strings.EqualFold(v, "add") {
				return true
			}
		}
	}
	return false
}

// hereStringOpen is the quote of the here-string line opens (it ends with
// @' or @"), 0 when it opens none.
func hereStringOpen(line string) byte {
	t := strings.TrimRight(line, " \t")
	if len(t) < 2 || t[len(t)-2] != '@' {
		return 0
	}
	if q := t[len(t)-1]; q == '\'' || q == '"' {
		return q
	}
	return 0
}

// psStatements splits line at its semicolons outside quotes.
func psStatements(line string) []string {
	return psSplit(line, ';')
}

// psSplit splits s at sep outside quotes ('…' and "…"; a backtick escapes
// the next character inside double quotes and out).
func psSplit(s string, sep byte) []string {
	return psSplitAt(s, func(c byte) bool { return c == sep })
}

// psFields splits s at blanks outside quotes, each field as written.
func psFields(s string) []string {
	fs := psSplitAt(s, func(c byte) bool { return c == ' ' || c == '\t' })
	return slices.DeleteFunc(fs, func(f string) bool { return f == "" })
}

// psSplitAt splits s at each byte sep takes outside quotes.
func psSplitAt(s string, sep func(byte) bool) []string {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '`' && quote != '\'':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case sep(c):
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// psWrite is the file the statement st writes, if its pipeline ends in
// Set-Content, Add-Content or Out-File; given is the here-string piped
// into it, vars the here-strings the command assigned.
func psWrite(st, given string, vars map[string]string) []heredocWrite {
	fields := psFields(st)
	if len(fields) >= 2 {
		switch strings.ToLower(strings.TrimSuffix(fields[0], ".exe")) {
		case "powershell", "pwsh":
			return psCommandArg(fields[1:], vars)
		}
	}
	pipe := psSplit(st, '|')
	last := psFields(pipe[len(pipe)-1])
	if len(last) < 2 {
		return nil
	}
	cmdlet := strings.ToLower(last[0])
	if cmdlet != "set-content" && cmdlet != "add-content" && cmdlet != "out-file" {
		return nil
	}
	op := OpWrite
	if cmdlet == "add-content" {
		op = OpEdit
	}
	var path, value string
	var positional []string
	for k := 1; k < len(last); k++ {
		f := last[k]
		if !strings.HasPrefix(f, "-") || len(f) < 2 {
			positional = append(positional, f)
			continue
		}
		name := strings.ToLower(strings.TrimSuffix(f[1:], ":"))
		next := ""
		if k+1 < len(last) {
			next = last[k+1]
		}
		switch {
		case psParam(name, "path", "filepath", "literalpath", "pspath"):
			path = next
			k++
		case psParam(name, "value", "inputobject"):
			value = next
			k++
		case psParam(name, "append"):
			op = OpEdit
		case psParam(name, "encoding", "width", "stream", "filter", "include", "exclude", "credential", "delimiter"):
			k++
		}
	}
	if path == "" && len(positional) > 0 {
		path, positional = positional[0], positional[1:]
	}
	if value == "" && len(positional) > 0 && cmdlet != "out-file" {
		value = positional[0]
	}
	path = psPath(path)
	if path == "" {
		return nil
	}
	text := given
	if len(pipe) > 1 && text == "" {
		src := strings.TrimSpace(pipe[0])
		text = vars[strings.ToLower(src)]
		if strings.Contains(strings.ToLower(src), "get-content") && psReads(src, path) {
			op = OpEdit // the file's own lines, changed and written back
		}
	}
	if value != "" && text == "" {
		text = vars[strings.ToLower(value)]
	}
	return []heredocWrite{{Path: path, Op: op, Text: text}}
}

// psParam: the parameter name (lower-cased, without its dash) is one of
// names or a prefix of one that PowerShell would take for it (at least
// two letters: -fi, -enc).
func psParam(name string, names ...string) bool {
	for _, n := range names {
		if name == n || len(name) >= 2 && strings.HasPrefix(n, name) {
			return true
		}
	}
	return false
}

// psPath is a path as PowerShell gives it, unquoted: "" for one held in a
// variable or computed (a $, a parenthesis) or a device.
func psPath(p string) string {
	p = strings.Trim(p, `"'`)
	if p == "" || strings.Contains(p, "$") || strings.HasPrefix(p, "(") || strings.EqualFold(p, "NUL") || strings.HasPrefix(strings.ToLower(p), `\\.\`) {
		return ""
	}
	return cleanTarget(p)
}

// psReads: the pipeline's source reads the file path (Get-Content names
// it), case-insensitively as Windows compares paths.
func psReads(src, path string) bool {
	for _, f := range psFields(strings.NewReplacer("(", " ", ")", " ").Replace(src)) {
		if strings.EqualFold(psPath(f), path) {
			return true
		}
	}
	return false
}

// psCommandArg reads `powershell -Command "…"`: the argument after
// -Command (or -c), unquoted, as a command of its own.
func psCommandArg(args []string, vars map[string]string) []heredocWrite {
	for k, a := range args {
		if !strings.HasPrefix(a, "-") || !psParam(strings.ToLower(a[1:]), "command") && !strings.EqualFold(a, "-c") {
			continue
		}
		rest := strings.Join(args[k+1:], " ")
		if len(rest) >= 2 && (rest[0] == '"' && rest[len(rest)-1] == '"' || rest[0] == '\'' && rest[len(rest)-1] == '\'') {
			rest = rest[1 : len(rest)-1]
		}
		rest = strings.ReplaceAll(rest, `\"`, `"`)
		var out []heredocWrite
		for _, st := range psStatements(rest) {
			out = append(out, psWrite(st, "", vars)...)
		}
		return out
	}
	return nil
}
