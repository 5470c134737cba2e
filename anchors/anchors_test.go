package anchors

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

func TestExtract(t *testing.T) {
	long := "You must " + strings.Repeat("x", 400)
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"english must", "Fix the bug. You must keep the API stable.", []string{"You must keep the API stable."}},
		{"english never case", "NEVER push to main", []string{"NEVER push to main"}},
		{"english always", "Always run gofmt before a commit!", []string{"Always run gofmt before a commit!"}},
		{"english do not", "Please do not touch vendor/.", []string{"Please do not touch vendor/."}},
		{"english do not, two spaces", "Do  not rename files", []string{"Do  not rename files"}},
		{"english do, not is not a marker", "It is what we do, not what we say", nil},
		{"english don't", "Don't delete the logs", []string{"Don't delete the logs"}},
		{"english don’t typographic", "Don’t delete the logs", []string{"Don’t delete the logs"}},
		{"english only", "Use only the standard library", []string{"Use only the standard library"}},
		{"english required", "Tests are required for every change", []string{"Tests are required for every change"}},
		{"english forbidden", "Force pushes are forbidden", []string{"Force pushes are forbidden"}},
		{"english word boundary: mustard", "Buy mustard and onlyfans-free snacks", nil},
		{"english word boundary: always_on is one word", "set always_on to true", nil},
		{"english no marker", "Please refactor the parser and add tests.", nil},
		{"chinese 必须", "请修复这个问题。必须保持接口不变。", []string{"必须保持接口不变。"}},
		{"chinese 不要", "不要修改数据库", []string{"不要修改数据库"}},
		{"chinese 禁止", "禁止强制推送！其他随意", []string{"禁止强制推送！"}},
		{"chinese 不得 务必 只能", "不得删除日志。务必先备份？只能用 Go 写", []string{"不得删除日志。", "务必先备份？", "只能用 Go 写"}},
		{"chinese no marker", "请帮我重构这个函数。", nil},
		{"russian нельзя", "Нельзя трогать миграции.", []string{"Нельзя трогать миграции."}},
		{"russian обязательно", "Сделай тесты. Обязательно прогони линтер.", []string{"Обязательно прогони линтер."}},
		{"russian никогда", "никогда не коммить секреты", []string{"никогда не коммить секреты"}},
		{"russian только", "Используй только stdlib", []string{"Используй только stdlib"}},
		{"russian не followed by a word", "Не меняй публичный API", []string{"Не меняй публичный API"}},
		{"russian не at the end is no marker", "А почему не", nil},
		// "не" before a verb that reports what happens (third person,
		// present or past: "не работает", "не запускается", "не нашёл") says
		// what the person sees, as English "doesn't" does; before an
		// imperative, an infinitive or "нужно" it is a rule.
		{"russian не before a report is no marker", "Ну не работает ничего. Сервер не запускается! Бот не ответил.", nil},
		{"russian не before an infinitive", "Не коммитить секреты в репозиторий.", []string{"Не коммитить секреты в репозиторий."}},
		{"russian не нужно", "Не нужно трогать миграции", []string{"Не нужно трогать миграции"}},
		{"russian не before a reflexive imperative", "Не торопись с релизом", []string{"Не торопись с релизом"}},
		{"russian не before a rule in the third person", "Не следует менять схему. Не допускается пуш в main.", []string{"Не следует менять схему.", "Не допускается пуш в main."}},
		{"russian не inside a word is no marker", "Неделя прошла, сделай отчёт", nil},
		{"russian no marker", "Сделай рефакторинг парсера.", nil},
		{"lines and list markers", "Plan:\n- never use sudo\n* always sign commits\n1. Only touch pkg/\nthanks", []string{"never use sudo", "always sign commits", "Only touch pkg/"}},
		{"other list markers", "• never use sudo\n+ always sign commits\n> only touch pkg/\n2) must pass CI", []string{"never use sudo", "always sign commits", "only touch pkg/", "must pass CI"}},
		{"fenced code skipped", "Look at this:\n```\nif x { must(panic) }\n```\nthen fix it", nil},
		// Pasted program output, unfenced: an error type and its colon, or a
		// test runner's, a compiler's or a tool's report line (rule 1).
		{"output lines skipped", "CI fails:\nE   ImportError: cannot import name 'init_workspace'\nFAILED tests/test_cli.py::test_init - ImportError: cannot import name\nTypeError: x must be a string\nerror: you must specify a path\nnpm ERR! cannot find module\nTraceback (most recent call last): should not happen\nfatal: cannot lock ref\nPlease fix it, and never skip the failing test.",
			[]string{"Please fix it, and never skip the failing test."}},
		{"diff lines and tool placeholders skipped", "-use policy::{classify_intent, Policy};\n+use policy::{\n+    let must_keep = 1;\n  (use \"git restore --staged <file>...\" to unstage)\n(no output)\n-never commit keys\n- Never push to main.",
			[]string{"-never commit keys", "Never push to main."}},
		{"standing-rule words", "Yes, commit the changes then update the README and commit that before moving forward with more tasks.\nFrom now on run the linter first. Add the tests. Going forward, sign your commits. Every time you push, tag it.",
			[]string{"Yes, commit the changes then update the README and commit that before moving forward with more tasks.", "From now on run the linter first.", "Going forward, sign your commits.", "Every time you push, tag it."}},
		// A test runner's dump of a frame's locals and a tool's log line
		// behind its emoji or bracket ("🦋  warn …", "[WARN] …") are
		// output too; a sentence that has "=" inside stays (rule 1).
		{"locals and tagged log lines skipped", "self = _SubParsersAction(option_strings=[], required=True, help=None)\ntmp_path = PosixPath('/tmp/pytest-of-runner')\n🦋  warn If you meant to do a normal release you should revert these changes\n[WARN] you must set NODE_ENV\n⚠️ info: only one instance allowed\nKeep x = 1 in the config, it must not change.\nWarn users when they must re-login.\n- warn the admin, never the user\n⚠️ Error messages must be in English.",
			[]string{"Keep x = 1 in the config, it must not change.", "Warn users when they must re-login.", "warn the admin, never the user", "⚠️ Error messages must be in English."}},
		{"an error named in prose stays", "Never swallow an error: return it.", []string{"Never swallow an error: return it."}},
		{"duplicates after normalize kept once", "Never push. never   push!", []string{"Never push."}},
		{"version numbers do not split", "You must use go1.26.8 only", []string{"You must use go1.26.8 only"}},
		{"capped with ellipsis", long, []string{string([]rune(long)[:MaxRunes-1]) + "…"}},
		// A saying whose head, once capped, holds no letter or digit (a
		// rule of box-drawing characters before the words) says nothing
		// and no text holds it: dropped (found by FuzzExtract).
		{"capped to no word dropped", strings.Repeat("━", 400) + "必须保持API。Never push.", []string{"Never push."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Extract(tc.text)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Extract(%q)\n got %q\nwant %q", tc.text, got, tc.want)
			}
			for _, c := range got {
				if n := utf8.RuneCountInString(c); n > MaxRunes {
					t.Errorf("constraint has %d runes, cap is %d", n, MaxRunes)
				}
			}
		})
	}
}

