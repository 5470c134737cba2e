package codex

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// Issue 19, finding 9a: on a rollout that carries twins (event_msg
// user_message, or event_msg item_completed with a UserMessage item), a
// response_item user message is the human's only when its twin follows;
// without a twin it is injected, whatever its text. A rollout without any
// twin keeps the prefix rules.

// rolloutBuilder writes rollout lines.
type rolloutBuilder struct {
	lines []string
	sec   int
}

func (b *rolloutBuilder) add(typ string, payload any) *rolloutBuilder {
	p, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	b.sec++
	b.lines = append(b.lines, fmt.Sprintf(`{"timestamp":"2026-11-30T10:00:%02d.000Z","type":%q,"payload":%s}`, b.sec%60, typ, p))
	return b
}

func (b *rolloutBuilder) meta() *rolloutBuilder {
	return b.add("session_meta", map[string]any{"id": "0199b2c4-0000-7000-8000-000000000001", "cwd": "/w"})
}

func (b *rolloutBuilder) user(text string) *rolloutBuilder {
	return b.add("response_item", map[string]any{"type": "message", "role": "user", "content": []map[string]string{{"type": "input_text", "text": text}}})
}

func (b *rolloutBuilder) assistant(text string) *rolloutBuilder {
	return b.add("response_item", map[string]any{"type": "message", "role": "assistant", "content": []map[string]string{{"type": "output_text", "text": text}}})
}

// twin is the event_msg user_message of exec resume and older rollouts.
func (b *rolloutBuilder) twin(text string) *rolloutBuilder {
	return b.add("event_msg", map[string]any{"type": "user_message", "message": text, "images": []string{}})
}

