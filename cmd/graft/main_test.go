package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run the real main as "graft" in a child process.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"graft":        func() { os.Exit(main1()) },
		"graft-rusage": rusageMain,
	})
}

// TestScripts runs testdata/script/*.txtar (beside this file), each with GRAFT_HOME in its own
// work directory.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("GRAFT_HOME", filepath.Join(env.WorkDir, "home"))
			// Nothing graft writes may land here (hook notices live in the
			// graft home: hook_notices.txtar checks it stays empty).
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, "state"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": cmdExitCode,
			"chop":     cmdChop,
		},
	})
}

// cmdExitCode runs a program like exec and checks its exit code:
//
//	exitcode N program [args...]
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := 0
	err = ts.Exec(args[1], args[2:]...)
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exitcode: running %s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with code %d, want %d", args[1], got, want)
	}
}

// cmdChop cuts the last N bytes of a file, the way a crash mid-append leaves
// a log (txtar files always end on a newline):
//
//	chop file N
func cmdChop(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: chop file N")
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || n < 0 {
		ts.Fatalf("chop: %q is not a byte count", args[1])
	}
	path := ts.MkAbs(args[0])
	fi, err := os.Stat(path)
	ts.Check(err)
	if n > fi.Size() {
		ts.Fatalf("chop: %s has %d bytes, cannot cut %d", args[0], fi.Size(), n)
	}
	ts.Check(os.Truncate(path, fi.Size()-n))
}
