package genai

import "strings"

// ShellOutput is a shell command's output as Gemini CLI's and Qwen Code's
// shell tool gives it to the model, read from its sections.
type ShellOutput struct {
	// Body is the output inside the sections: the command's own output
	// (none for the host's "(empty)"), then its process error, when one
	// is named.
	Body string
	// Failed: an exit code other than 0, a signal, or a process error.
	Failed bool
	// Exit is the exit code when it is not 0.
	Exit string
}

// ParseShellOutput reads out's sections: Gemini CLI 0.61.0's "Output:
// <output>", then "Error: <process error>", "Exit Code: <code>", "Signal:
// <signal>", "Background PIDs: …" and "Process Group PGID: <pid>", each
// only when it has one, the whole wrapped in <untrusted_context>; its
// earlier releases', which Qwen Code 0.24.4 keeps (without "Command: …" in
// its code mode): "Command: <command, maybe of several lines>",
// "Directory: …", "Output: …" and every section, "(none)" or 0 when empty.
// ok is false when out has not that shape.
func ParseShellOutput(out string) (so ShellOutput, ok bool) {
	t := strings.TrimSpace(out)
	if w, found := strings.CutPrefix(t, "<untrusted_context>"); found {
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(w), "</untrusted_context>"))
	}
	if strings.HasPrefix(t, "Command: ") || strings.HasPrefix(t, "Directory: ") {
		// The command's section ends at the "Directory: " line that an
		// "Output: " line follows.
		rest := t
		if !strings.HasPrefix(t, "Directory: ") {
			i := strings.Index(t, "\nDirectory: ")
			if i < 0 {
				return ShellOutput{}, false
			}
			rest = t[i+1:]
		}
		_, t, _ = strings.Cut(rest, "\n")
	}
	body, found := strings.CutPrefix(t, "Output: ")
	if !found {
		return ShellOutput{}, false
	}
	lines := strings.Split(body, "\n")
	k := len(lines)
sections:
	for k > 1 {
		name, v, _ := strings.Cut(strings.TrimSpace(lines[k-1]), ": ")
		none := v == "0" || v == "(none)" || v == "null"
		switch name {
		case "Process Group PGID", "Background PIDs":
		case "Signal":
			so.Failed = so.Failed || !none
		case "Exit Code":
			if !none {
				so.Failed, so.Exit = true, v
			}
		case "Error": // the first section: the output is above it
			if v == "(none)" {
				k--
			} else {
				so.Failed = true
			}
			break sections
		default:
			break sections
		}
		k--
	}
	if lines[0] == "(empty)" { // the host's word for no output
		lines, k = lines[1:], k-1
	}
	so.Body = strings.Join(lines[:k], "\n")
	return so, true
}
