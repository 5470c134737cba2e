package hosttest

import (
	"os"
	"strings"
	"testing"
)

func TestQwenOneTurn(t *testing.T) {
	h := Install(t)
	srv := NewQwenServer(t)
	q := h.NewQwen(t, srv)
	res := q.Print(t, "hello from hosttest").Ok(t)
	t.Logf("%s", res)
	t.Logf("requests:\n%s", srv.Describe())
	for _, p := range q.Sessions(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:\n%s", p, b)
	}
	for _, c := range srv.Completions(t) {
		t.Logf("system: %s\nlast user: %s\ntools: %v", clipText(c.System(), 300), clipText(c.LastUser(), 300), c.Tools)
	}
	if !strings.Contains(res.Stdout, "ok") {
		t.Errorf("stdout %q lacks the reply", res.Stdout)
	}
}