func TestExtractDeterministic(t *testing.T) {
	text := "必须保持稳定。Never push. Нельзя трогать. Always test.\n不要删除"
	first := Extract(text)
	for i := 0; i < 20; i++ {
		if got := Extract(text); !reflect.DeepEqual(got, first) {
			t.Fatalf("run %d: %q, first run %q", i, got, first)
		}
	}
	if len(first) != 5 {
		t.Fatalf("want 5 constraints, got %q", first)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Never push to MAIN!", "never push to main"},
		{"  never\tpush,  to main ", "never push to main"},
		{"Don't", "don t"},
		{"必须保持接口不变。", "必须保持接口不变"},
		{"НЕЛЬЗЯ трогать…", "нельзя трогать"},
		{"", ""},
		{"...", ""},
	}
	for _, tc := range tests {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// normalizeRef is Normalize through the unicode tables alone, rune by
// rune: the ASCII fast path must agree with it on every byte.
func normalizeRef(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		space = true
	}
	return b.String()
}

func TestNormalizeASCIIAgreesWithUnicode(t *testing.T) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	inputs := []string{string(all), "Ünïcode MIXED with ASCII 42 and ÅNGSTRÖM", "\xff\xfeA", "İstanbul ǅ ǈ K"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for k := range b {
			b[k] = all[r.IntN(len(all))]
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		if got, want := Normalize(in), normalizeRef(in); got != want {
			t.Fatalf("Normalize(%q) = %q, the unicode tables give %q", in, got, want)
		}
	}
}

func o(gen int, sess string, seq int64) session.Origin {
	return session.Origin{Generation: gen, Session: sess, Seq: seq}
}

func TestMergeAcrossGenerations(t *testing.T) {
	// Generation 1 says two constraints; generation 3 says one of them again
	// (different case and punctuation) and a new one.
	gen1 := Merge(nil, "Never push to main. You must keep the API stable.", o(1, "s1", 4))
	gen3 := Merge(gen1, "never push to MAIN!! Always run the tests.", o(3, "s3", 12))
	want := []session.Constraint{
		{Text: "Never push to main.", Origin: o(1, "s1", 4), Also: []session.Origin{o(3, "s3", 12)}},
		{Text: "You must keep the API stable.", Origin: o(1, "s1", 4)},
		{Text: "Always run the tests.", Origin: o(3, "s3", 12)},
	}
	if !reflect.DeepEqual(gen3, want) {
		t.Fatalf("merge:\n got %+v\nwant %+v", gen3, want)
	}
	// Merge does not modify what it was given.
	if len(gen1[0].Also) != 0 || len(gen1) != 2 {
		t.Fatalf("Merge modified its input: %+v", gen1)
	}
	// Said a third time in the same origin: no duplicate in Also.
	again := Merge(gen3, "Never push to main", o(3, "s3", 12))
	if !reflect.DeepEqual(again, gen3) {
		t.Fatalf("same origin again changed the list:\n got %+v\nwant %+v", again, gen3)
	}
	// Said at the origin itself again: Also stays empty.
	self := Merge(gen1, "You must keep the API stable", o(1, "s1", 4))
	if len(self[1].Also) != 0 {
		t.Fatalf("the origin itself was listed in Also: %+v", self[1])
	}
}

func TestMergeKeepsOldestWhenAnOlderOriginComesLater(t *testing.T) {
	cs := Merge(nil, "Never push to main.", o(3, "s3", 9))
	cs = Merge(cs, "never push to main", o(1, "s1", 2))
	if cs[0].Origin != o(1, "s1", 2) {
		t.Fatalf("origin = %v, want gen 1", cs[0].Origin)
	}
	if !reflect.DeepEqual(cs[0].Also, []session.Origin{o(3, "s3", 9)}) {
		t.Fatalf("also = %v, want [gen 3]", cs[0].Also)
	}
}

// Seqs compare only within one session: in one generation, a constraint
// said in another session is not older because its seq is lower.
func TestMergeSeqsOfTwoSessionsDoNotCompare(t *testing.T) {
	cs := Merge(nil, "Never push to main.", o(2, "sa", 9))
	cs = Merge(cs, "never push to main", o(2, "sb", 2))
	if cs[0].Origin != o(2, "sa", 9) || !reflect.DeepEqual(cs[0].Also, []session.Origin{o(2, "sb", 2)}) {
		t.Fatalf("got origin %v also %v; want the first saying (sa seq 9) with sb seq 2 in Also", cs[0].Origin, cs[0].Also)
	}
}

// An inherited list may already name, in Also, an origin older than its
// Origin (written by an older build, or edited): when that origin is said
// again it becomes the Origin and is not also left in Also.
func TestMergePromotesAnOriginListedInAlso(t *testing.T) {
	in := []session.Constraint{{Text: "Never push.", Origin: o(3, "s3", 4), Also: []session.Origin{o(1, "s1", 2), o(4, "s4", 1)}}}
	out := Merge(in, "Never push.", o(1, "s1", 2))
	want := []session.Constraint{{Text: "Never push.", Origin: o(1, "s1", 2), Also: []session.Origin{o(4, "s4", 1), o(3, "s3", 4)}}}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("got %+v, want %+v", out, want)
	}
}

