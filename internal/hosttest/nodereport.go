package hosttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// A Node.js host (Gemini CLI) that hangs prints nothing and asks the fake
// server nothing: a run killed at its timeout says nothing of where it
// waited. Such a host runs with NODE_OPTIONS asking Node.js for a
// diagnostic report on reportSignal, written to a folder of the run's
// root; the timeout sends the signal before it kills (reportBeforeKill),
// and Result.Diagnosis sums the reports up: each process's command line,
// its JavaScript stack, and the libuv handles that keep its loop alive.

// nodeReportOptions is the NODE_OPTIONS value of a host whose reports go
// to dir.
func nodeReportOptions(dir string) string {
	return "--report-on-signal --report-signal=" + reportSignalName + " --report-directory=" + dir
}

const reportSignalName = "SIGUSR2"

// reportWait bounds how long the timeout waits for the reports before it
// kills; reportSettle is how long no new one must come once one did (a
// report takes milliseconds; Gemini CLI's launcher and the CLI write
// theirs at once).
const (
	reportWait   = 3 * time.Second
	reportSettle = 500 * time.Millisecond
)

// onlyReportLines tells whether stderr holds nothing but the lines Node.js
// prints while it writes a report.
func onlyReportLines(stderr string) bool {
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if l != "" && !strings.HasPrefix(l, "Writing Node.js report to file: ") && l != "Node.js report completed" {
			return false
		}
	}
	return true
}

// nodeReport is the part of a Node.js diagnostic report Diagnosis reads.
type nodeReport struct {
	Header struct {
		CommandLine []string `json:"commandLine"`
	} `json:"header"`
	JavascriptStack struct {
		Message string   `json:"message"`
		Stack   []string `json:"stack"`
	} `json:"javascriptStack"`
	Libuv []map[string]any `json:"libuv"`
}

// readNodeReports sums up the reports in dir and removes them; "" when
// there are none.
func readNodeReports(dir string) (string, error) {
	ents, err := os.ReadDir(dir) // a folder it cannot read is an error, not "no reports"
	if err != nil {
		return "", err
	}
	var paths []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "report.") && strings.HasSuffix(e.Name(), ".json") {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		var r nodeReport
		if err := json.Unmarshal(data, &r); err != nil {
			fmt.Fprintf(&b, "%s: not a report (%v), %d bytes\n", filepath.Base(p), err, len(data))
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", filepath.Base(p), strings.Join(r.Header.CommandLine, " "))
		if r.JavascriptStack.Message != "" || len(r.JavascriptStack.Stack) > 0 {
			fmt.Fprintf(&b, "  JavaScript: %s\n", r.JavascriptStack.Message)
			for k, f := range r.JavascriptStack.Stack {
				if k == 12 {
					fmt.Fprintf(&b, "    … %d more frames\n", len(r.JavascriptStack.Stack)-k)
					break
				}
				fmt.Fprintf(&b, "    %s\n", strings.TrimSpace(f))
			}
		}
		for _, h := range r.Libuv {
			// What keeps the loop alive: active, referenced handles.
			if h["is_active"] != true || h["is_referenced"] != true {
				continue
			}
			var parts []string
			for _, k := range []string{"type", "localEndpoint", "remoteEndpoint", "filename", "pid", "firesInMsFromNow", "fd", "signal"} {
				if v, ok := h[k]; ok {
					parts = append(parts, fmt.Sprintf("%s=%v", k, v))
				}
			}
			fmt.Fprintf(&b, "  handle %s\n", strings.Join(parts, " "))
		}
		if err := os.Remove(p); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}
