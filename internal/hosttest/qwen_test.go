package hosttest

import (
	"strings"
	"testing"
)

// TestQwenOneTurn: one turn of the real Qwen Code against QwenServer is
// two streamed chat-completions requests (the turn, then the managed
// memory extraction), the reply printed, a session file under
// $HOME/.qwen/projects/<dir>/chats/, and no request for another host.
func TestQwenOneTurn(t *testing.T) {
	h := Install(t)
	srv := NewQwenServer(t)
	q := h.NewQwen(t, srv)
	res := q.Print(t, "hello from hosttest").Ok(t)
	if !strings.Contains(res.Stdout, DefaultReply) {
		t.Errorf("stdout %q lacks the reply %q", res.Stdout, DefaultReply)
	}
	reqs := srv.Completions(t)
	if len(reqs) != 2 || reqs[0].IsMemory() || !reqs[1].IsMemory() {
		t.Fatalf("want the turn and the memory extraction:\n%s", srv.Describe())
	}
	if turns := srv.Turns(t); len(turns) != 1 || !turns[0].Contains("hello from hosttest") || turns[0].Model != "qwen-fake" {
		t.Errorf("the turn request lacks the prompt or the model:\n%s", srv.Describe())
	}
	if o := srv.Others(); len(o) > 0 {
		t.Errorf("requests other than chat completions:\n%s", srv.Describe())
	}
	if ss := q.Sessions(t); len(ss) != 1 || !strings.Contains(ss[0], "/chats/") {
		t.Errorf("session files %v, want one", ss)
	}
}
