package main

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/graft"
)

// The first SIGINT cancels an interruptible command's context, with a
// cause its error names: a prepare held mid-fold stops with a message that
// says it was interrupted, an error exit (1), and no review stored.
func TestInterruptCancelsPrepare(t *testing.T) {
	cmd := &cobra.Command{}
	cmd.SetContext(context.Background())
	ctx, stop := interruptible(cmd)
	defer stop()
	svc, err := graft.Open(t.TempDir(), graft.Options{FoldHook: func(string, int64) {
		if ctx.Err() != nil {
			return
		}
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
			t.Errorf("sending SIGINT: %v", err)
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Error("SIGINT did not cancel the context")
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Generate("big", gen.Options{Turns: 8, Events: 12000, Seed: 7}, nil); err != nil {
		t.Fatal(err)
	}
	rv, err := svc.Prepare(ctx, "big", graft.PrepareOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted prepare: review %v, error %v; want context.Canceled", rv, err)
	}
	msg := errorMessage(err)
	if !strings.Contains(msg, "prepare of big cancelled") || !strings.Contains(msg, "interrupted by SIGINT") {
		t.Fatalf("message %q does not say the prepare was interrupted", msg)
	}
	if code := exitCode(err); code == 0 {
		t.Fatalf("exit code %d for an interrupted prepare", code)
	}
	if !errors.Is(context.Cause(ctx), errInterrupted) {
		t.Fatalf("cause %v; want errInterrupted", context.Cause(ctx))
	}
}
