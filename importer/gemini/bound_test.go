package gemini

import (
	"fmt"
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// turn is one turn as Gemini CLI records it (bench.GeminiTurn, shorter):
// a prompt, a reply with a tool call written again with its result, the
// result as a user message, the closing reply.
func turn(k int) []byte {
	return fmt.Appendf(nil, `{"id":"u%[1]d","timestamp":"2026-12-01T10:00:00.000Z","type":"user","content":[{"text":"turn %[1]d"}]}
{"$set":{"lastUpdated":"2026-12-01T10:00:00.000Z"}}
{"id":"g%[1]d","timestamp":"2026-12-01T10:00:01.000Z","type":"gemini","content":""}
{"id":"g%[1]d","timestamp":"2026-12-01T10:00:01.000Z","type":"gemini","content":"","toolCalls":[{"id":"c%[1]d","name":"run_shell_command","args":{},"status":"success","result":[{"functionResponse":{"id":"c%[1]d","name":"run_shell_command","response":{"output":"ok"}}}]}]}
{"id":"r%[1]d","timestamp":"2026-12-01T10:00:02.000Z","type":"user","content":[{"functionResponse":{"id":"c%[1]d","name":"run_shell_command","response":{"output":"ok"}}}]}
{"id":"e%[1]d","timestamp":"2026-12-01T10:00:03.000Z","type":"gemini","content":"done %[1]d"}
`, k)
}

// TestFollowDecodesWhatItUses: a follow of one turn on a long session's
// state (20,000 turns: 80,000 messages, 20,000 calls, the size of a
// 100 MiB session's) takes from the state file the entries that turn
// asks about, not the whole state: the marks and calls it holds in maps
// after the turn are the turn's. A bound in entries, not in time.
func TestFollowDecodesWhatItUses(t *testing.T) {
	const turns = 20000
	m := NewMapper(Config{})
	var data []byte
	for k := range turns {
		data = append(data, turn(k)...)
	}
	if _, _, err := importer.MapLines(data, 1, m, true, nil); err != nil {
		t.Fatal(err)
	}
	bin, err := m.AppendBinaryState(nil)
	if err != nil {
		t.Fatal(err)
	}
	next := NewMapper(Config{})
	if err := next.LoadBinaryState(bin); err != nil {
		t.Fatal(err)
	}
	var n int
	if _, _, err := importer.MapLines(turn(turns), 1, next, true, func(*session.Event) { n++ }); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("the new turn gave %d events, want 4", n)
	}
	if len(next.st.msgs) > 4 || len(next.st.done) > 1 || len(next.st.open) > 0 {
		t.Fatalf("after one turn on a state of %d marks and %d calls: %d marks and %d calls decoded into maps, want the turn's 4 and 1",
			next.st.base.len(), next.st.baseDone.len(), len(next.st.msgs), len(next.st.done))
	}
	// And the state it saves is the one a mapper that read it all saves.
	if _, _, err := importer.MapLines(turn(turns), 1, m, true, nil); err != nil {
		t.Fatal(err)
	}
	want, _ := m.AppendBinaryState(nil)
	got, _ := next.AppendBinaryState(nil)
	if string(got) != string(want) {
		t.Fatalf("the state saved after a follow (%d bytes) is not the state of a whole read (%d bytes)", len(got), len(want))
	}
	if len(bin) > 4<<20 {
		t.Fatalf("state file of %d bytes", len(bin))
	}
}
