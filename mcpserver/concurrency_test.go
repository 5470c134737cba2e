package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/graft"
)

// A graft_prepare of a large session, held in the middle of its fold, does
// not hold up graft_recall or graft_status on another session: the server
// locks per session, not per server.
func TestRecallAnswersWhilePrepareOfAnotherSessionRuns(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	f := newFixture(t, Options{}, graft.Options{FoldHook: func(source string, events int64) {
		if source != "big" {
			return
		}
		once.Do(func() {
			close(entered)
			<-release
		})
	}})
	if _, err := f.svc.Generate("big", gen.Options{Turns: 8, Events: 12000, Seed: 5}, nil); err != nil {
		t.Fatal(err)
	}
	prepared := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolPrepare, Arguments: map[string]any{"source": "big"}})
		if err != nil {
			t.Errorf("prepare of big: %v", err)
		}
		prepared <- res
	}()
	select {
	case <-entered:
	case <-time.After(60 * time.Second):
		close(release)
		t.Fatal("the prepare of big never reached its fold")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolRecall, Arguments: map[string]any{"session": "s", "seq": 1}})
	if err != nil || res.IsError {
		close(release)
		t.Fatalf("recall of s while big is being prepared: %v %v", err, res)
	}
	if res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolStatus, Arguments: map[string]any{}}); err != nil || res.IsError {
		close(release)
		t.Fatalf("status while big is being prepared: %v %v", err, res)
	}
	took := time.Since(start)
	select {
	case <-prepared:
		t.Fatal("the prepare of big finished while its fold was held")
	default:
	}
	close(release)
	res = <-prepared
	if res == nil || res.IsError {
		t.Fatalf("prepare of big after the release: %v", res)
	}
	t.Logf("recall and status answered in %v while big's prepare was held mid-fold", took)
}

// Tool calls on several sessions at once, and on one session from several
// callers, all answer as they would one at a time (run with -race).
func TestConcurrentToolCalls(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	ids := []string{"c1", "c2", "c3", "c4"}
	for _, id := range ids {
		f.appendEvents(id, seedEvents()...)
	}
	var wg sync.WaitGroup
	reviews := make([]PrepareOutput, len(ids))
	errs := make(chan error, 64)
	callOK := func(name string, args any, out any) {
		res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		switch {
		case err != nil:
			errs <- fmt.Errorf("%s %v: %w", name, args, err)
		case res.IsError:
			errs <- fmt.Errorf("%s %v: %s", name, args, text(res))
		case out != nil:
			if err := decode(res, out); err != nil {
				errs <- err
			}
		}
	}
	for i, id := range ids {
		wg.Add(4)
		go func() { defer wg.Done(); callOK(ToolPrepare, map[string]any{"source": id}, &reviews[i]) }()
		go func() { defer wg.Done(); callOK(ToolPrepare, map[string]any{"source": id}, nil) }()
		go func() { defer wg.Done(); callOK(ToolRecall, map[string]any{"session": id, "seq": bigSeq}, nil) }()
		go func() { defer wg.Done(); callOK(ToolStatus, map[string]any{}, nil) }()
	}
	wg.Wait()
	failIf(t, errs)
	commits := make([]CommitOutput, len(ids))
	for i := range ids {
		wg.Add(2)
		go func() {
			defer wg.Done()
			callOK(ToolCommit, map[string]any{"preparedId": reviews[i].PreparedID, "tapeHash": reviews[i].TapeHash}, &commits[i])
		}()
		go func() { defer wg.Done(); callOK(ToolRecall, map[string]any{"session": ids[i], "seq": 1}, nil) }()
	}
	wg.Wait()
	failIf(t, errs)
	for i := range ids {
		wg.Add(2)
		go func() { defer wg.Done(); callOK(ToolRevert, map[string]any{"target": commits[i].TargetID}, nil) }()
		go func() {
			defer wg.Done()
			callOK(ToolRecall, map[string]any{"session": commits[i].TargetID, "seq": 1}, nil)
		}()
	}
	wg.Wait()
	failIf(t, errs)
}

// decode reads a tool's structured output into out.
func decode(res *mcp.CallToolResult, out any) error {
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func failIf(t *testing.T, errs chan error) {
	t.Helper()
	for {
		select {
		case err := <-errs:
			t.Error(err)
		default:
			if t.Failed() {
				t.FailNow()
			}
			return
		}
	}
}

// sessionLocks take several ids in one order, skip "" and repeats, forget a
// lock no call holds, and give up a wait when its context ends.
func TestSessionLocks(t *testing.T) {
	var l sessionLocks
	ctx := context.Background()
	unlockAB, err := l.lock(ctx, "b", "", "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(l.m); got != 2 {
		t.Fatalf("%d locks held for a and b; want 2", got)
	}
	// Another session is free.
	unlockC, err := l.lock(ctx, "c")
	if err != nil {
		t.Fatalf("lock c while a and b are held: %v", err)
	}
	unlockC()
	// A held session is not: the wait ends with its context.
	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := l.lock(wctx, "c", "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock of held a: %v; want DeadlineExceeded", err)
	}
	// The opposite order waits, then gets both once they are released.
	got := make(chan func(), 1)
	go func() {
		u, err := l.lock(ctx, "b", "a")
		if err != nil {
			t.Error(err)
		}
		got <- u
	}()
	time.Sleep(20 * time.Millisecond)
	unlockAB()
	select {
	case u := <-got:
		u()
	case <-time.After(10 * time.Second):
		t.Fatal("lock of b and a never taken after their release")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.m) != 0 {
		t.Fatalf("locks left after every release: %v", l.m)
	}
}
