package codex

import (
	"strconv"
	"strings"
)

// Exec is the header Codex's unified exec puts before a command's output
// (exec_command, write_stdin; doc.go), as ParseExec reads it.
type Exec struct {
	// OK is "Process exited with code N": N == 0; nil when the header
	// names no exit (the command still runs).
	OK *bool
	// Running is N of "Process running with session ID N".
	Running string
}

// maxExecHeader bounds the lines ParseExec reads for the header (0.115
// writes six: Command, Chunk ID, Wall time, Process …, Original token
// count, Output).
const maxExecHeader = 8

// ParseExec reads the header at the start of out (blank space before it
// skipped): an optional "Command: …" line (0.115), then a line opening with
// "Chunk ID: " or "Wall time: ", then header lines up to "Output:", within
// maxExecHeader lines. Of them, "Process exited with code N" gives OK and
// "Process running with session ID N" Running; the command's own output
// (after "Output:") is never read for them. found is false when out does
// not open with the header, or when neither an "Output:" line nor a
// process line comes within maxExecHeader lines (a text that only starts
// like it).
func ParseExec(out string) (e Exec, found bool) {
	t := strings.TrimLeft(out, " \t\r\n")
	if first, rest, _ := strings.Cut(t, "\n"); strings.HasPrefix(first, "Command: ") {
		t = rest // 0.115 names the command first
	}
	if !strings.HasPrefix(t, "Chunk ID: ") && !strings.HasPrefix(t, "Wall time: ") {
		return Exec{}, false
	}
	process := false
	for k := 0; k < maxExecHeader && t != ""; k++ {
		line, rest, _ := strings.Cut(t, "\n")
		t = rest
		line = strings.TrimSuffix(line, "\r")
		if line == "Output:" {
			return e, true
		}
		if code, isExit := strings.CutPrefix(line, "Process exited with code "); isExit && e.OK == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(code)); err == nil {
				ok := n == 0
				e.OK, process = &ok, true
			}
		}
		if id, isRunning := strings.CutPrefix(line, "Process running with session ID "); isRunning && e.Running == "" {
			e.Running, process = strings.TrimSpace(id), true
		}
	}
	return e, process
}
