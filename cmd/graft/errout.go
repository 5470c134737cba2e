package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/graft"
)

// writeCounter counts the bytes a command wrote on stdout: an error after
// a command printed its own JSON (audit's failed report) is not printed as
// a second JSON document.
type writeCounter struct {
	w io.Writer
	n int64
}

func (c *writeCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// errorMessage is err's text without the "graft: " that the graft
// package's errors start with: main says "graft: " once.
func errorMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "graft: ")
}

// errorCode is err's stable code: "usage" for a usage error (exit 2),
// else graft.CodeOf's ("error" for exit 1).
func errorCode(err error) string {
	var ue usageError
	if errors.As(err, &ue) {
		return "usage"
	}
	c, _ := graft.CodeOf(err)
	return string(c)
}

// jsonError is what a command given --json prints on stdout when it fails.
type jsonError struct {
	Error jsonErrorBody `json:"error"`
}

type jsonErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// reportError prints err on stderr as "graft: <message>" and, when cmd was
// given --json and printed nothing on stdout yet, {"error": {"code",
// "message"}} on stdout (graft help exit-codes). It returns the exit code.
func (a *app) reportError(cmd *cobra.Command, err error, printed bool) int {
	msg := errorMessage(err)
	fmt.Fprintf(a.stderr, "graft: %s\n", msg)
	if !printed && (wantsJSON(cmd) || errorCode(err) == "usage" && argsWantJSON(a.args)) {
		if perr := a.printJSON(jsonError{Error: jsonErrorBody{Code: errorCode(err), Message: msg}}); perr != nil {
			fmt.Fprintf(a.stderr, "graft: printing the error as JSON: %v\n", perr)
		}
	}
	return exitCode(err)
}

// wantsJSON reports whether cmd has a --json flag that was set.
func wantsJSON(cmd *cobra.Command) bool {
	if cmd == nil {
		return false
	}
	f := cmd.Flags().Lookup("json")
	return f != nil && f.Value.String() == "true"
}
