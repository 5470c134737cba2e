package tape

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// An agent waiting on a long command polls it again and again (Codex's
// write_stdin with no input, its code mode's wait on a cell whose script
// polls the session): a run of those polls of one command, nothing else
// between them, is one line in Recent Actions, the newest poll's, with the
// count of the polls before it and the seq of the first. What the polls
// in between printed (progress: "in_progress 0 11 13") is no outcome; the
// newest poll's is. A poll that feeds input or interrupts is no poll, and
// a poll that failed is shown on its own.
func TestARunOfPollsOfOneCommandIsOneLine(t *testing.T) {
	running := func(n int) string {
		return fmt.Sprintf("Chunk ID: c%d\nWall time: 30.0 seconds\nProcess running with session ID 52223\nOutput:\nin_progress\t0\t%d\t13\n", n, n)
	}
	evs := []session.Event{human("Watch the checks."),
		call("exec_command", "e0", `{"cmd":"gh run watch 17","yield_time_ms":1000}`), result("exec_command", "e0", true, running(9)),
	}
	for i := 1; i <= 5; i++ {
		id := fmt.Sprintf("w%d", i)
		evs = append(evs, withMeta(call("write_stdin", id, `{"session_id":52223,"chars":"","yield_time_ms":30000}`), "execCommand", "gh run watch 17"), result("write_stdin", id, true, running(9+i)))
	}
	evs = append(evs, withMeta(call("write_stdin", "w6", `{"session_id":52223,"chars":"","yield_time_ms":30000}`), "execCommand", "gh run watch 17"),
		result("write_stdin", "w6", true, "Chunk ID: d\nWall time: 3.0 seconds\nProcess exited with code 0\nOutput:\ncompleted\tsuccess\t0\t14\t14\n"),
		withMeta(call("write_stdin", "w7", `{"session_id":52223,"chars":"q\n"}`), "execCommand", "gh run watch 17"), result("write_stdin", "w7", true, "Chunk ID: e\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\nbye\n"),
		call("exec_command", "e1", `{"cmd":"git push"}`), result("exec_command", "e1", true, "Everything up-to-date\n"),
	)
	tp, err := fold(t, "s", seqd(evs...)).Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := blockText(t, tp, "Recent Actions")
	if n := strings.Count(a, "write_stdin ok: gh run watch 17\n"); n != 1 {
		t.Fatalf("%d lines of polls of one command, want 1:\n%s", n, a)
	}
	if !strings.Contains(a, "write_stdin ok: gh run watch 17\n    → completed\tsuccess\t0\t14\t14\n    (polled 6 times from seq=") {
		t.Fatalf("the run's line lacks the newest poll's outcome or the count:\n%s", a)
	}
	if strings.Contains(a, "in_progress\t0\t1") {
		t.Fatalf("a poll's progress is shown:\n%s", a)
	}
	if !strings.Contains(a, `write_stdin ok: gh run watch 17 ← "q\n"`) {
		t.Fatalf("input to the command is not its own line:\n%s", a)
	}
}

// An interrupt of a long command keeps its mark (the command is clipped to
// leave it room), and is no poll: the polls before and after it are not
// one run.
func TestAnInterruptOfALongCommandIsNoPoll(t *testing.T) {
	long := "gh run watch " + strings.Repeat("--interval 30 ", 12)
	ev := withMeta(call("write_stdin", "w1", `{"session_id":7,"chars":"\u0003"}`), "execCommand", long)
	if what, waits := pollWhat(&ev, ""); !strings.HasSuffix(what, " (^C)") || waits {
		t.Fatalf("pollWhat = %q, %v: the interrupt's mark is clipped off, or it is taken for a poll", what, waits)
	}
	out := "Process running with session ID 7\nOutput:\nin_progress\n"
	b := fold(t, "s", seqd(human("Watch it."),
		withMeta(call("write_stdin", "p1", `{"session_id":7,"chars":""}`), "execCommand", long), result("write_stdin", "p1", true, out),
		withMeta(call("write_stdin", "p2", `{"session_id":7,"chars":""}`), "execCommand", long), result("write_stdin", "p2", true, out),
		withMeta(call("write_stdin", "i1", `{"session_id":7,"chars":"\u0003"}`), "execCommand", long), result("write_stdin", "i1", true, "Process exited with code 130\n"),
		withMeta(call("write_stdin", "p3", `{"session_id":7,"chars":""}`), "execCommand", long), result("write_stdin", "p3", false, "no such session\n"),
	))
	var polls []bool
	for _, a := range b.actions() {
		polls = append(polls, a.Poll)
	}
	if want := []bool{true, true, false, false}; !slices.Equal(polls, want) {
		t.Fatalf("Poll of the calls = %v, want %v (two polls, an interrupt, a failed poll)", polls, want)
	}
	tp, err := b.Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := blockText(t, tp, "Recent Actions")
	if !strings.Contains(a, "(polled 2 times from seq=") || strings.Count(a, "(^C)") != 1 || !strings.Contains(a, "FAILED") {
		t.Fatalf("the two polls are not one line, or the interrupt or the failed poll is folded into them:\n%s", a)
	}
}