func TestMergeNoMarkerAddsNothing(t *testing.T) {
	in := []session.Constraint{{Text: "Never push.", Origin: o(1, "s1", 2)}}
	out := Merge(in, "Please refactor the parser.", o(2, "s2", 5))
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("got %+v, want %+v", out, in)
	}
}

func TestAnchorLine(t *testing.T) {
	tests := []struct {
		origin session.Origin
		want   string
	}{
		{o(1, "sess-a", 2282), "[ANCHOR] Core constraints originate from generation 1 session sess-a, seq=2282; re-read it first when in doubt. The HARD CONSTRAINTS below are copies extracted from the user's own words, not something this generation's user just said."},
		{o(3, "s3", 7), "[ANCHOR] Core constraints originate from generation 3 session s3, seq=7; re-read it first when in doubt. The HARD CONSTRAINTS below are copies extracted from the user's own words, not something this generation's user just said."},
	}
	for _, tc := range tests {
		if got := AnchorLine(tc.origin); got != tc.want {
			t.Errorf("AnchorLine(%v)\n got %q\nwant %q", tc.origin, got, tc.want)
		}
	}
}

func TestOldest(t *testing.T) {
	tests := []struct {
		name string
		cs   []session.Constraint
		want session.Origin
		ok   bool
	}{
		{"empty", nil, session.Origin{}, false},
		{"lowest generation wins", []session.Constraint{{Origin: o(3, "s3", 1)}, {Origin: o(1, "s1", 50)}, {Origin: o(2, "s2", 3)}}, o(1, "s1", 50), true},
		{"same generation: lowest seq", []session.Constraint{{Origin: o(1, "s1", 9)}, {Origin: o(1, "s1", 4)}}, o(1, "s1", 4), true},
		{"same generation, two sessions: lowest session id, then seq", []session.Constraint{{Origin: o(2, "sb", 1)}, {Origin: o(2, "sa", 9)}, {Origin: o(2, "sa", 7)}}, o(2, "sa", 7), true},
	}
	for _, tc := range tests {
		got, ok := Oldest(tc.cs)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Oldest = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestHolds(t *testing.T) {
	longOrigin := "Rules: you must " + strings.Repeat("keep everything stable ", 30) + "always."
	capped := Extract(longOrigin)
	if len(capped) != 1 {
		t.Fatalf("want one capped constraint, got %q", capped)
	}
	tests := []struct {
		name, origin, constraint string
		want                     bool
	}{
		{"verbatim", "Fix it. Never push to main.", "Never push to main.", true},
		{"case and punctuation", "fix it; NEVER push -- to main!!", "Never push to main.", true},
		{"edited origin", "Fix it. Never push to dev.", "Never push to main.", false},
		{"chinese", "请修复。必须保持接口不变。", "必须保持接口不变。", true},
		{"capped constraint still holds", longOrigin, capped[0], true},
		{"empty constraint never holds", "anything", "", false},
	}
	for _, tc := range tests {
		if got := Holds(tc.origin, tc.constraint); got != tc.want {
			t.Errorf("%s: Holds = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("Never push. 必须保持。Не меняй API\n```\nmust\n```")
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range Extract(text) {
			if utf8.RuneCountInString(c) > MaxRunes {
				t.Fatalf("constraint over the cap: %q", c)
			}
			if c == "" {
				t.Fatal("empty constraint")
			}
			if !utf8.ValidString(text) {
				continue
			}
			if !Holds(text, c) {
				t.Fatalf("extracted %q does not hold in its own text %q", c, text)
			}
		}
	})
}

// sentencesRef is the rune-slice split of one line that Extract used
// before issue 19 (finding 8): sentences must give the same strings.
func sentencesRef(line string) []string {
	var out []string
	rs := []rune(line)
	start := 0
	for i, r := range rs {
		end := false
		switch r {
		case '。', '！', '？':
			end = true
		case '.', '!', '?':
			end = i+1 == len(rs) || unicode.IsSpace(rs[i+1])
		}
		if end {
			out = append(out, string(rs[start:i+1]))
			start = i + 1
		}
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

func TestSentencesAgreesWithRuneSplit(t *testing.T) {
	alphabet := []string{"a", "Z", " ", ".", "!", "?", "。", "！", "？", "\u00a0", "\u3000", "\t", "é", "必", "\xff", "\xe3\x80", "..", ". "}
	r := rand.New(rand.NewPCG(19, 8))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for k := r.IntN(12); k >= 0; k-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		line := b.String()
		got := slices.Collect(sentences(line))
		want := sentencesRef(line)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("sentences(%q)\n got %q\nwant %q", line, got, want)
		}
	}
}

// mergeRef is Merge as it was before issue 19 (finding 8): it copied the
// whole list and rebuilt its index for every message. Set must give the
// same lists.
func mergeRef(inherited []session.Constraint, text string, origin session.Origin) []session.Constraint {
	out := make([]session.Constraint, len(inherited))
	index := make(map[string]int, len(inherited))
	for k, c := range inherited {
		c.Also = append([]session.Origin(nil), c.Also...)
		out[k] = c
		key := Normalize(c.Text)
		if _, dup := index[key]; !dup {
			index[key] = k
		}
	}
	for _, s := range Extract(text) {
		key := Normalize(s)
		k, ok := index[key]
		if !ok {
			index[key] = len(out)
			out = append(out, session.Constraint{Text: s, Origin: origin})
			continue
		}
		c := &out[k]
		if older(origin, c.Origin) {
			prev := c.Origin
			c.Origin, c.Text = origin, s
			kept := c.Also[:0]
			for _, x := range c.Also {
				if x != origin {
					kept = append(kept, x)
				}
			}
			c.Also = kept
			c.Also = addOriginRef(c.Also, prev)
			continue
		}
		if origin != c.Origin {
			c.Also = addOriginRef(c.Also, origin)
		}
	}
	return out
}

func addOriginRef(list []session.Origin, o session.Origin) []session.Origin {
	for _, x := range list {
		if x == o {
			return list
		}
	}
	return append(list, o)
}

// TestSetAgreesWithMerge folds random messages (a small vocabulary, so
// constraints repeat; origins from three sessions and generations, in any
// order, repeats included) through a Set and through mergeRef.
func TestSetAgreesWithMerge(t *testing.T) {
	vocab := []string{"Never push.", "never PUSH!", "You must test.", "Always lint.", "必须保持。", "Нельзя трогать.", "Just a note.", "Only Go."}
	sessions := []string{"s1", "s2", "s3"}
	r := rand.New(rand.NewPCG(19, 80))
	for round := 0; round < 500; round++ {
		var ref []session.Constraint
		// An inherited list, as a graft/origin carries it (maybe with
		// origins in Also that are said again below).
		for k := r.IntN(4); k > 0; k-- {
			ref = mergeRef(ref, vocab[r.IntN(len(vocab))], o(1+r.IntN(2), sessions[r.IntN(3)], int64(1+r.IntN(30))))
		}
		set := NewSet(deepCopy(ref))
		for m := r.IntN(40); m > 0; m-- {
			var b strings.Builder
			for k := r.IntN(4); k >= 0; k-- {
				b.WriteString(vocab[r.IntN(len(vocab))] + " ")
			}
			origin := o(1+r.IntN(3), sessions[r.IntN(3)], int64(1+r.IntN(30)))
			ref = mergeRef(ref, b.String(), origin)
			if dropped := set.Add(b.String(), origin, 0); dropped != 0 {
				t.Fatalf("round %d: Add without a cap dropped %d", round, dropped)
			}
			if got := set.List(); !reflect.DeepEqual(nilAlso(got), nilAlso(ref)) {
				t.Fatalf("round %d: after %q at %v\n set  %+v\n merge %+v", round, b.String(), origin, got, ref)
			}
		}
	}
}

func deepCopy(cs []session.Constraint) []session.Constraint {
	out := make([]session.Constraint, len(cs))
	for k, c := range cs {
		c.Also = append([]session.Origin(nil), c.Also...)
		out[k] = c
	}
	return out
}

// nilAlso makes empty Also lists nil, for DeepEqual.
func nilAlso(cs []session.Constraint) []session.Constraint {
	out := deepCopy(cs)
	for k := range out {
		if len(out[k].Also) == 0 {
			out[k].Also = nil
		}
	}
	return out
}

// A constraint said again at an origin its Also already holds (past the
// length where Set indexes an Also list) is not listed twice.
func TestSetLongAlsoHasNoDuplicates(t *testing.T) {
	set := NewSet(nil)
	for seq := int64(1); seq <= 40; seq++ {
		set.Add("Never push.", o(2, "s", seq), 0)
	}
	for seq := int64(2); seq <= 40; seq += 3 {
		set.Add("never push", o(2, "s", seq), 0)
	}
	got := set.List()
	if len(got) != 1 || got[0].Origin != o(2, "s", 1) || len(got[0].Also) != 39 {
		t.Fatalf("got %d constraints, origin %v, %d in also; want 1, s seq 1, 39", len(got), got[0].Origin, len(got[0].Also))
	}
	for k, a := range got[0].Also {
		if a.Seq != int64(k+2) {
			t.Fatalf("also[%d] = %v, want seq %d", k, a, k+2)
		}
	}
	// An older origin promoted out of a long Also, then said again: still once.
	set.Add("Never push!", o(1, "p", 7), 0)
	set.Add("Never push!", o(2, "s", 5), 0)
	got = set.List()
	if got[0].Origin != o(1, "p", 7) || len(got[0].Also) != 40 {
		t.Fatalf("after an older origin: origin %v, %d in also; want gen 1 p seq 7, 40", got[0].Origin, len(got[0].Also))
	}
}

// Past max, a new constraint is not kept but counted, once per sentence
// that says it; a constraint already kept still gets its later origins.
func TestSetCap(t *testing.T) {
	set := NewSet(nil)
	if d := set.Add("Never push. Always lint. Only Go.", o(1, "s", 1), 2); d != 1 {
		t.Fatalf("dropped %d, want 1 (Only Go.)", d)
	}
	if d := set.Add("Only Go. only go! You must test. never push", o(1, "s", 2), 2); d != 3 {
		t.Fatalf("dropped %d, want 3 (two sayings of Only Go., You must test.)", d)
	}
	want := []session.Constraint{
		{Text: "Never push.", Origin: o(1, "s", 1), Also: []session.Origin{o(1, "s", 2)}},
		{Text: "Always lint.", Origin: o(1, "s", 1)},
	}
	if got := set.List(); !reflect.DeepEqual(nilAlso(got), want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

// Sayings yields every constraint sentence, repeats included; Extract is
// Sayings without the repeats.
func TestSayings(t *testing.T) {
	text := "Never push. never push!\n```\nmust\n```\n- Always lint. 必须保持。"
	var got []string
	for s := range Sayings(text) {
		got = append(got, s)
	}
	want := []string{"Never push.", "never push!", "Always lint.", "必须保持。"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Sayings = %q, want %q", got, want)
	}
	n := 0
	for range Sayings(text) {
		n++
		break
	}
	if n != 1 {
		t.Fatal("Sayings did not stop when asked")
	}
}

// HoldsAll agrees with Holds, constraint by constraint, on texts whose
// constraints are extracted sentences, cut ones, edited ones and empty ones.
func TestHoldsAllAgreesWithHolds(t *testing.T) {
	long := "Rules: you must " + strings.Repeat("keep everything stable ", 30) + "always."
	origin := "Fix it. Never push to main. " + long + " 必须保持接口不变。"
	cs := append(Extract(origin), "Never push to dev.", "", "fix it", "NEVER push -- to main", "main. you must keep")
	got := HoldsAll(origin, cs)
	for k, c := range cs {
		if want := Holds(origin, c); got[k] != want {
			t.Errorf("constraint %q: HoldsAll says %v, Holds %v", c, got[k], want)
		}
	}
}

// Constraints as people say them (issue 23, item 7): rarely "must" or
// "never", more often "use X, not Y", "don't touch Z", "keep it under N",
// "tests go in …", "no new dependencies", a correction "no, I said …".
func TestConstraintsAsPeopleSayThem(t *testing.T) {
	for _, s := range []string{
		"Use pnpm, not npm.",
		"use the existing logger",
		"Don't touch the migrations folder.",
		"Keep it under 200 lines.",
		"Tests go in internal/foo_test.go.",
		"No new dependencies please.",
		"No, I said the staging bucket.",
		"You should run the linter before committing.",
		"Avoid global state in the handler.",
		"Write it in Go instead of Python.",
		"I prefer small commits.",
		"Make sure the API stays backward compatible.",
		"Leave the vendor directory alone.",
		"Stop adding comments to every line.",
		"So, instructions need to be clear about how to download, build and install.",
		"The CI needs to test against Python 3.10 to 3.14.",
		"It has to run without network access.",
		"The release notes have to mention the installer.",
		"I do not need backwards compatible",
		"Can you make sure the tests pass?",
		"Don't touch the migrations folder?",
		"You cannot use the network in tests.",
		// The same words where they do restrict.
		"The only thing it shouldn't do is resolve the workspace dependencies.",
		"Only touch the files under src.",
		"I don't want the button on those that don't need expansion.",
		"Maybe later, but don't touch the schema now.",
		"I see the logs only in the cli; make sure they reach the web ui.",
		"**Stop and report**: Command ends after Phase 2 planning.",
		"`CONSTITUTION_VERSION` must increment according to semantic versioning rules:",
	} {
		if got := Extract(s); len(got) != 1 {
			t.Errorf("Extract(%q) = %q: want the sentence as a constraint", s, got)
		}
	}
	for _, s := range []string{
		"Thanks, that looks good.",
		"Can you look at the failing test?",
		"What does this function return?",
		"continue",
		"I need a minute to read it.",
		// A question asks: its "should", "only" or "need to" is no rule.
		"should they?",
		"What version should I tag for the hackathon submission release?",
		"What do I need to do to enable github pages?",
		// A question that asks what, why or how wants to know: whatever
		// its markers, it sets no rule.
		"what can't i use that audience?",
		"How do I run the tests that were created to make sure they're working?",
		"Why does it never finish?",
		// A report of what the person sees or knows is no rule.
		"when API gateway calls a lambda I do not see it in the logs.",
		"I don't know why the build fails.",
		"I still do not see lambda executions in the logs",
		"I can't find the config file.",
		// "the only …" names a thing, it restricts nothing.
		"That's the only difference.",
		// A hedge suggests; it sets no rule.
		"maybe this should 0.1.1",
		"Perhaps we should bump the version too.",
		// An opener opens an imperative; behind a status mark ("✅", a
		// pasted report's) it reports.
		"✅ No more \"Error parsing line\" for non-JSON output",
		"⚠️ Keep-alive connections were left open",
		// A label introduces the lines under it; they say the rules.
		"Next required action:",
		"**Must haves:**",
		// What the person sees, said as it is: a report.
		"I am now seeing the logs in the cli only and not the web ui.",
		"I'm getting only the first page back.",
		"I see it should be cached but it is not.",
		// What something that does not do a thing is: a description.
		"The expand button appears on all tool blocks, including short ones that don't need expansion.",
		"Files which do not change are skipped.",
		// Program text is the program's: its "use" and "const" are code.
		"use std::collections::HashMap;",
		"use solana_sdk::{",
		"Keep::Alive.new(only: true);",
	} {
		if got := Extract(s); len(got) != 0 {
			t.Errorf("Extract(%q) = %q: want no constraint", s, got)
		}
	}
}

// Python names an exception of a module by its module ("json.decoder.
// JSONDecodeError: Expecting value", "subprocess.CalledProcessError: …"),
// Java by its package ("java.lang.IllegalStateException: must not be
// null"): the type is the last dotted name, and the line names it as
// "TypeError: …" does. A pasted one is program output, no constraint.
func TestAQualifiedExceptionNamesAnErrorType(t *testing.T) {
	for _, l := range []string{
		"json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
		"subprocess.CalledProcessError: Command '['git', 'push']' returned non-zero exit status 1.",
		"java.lang.IllegalStateException: the client must not be null",
		"Caused by: org.postgresql.util.PSQLException: connection refused",
		"TypeError: x is not a function",
	} {
		if !NamesErrorType(l) {
			t.Errorf("NamesErrorType(%q) = false", l)
		}
	}
	for _, l := range []string{"see docs.Error: none", "the .Error: field", "use errors.New: never panic"} {
		if NamesErrorType(l) {
			t.Errorf("NamesErrorType(%q) = true", l)
		}
	}
	got := Extract("it crashed:\njava.lang.IllegalStateException: the client must not be null\nYou must retry the upload.")
	for _, c := range got {
		if strings.Contains(c, "IllegalStateException") {
			t.Errorf("a pasted exception line became a constraint: %q", got)
		}
	}
}

// A row of a frame drawn with box-drawing characters ("│ … │": Python
// rich's traceback, a terminal UI's panel) is program output pasted, as a
// report line is: its "cannot" is the program's. A real Claude Code
// session pasted rich's traceback of "asyncio.run() cannot be called from
// a running event loop", and its frame's row became a hard constraint.
func TestADrawnFramesRowIsNoConstraint(t *testing.T) {
	text := "ldk dev fails:\n╭──────────── Traceback (most recent call last) ────────────╮\n│   192 │   │   │   \"asyncio.run() cannot be called from a running event loop\")   │\n│ ❱ 193 │   │   return runner.run(main)                                        │\n╰──────────────────────────────────────────────────────────╯\nYou must not change the event loop policy."
	got := Extract(text)
	for _, c := range got {
		if strings.Contains(c, "│") {
			t.Errorf("a drawn frame's row became a constraint: %q", got)
		}
	}
	if !slices.Contains(got, "You must not change the event loop policy.") {
		t.Errorf("the person's rule after the frame was lost: %q", got)
	}
}

// Lines a person pastes from a terminal or a web page are no rules of
// theirs: a program's error in strerror's form ("prog: target: No such
// file or directory"), a banner framed in asterisks ("*** System restart
// required ***", a server's login message), and a table's row copied with
// its tabs ("No memory between conversations\tMemory — the agent
// remembers …"). A real Qwen Code session's tape held all three among its
// hard constraints, a tenth of its room.
func TestPastedErrorsBannersAndTableRowsAreNoConstraints(t *testing.T) {
	text := "it still fails:\n" +
		"ls: cannot access 'nanobot-websocket-channel/': No such file or directory\n" +
		"bash: nanobot: command not found\n" +
		"cp: cannot create regular file '/etc/x.conf': Permission denied\n" +
		"*** System restart required ***\n" +
		"What you did in Lab 7 (manual)\tWhat nanobot does (framework)\n" +
		"Agent only responds when you message it\tCron — the agent can act on a schedule\n" +
		"You must not restart the VM without asking.\n" +
		"Never run it as root: it says Permission denied"
	got := Extract(text)
	for _, c := range got {
		if strings.Contains(c, "No such file") || strings.Contains(c, "command not found") || strings.Contains(c, "cannot create") || strings.Contains(c, "restart required") || strings.Contains(c, "\t") {
			t.Errorf("a pasted line became a constraint: %q", c)
		}
	}
	for _, want := range []string{"You must not restart the VM without asking.", "Never run it as root: it says Permission denied"} {
		if !slices.Contains(got, want) {
			t.Errorf("the person's rule %q was lost: %q", want, got)
		}
	}
}