// itemTwin is 0.169 exec's item_completed with a UserMessage item.
func (b *rolloutBuilder) itemTwin(text string) *rolloutBuilder {
	return b.add("event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "UserMessage", "id": "u1", "content": []map[string]any{{"type": "text", "text": text, "text_elements": []string{}}}}})
}

func (b *rolloutBuilder) bookkeeping() *rolloutBuilder {
	return b.add("event_msg", map[string]any{"type": "token_count", "info": nil})
}

func (b *rolloutBuilder) write(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rollout-2026-11-30T10-00-00-0199b2c4-0000-7000-8000-000000000001.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(b.lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// userEvents are the user/message events of a session: "line kind/name text".
func userEvents(t *testing.T, st *session.Store, id string) []string {
	t.Helper()
	var out []string
	for _, ev := range testfixtures.ReadSession(t, st, id) {
		if ev.Type == session.TypeUserMessage {
			who := ev.Source.Kind
			if ev.Source.Name != "" {
				who += "/" + ev.Source.Name
			}
			out = append(out, fmt.Sprintf("%s %s %s", ev.Meta["line"], who, ev.Text))
		}
	}
	return out
}

func TestTwinsDecideWhoSpoke(t *testing.T) {
	cases := []struct {
		name    string
		rollout *rolloutBuilder
		want    []string
	}{
		{
			"user_message twins: an unrecognised injection without a twin is not the human's",
			new(rolloutBuilder).meta().
				user("<environment_context><cwd>/w</cwd></environment_context>").                    // 2: before any twin: prefixes
				user("Fix the parser. Never touch main.").twin("Fix the parser. Never touch main."). // 3, 4
				assistant("Done.").
				user("<brand_new_context>You MUST obey the new rules.</brand_new_context>"). // 6: no twin
				assistant("Ok.").
				user("[redacted]").                            // 8: no twin, unrecognisable
				user("Now the tests.").twin("Now the tests."), // 9, 10
			[]string{
				"2 system/environment-context <environment_context><cwd>/w</cwd></environment_context>",
				"3 user Fix the parser. Never touch main.",
				"6 system/injected <brand_new_context>You MUST obey the new rules.</brand_new_context>",
				"8 system/injected [redacted]",
				"9 user Now the tests.",
			},
		},
		{
			"item_completed UserMessage twins (0.169 exec), bookkeeping between",
			new(rolloutBuilder).meta().
				user("hello").bookkeeping().itemTwin("hello"). // 2, 3, 4
				user("You must always answer in French.").     // 5: no twin
				assistant("ok").
				user("a recognised <user_shell_command>? no: plain text").itemTwin("a recognised <user_shell_command>? no: plain text"),
			[]string{
				"2 user hello",
				"5 system/injected You must always answer in French.",
				"7 user a recognised <user_shell_command>? no: plain text",
			},
		},
		{
			// Issue 24, item 13: Codex Desktop 0.104 writes two user items
			// (its AGENTS.md and environment context) before the first
			// task_started; unrecognisable (redacted, another language, a
			// new template), they are still not the human's: they stand
			// outside a turn.
			"user items before the first task_started are outside a turn",
			new(rolloutBuilder).meta().
				user("Instrucciones del repositorio: usa siempre pnpm.").                                      // 2
				user("[entorno redactado]").                                                                   // 3
				add("event_msg", map[string]any{"type": "task_started"}).                                      // 4
				user("Fix the login bug. Never push to main.").twin("Fix the login bug. Never push to main."), // 5, 6
			[]string{
				"2 system/injected Instrucciones del repositorio: usa siempre pnpm.",
				"3 system/injected [entorno redactado]",
				"5 user Fix the login bug. Never push to main.",
			},
		},
		{
			// A rollout without task_started (0.58): user items in a row,
			// the last with its twin; the others have none, so they are
			// injected once the twin shows the rollout has twins.
			"consecutive user items: only the one its twin follows is the human's",
			new(rolloutBuilder).meta().
				user("Reglas del proyecto: nunca borres datos.").      // 2
				user("[redacted environment]").                        // 3
				user("Generate tasks.md.").twin("Generate tasks.md."), // 4, 5
			[]string{
				"2 system/injected Reglas del proyecto: nunca borres datos.",
				"3 system/injected [redacted environment]",
				"4 user Generate tasks.md.",
			},
		},
		{
			"a twin written before its response_item",
			new(rolloutBuilder).meta().
				twin("first").user("first"). // 2, 3
				user("no twin here"),        // 4: decided when the next line comes
			[]string{"3 user first"},
		},
		{
			"no twins at all: the prefixes decide, as before",
			new(rolloutBuilder).meta().
				user("<environment_context>x</environment_context>").
				user("[redacted]").
				assistant("ok").
				user("You must keep it.").
				assistant("Kept."),
			[]string{
				"2 system/environment-context <environment_context>x</environment_context>",
				"3 user [redacted]",
				"5 user You must keep it.",
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, home := testfixtures.NewStore(t)
			sum, err := Import(Options{Store: st, Home: home, Path: c.rollout.write(t), ID: "cx"})
			if err != nil {
				t.Fatal(err)
			}
			if got := userEvents(t, st, "cx"); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("user messages:\n got %q\nwant %q", got, c.want)
			}
			if strings.Contains(c.name, "before its response_item") {
				if sum.WarningCount != 1 || !strings.Contains(sum.Warnings[0], "line 4") {
					t.Fatalf("warnings %q: want one naming the user message of line 4 that waits for the next line", sum.Warnings)
				}
			}
		})
	}
}

// The rollout imported in two runs, cut after every line (a run can end
// between a user message and its twin), gives the session one run gives.
func TestTwinsAcrossResumes(t *testing.T) {
	b := new(rolloutBuilder).meta().
		user("<environment_context>x</environment_context>").
		user("hello").bookkeeping().itemTwin("hello").
		user("injected without a twin").
		assistant("ok").
		user("second").twin("second").
		// Held together across a cut: two user items, then a turn.
		user("Reglas: nunca borres datos.").user("[redacted]").
		add("event_msg", map[string]any{"type": "task_started"}).
		user("third").twin("third").
		user("last, its twin not written yet")
	st := agreeAcrossCuts(t, b, userEvents, nil)
	if got := userEvents(t, st, "whole"); !reflect.DeepEqual(got, []string{
		"2 system/environment-context <environment_context>x</environment_context>",
		"3 user hello",
		"6 system/injected injected without a twin",
		"8 user second",
		"10 system/injected Reglas: nunca borres datos.",
		"11 system/injected [redacted]",
		"13 user third",
	}) {
		t.Fatalf("whole import: %q", got)
	}
}

// agreeAcrossCuts imports the rollout whole (session "whole"), then for
// each cut after a line in two runs, the first ending at the cut (its
// summary given to firstRun when not nil), and fails unless each gives
// the whole import's events (their times aside); show lists a session's
// events for the failure. It returns the store.
func agreeAcrossCuts(t *testing.T, b *rolloutBuilder, show func(*testing.T, *session.Store, string) []string, firstRun func(cut int, sum *importer.Summary)) *session.Store {
	t.Helper()
	whole := b.write(t)
	st, home := testfixtures.NewStore(t)
	if _, err := Import(Options{Store: st, Home: home, Path: whole, ID: "whole"}); err != nil {
		t.Fatal(err)
	}
	want := testfixtures.ReadSession(t, st, "whole")
	for k := range want {
		want[k].TS = ""
	}
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for cut := 1; cut < len(lines)-1; cut++ {
		id := fmt.Sprintf("cut%d", cut)
		src := filepath.Join(t.TempDir(), "growing.jsonl")
		if err := os.WriteFile(src, []byte(strings.Join(lines[:cut], "")), 0o600); err != nil {
			t.Fatal(err)
		}
		sum, err := Import(Options{Store: st, Home: home, Path: src, ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if firstRun != nil {
			firstRun(cut, sum)
		}
		if err := os.WriteFile(src, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Import(Options{Store: st, Home: home, Path: src, ID: id}); err != nil {
			t.Fatal(err)
		}
		got := testfixtures.ReadSession(t, st, id)
		for k := range got {
			got[k].TS = ""
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cut after line %d: the two runs give\n%s\nthe whole import\n%s", cut, strings.Join(show(t, st, id), "\n"), strings.Join(show(t, st, "whole"), "\n"))
		}
	}
	return st
}

// Issue 19, finding 10: graft append refuses a todo status outside
// pending, in_progress and completed; an importer keeps the host's list
// but maps such a status to pending, keeps the host's word in the content
// and says so.
func TestUnknownPlanStatusIsMapped(t *testing.T) {
	b := new(rolloutBuilder).meta().
		add("response_item", map[string]any{"type": "function_call", "name": "update_plan", "call_id": "p1",
			"arguments": `{"plan":[{"step":"read","status":"completed"},{"step":"wait","status":"blocked"}]}`})
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: b.write(t), ID: "cx"})
	if err != nil {
		t.Fatal(err)
	}
	var todos []session.Todo
	for _, ev := range testfixtures.ReadSession(t, st, "cx") {
		if ev.Type == session.TypeTodoWrite {
			todos = ev.Todos
		}
	}
	want := []session.Todo{{ID: "1", Content: "read", Status: session.TodoCompleted}, {ID: "2", Content: "wait [status: blocked]", Status: session.TodoPending}}
	if !reflect.DeepEqual(todos, want) {
		t.Fatalf("todos %+v, want %+v", todos, want)
	}
	if sum.WarningCount != 1 || !strings.Contains(sum.Warnings[0], `line 2: todo 2 status "blocked" is not pending, in_progress or completed: imported as pending`) {
		t.Fatalf("warnings %q", sum.Warnings)
	}
}
