package main

import (
	"context"
	"errors"
	"os"
	"os/signal"

	"github.com/spf13/cobra"
)

// errInterrupted is the cause of a context cancelled by an interrupt.
var errInterrupted = errors.New("interrupted by SIGINT")

// interruptible is cmd's context, cancelled by the first interrupt (SIGINT,
// Ctrl-C): a long prepare, import or handoff stops at its next check with
// an error naming what it stopped (exit code 1), and a commit stops only
// before its journal record is written. After the first interrupt the
// default handling is back, so a second one ends graft at once. Call stop
// when the command is done.
func interruptible(cmd *cobra.Command) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(cmd.Context())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			signal.Stop(ch)
			cancel(errInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}
