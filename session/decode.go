package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/graft-project/graft/session/logscan"
)

// The log decoder: the Event schema over session/logscan's JSON reader.
// encoding/json spends most of a scan validating and unquoting MiB tool
// outputs through reflection; this decoder reads the event schema
// directly, one pass over the line.
//
// It is exact by construction: it decodes only lines it can decode exactly
// as encoding/json.Unmarshal would into a zero Event, and gives up on
// anything else — a syntax or type error, an unknown or repeated key, a
// key in another case or with escapes, invalid UTF-8, a lone surrogate, a
// number that is not a plain integer, deep nesting. decode then hands the
// line to encoding/json, which decides (and words any error). Lines graft
// writes never take that path.
//
// Every JSON field of Event and of the types it holds has a case below: a
// field added to Event without one would send every line carrying it to
// encoding/json, and TestFastPathDecodesEveryEventField fails until it
// has one.

// decodeMode says which strings the decoder builds.
type decodeMode uint8

const (
	// decodeAll builds every field, like encoding/json.
	decodeAll decodeMode = iota
	// decodeFold validates a tool output but builds it only when the result
	// failed (tool.ok is false), and then only through its first line with
	// text: see ScanFold.
	decodeFold
)

// lineDecoder decodes one line at a time into an Event: the schema's
// cases, reading through a logscan.Decoder (its buffers are kept across
// lines).
type lineDecoder struct {
	*logscan.Decoder
	mode decodeMode
}

// decode fills ev from one log line: the fast path, else encoding/json.
func (d lineDecoder) decode(line []byte, ev *Event) error {
	*ev = Event{}
	if !d.decodeFast(line, ev) {
		if len(bytes.TrimSpace(line)) == 0 {
			return errors.New("empty line") // never decoded fast
		}
		*ev = Event{}
		if err := json.Unmarshal(line, ev); err != nil {
			return err
		}
		if d.mode == decodeFold {
			ev.TS = ""
		}
		if d.mode == decodeFold && ev.Tool != nil {
			if ev.OKResult() {
				ev.Tool.Output = ""
			} else {
				ev.Tool.Output = logscan.ThroughFirstTextLine(ev.Tool.Output)
			}
		}
	}
	if ev.Type == "" {
		return errors.New(`missing "type"`)
	}
	return nil
}

// decodeFast fills ev, which must be zero, from line. ok is false when the
// line needs encoding/json; ev is then left partly filled.
func (d lineDecoder) decodeFast(line []byte, ev *Event) (ok bool) {
	d.Reset(line)
	ok = d.value(ev) && d.AtEnd()
	d.Release()
	return ok
}

// value reads one event, and the whitespace around it.
func (d lineDecoder) value(ev *Event) bool {
	d.WS()
	if !d.event(ev) {
		return false
	}
	d.WS()
	return true
}

// foldLines is the schema of ScanFold's pipeline: events as ScanFold
// promises them (decodeFold).
type foldLines struct{}

func (foldLines) Decode(d *logscan.Decoder, line []byte, ev *Event) error {
	return lineDecoder{d, decodeFold}.decode(line, ev)
}

func (foldLines) DecodeFast(d *logscan.Decoder, ev *Event) bool {
	*ev = Event{}
	return lineDecoder{d, decodeFold}.value(ev) && ev.Type != ""
}

// Field bits for repeated-key detection.
const (
	fSeq = 1 << iota
	fTS
	fType
	fSource
	fText
	fTool
	fTodos
	fAgent
	fTxn
	fParent
	fParentBoundary
	fGeneration
	fTapeHash
	fTapeEvents
	fTarget
	fReason
	fInherit
	fRelies
	fMeta
)

func (d lineDecoder) event(ev *Event) bool {
	var seen uint32
	return d.Object(func(key []byte) bool {
		var bit uint32
		var ok bool
		switch string(key) {
		case "seq":
			bit, ok = fSeq, d.Int64Field(&ev.Seq)
		case "ts":
			if d.mode == decodeFold {
				// No fold reads it: validated, not built.
				bit, ok = fTS, d.Null() || d.SkipString()
			} else {
				bit, ok = fTS, d.StringField(&ev.TS)
			}
		case "type":
			bit, ok = fType, d.internField(&ev.Type)
		case "source":
			bit, ok = fSource, d.source(&ev.Source)
		case "text":
			bit, ok = fText, d.StringField(&ev.Text)
		case "tool":
			bit, ok = fTool, d.tool(&ev.Tool)
		case "todos":
			bit, ok = fTodos, d.todos(&ev.Todos)
		case "agent":
			bit, ok = fAgent, d.StringField(&ev.Agent)
		case "txn":
			bit, ok = fTxn, d.StringField(&ev.Txn)
		case "parent":
			bit, ok = fParent, d.StringField(&ev.Parent)
		case "parentBoundary":
			bit, ok = fParentBoundary, d.Int64Field(&ev.ParentBoundary)
		case "generation":
			bit, ok = fGeneration, d.IntField(&ev.Generation)
		case "tapeHash":
			bit, ok = fTapeHash, d.StringField(&ev.TapeHash)
		case "tapeEvents":
			bit, ok = fTapeEvents, d.IntField(&ev.TapeEvents)
		case "target":
			bit, ok = fTarget, d.StringField(&ev.Target)
		case "reason":
			bit, ok = fReason, d.StringField(&ev.Reason)
		case "inherit":
			bit, ok = fInherit, d.inherit(&ev.Inherit)
		case "relies":
			bit, ok = fRelies, d.relies(&ev.Relies)
		case "meta":
			bit, ok = fMeta, d.meta(&ev.Meta)
		default:
			return false // unknown, or another case: encoding/json folds case
		}
		if seen&bit != 0 {
			return false // a repeated key merges in encoding/json
		}
		seen |= bit
		return ok
	})
}

func (d lineDecoder) source(s *Source) bool {
	if d.Null() {
		return true
	}
	var seen uint8
	return d.Object(func(key []byte) bool {
		var bit uint8
		var ok bool
		switch string(key) {
		case "kind":
			bit, ok = 1, d.internField(&s.Kind)
		case "name":
			bit, ok = 2, d.internField(&s.Name)
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return ok
	})
}

func (d lineDecoder) tool(dst **Tool) bool {
	if d.Null() {
		return true
	}
	t := &Tool{}
	*dst = t
	var seen uint8
	outStart, outEnd := -1, -1
	ok := d.Object(func(key []byte) bool {
		var bit uint8
		var ok bool
		switch string(key) {
		case "name":
			bit, ok = 1, d.internField(&t.Name)
		case "callId":
			bit, ok = 2, d.StringField(&t.CallID)
		case "input":
			bit = 4
			var raw []byte
			if raw, ok = d.RawValue(); ok {
				t.Input = append(json.RawMessage(nil), raw...)
			}
		case "ok":
			bit, ok = 8, d.BoolPtrField(&t.OK)
		case "output":
			bit = 16
			switch {
			case d.mode != decodeFold:
				ok = d.StringField(&t.Output)
			case d.Null():
				ok = true // null: no output, as encoding/json leaves it
			default:
				// Validated now, built below only if the result failed:
				// then only its head is read, so a long line may drop the
				// body as it reads it, all of it once the result is known
				// to be a success, the part past the head otherwise.
				cut := logscan.CutAfterHead
				if t.OK != nil && *t.OK {
					cut = logscan.CutAll
				}
				outStart, outEnd, ok = d.SkipStringCut(cut)
			}
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return ok
	})
	if !ok {
		return false
	}
	if outStart >= 0 && t.OK != nil && !*t.OK {
		t.Output, ok = d.TextHead(outStart, outEnd)
	}
	return ok
}

func (d lineDecoder) todos(dst *[]Todo) bool {
	if d.Null() {
		return true
	}
	out := []Todo{}
	ok := d.Array(func() bool {
		var td Todo
		if !d.todo(&td) {
			return false
		}
		out = append(out, td)
		return true
	})
	*dst = out
	return ok
}

func (d lineDecoder) todo(td *Todo) bool {
	if d.Null() {
		return true
	}
	var seen uint8
	return d.Object(func(key []byte) bool {
		var bit uint8
		var ok bool
		switch string(key) {
		case "id":
			bit, ok = 1, d.StringField(&td.ID)
		case "content":
			bit, ok = 2, d.StringField(&td.Content)
		case "status":
			bit, ok = 4, d.StringField(&td.Status)
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return ok
	})
}

// fields reads an object of one of the nested types below (inherit and
// relies: a line per session carries them, so the code is plain rather
// than fast): field reads the value at key and names its bit; an unknown
// key (bit 0) or one seen twice gives the line up.
func (d lineDecoder) fields(field func(key string) (bit uint16, ok bool)) bool {
	var seen uint16
	return d.Object(func(key []byte) bool {
		bit, ok := field(string(key))
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		return ok
	})
}

// list reads an array into *dst with elem reading each element; null
// leaves *dst as it is, as in encoding/json.
func list[T any](d lineDecoder, dst *[]T, elem func(*T) bool) bool {
	if d.Null() {
		return true
	}
	out := []T{}
	ok := d.Array(func() bool {
		var v T
		if !elem(&v) {
			return false
		}
		out = append(out, v)
		return true
	})
	*dst = out
	return ok
}

// inherit reads a graft/origin's inherit (one line per session, so the
// code is plain rather than fast).
func (d lineDecoder) inherit(dst **Inherited) bool {
	if d.Null() {
		return true
	}
	in := &Inherited{}
	*dst = in
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "firstGoal":
			return 1, d.quote(&in.FirstGoal)
		case "constraints":
			return 2, list(d, &in.Constraints, d.constraint)
		case "moreConstraints":
			return 4, list(d, &in.MoreConstraints, d.more)
		case "goal":
			return 8, d.hostGoal(&in.Goal)
		case "said":
			return 16, list(d, &in.Said, d.quoteValue)
		case "files":
			return 32, list(d, &in.Files, d.fileNote)
		case "plan":
			return 64, d.passage(&in.Plan)
		case "place":
			return 128, d.place(&in.Place)
		case "messages":
			return 256, list(d, &in.Messages, d.passageValue)
		case "prompts":
			return 512, list(d, &in.Prompts, d.quoteValue)
		case "todos":
			return 1024, d.todoList(&in.Todos)
		case "approvedPlan":
			return 2048, d.passage(&in.ApprovedPlan)
		case "failures":
			return 4096, list(d, &in.Failures, d.callNote)
		case "workarounds":
			return 8192, list(d, &in.Workarounds, d.callNote)
		case "milestones":
			return 16384, list(d, &in.Milestones, d.callNote)
		}
		return 0, false
	})
}

func (d lineDecoder) callNote(f *CallNote) bool {
	if d.Null() {
		return true // a null element is a zero one, as in encoding/json
	}
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "tool":
			return 1, d.StringField(&f.Tool)
		case "what":
			return 2, d.StringField(&f.What)
		case "text":
			return 4, d.StringField(&f.Text)
		case "origin":
			return 8, d.origin(&f.Origin)
		}
		return 0, false
	})
}

func (d lineDecoder) todoList(dst **TodoList) bool {
	if d.Null() {
		return true
	}
	l := &TodoList{}
	*dst = l
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "items":
			return 1, d.todos(&l.Items)
		case "origin":
			return 2, d.origin(&l.Origin)
		}
		return 0, false
	})
}

func (d lineDecoder) hostGoal(dst **HostGoal) bool {
	if d.Null() {
		return true
	}
	g := &HostGoal{}
	*dst = g
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "objective":
			return 1, d.StringField(&g.Objective)
		case "status":
			return 2, d.StringField(&g.Status)
		case "origin":
			return 4, d.origin(&g.Origin)
		}
		return 0, false
	})
}

func (d lineDecoder) quote(dst **Quote) bool {
	if d.Null() {
		return true
	}
	q := &Quote{}
	*dst = q
	return d.quoteValue(q)
}

func (d lineDecoder) quoteValue(q *Quote) bool {
	if d.Null() {
		return true // a null element is a zero one, as in encoding/json
	}
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "text":
			return 1, d.StringField(&q.Text)
		case "origin":
			return 2, d.origin(&q.Origin)
		case "answer":
			return 4, d.BoolField(&q.Answer)
		case "command":
			return 8, d.commandText(&q.Command)
		case "picks":
			return 16, d.picks(&q.Picks)
		}
		return 0, false
	})
}

func (d lineDecoder) picks(dst **Picks) bool {
	if d.Null() {
		return true
	}
	p := &Picks{}
	*dst = p
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "from":
			return 1, d.Int64Field(&p.From)
		case "lines":
			return 2, list(d, &p.Lines, d.StringField)
		}
		return 0, false
	})
}

func (d lineDecoder) commandText(dst **CommandText) bool {
	if d.Null() {
		return true
	}
	c := &CommandText{}
	*dst = c
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "at":
			return 1, d.Int64Field(&c.At)
		case "first":
			return 2, d.StringField(&c.First)
		case "rule":
			return 4, d.StringField(&c.Rule)
		}
		return 0, false
	})
}

func (d lineDecoder) constraint(c *Constraint) bool {
	if d.Null() {
		return true // a null element is a zero one, as in encoding/json
	}
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "text":
			return 1, d.StringField(&c.Text)
		case "origin":
			return 2, d.origin(&c.Origin)
		case "also":
			return 4, list(d, &c.Also, d.origin)
		case "pasted":
			return 8, d.BoolField(&c.Pasted)
		}
		return 0, false
	})
}

func (d lineDecoder) origin(o *Origin) bool {
	if d.Null() {
		return true // null leaves a struct as it is, in encoding/json
	}
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "generation":
			return 1, d.IntField(&o.Generation)
		case "session":
			return 2, d.StringField(&o.Session)
		case "seq":
			return 4, d.Int64Field(&o.Seq)
		}
		return 0, false
	})
}

func (d lineDecoder) passage(dst **Passage) bool {
	if d.Null() {
		return true
	}
	p := &Passage{}
	*dst = p
	return d.passageValue(p)
}

func (d lineDecoder) passageValue(p *Passage) bool {
	if d.Null() {
		return true // a null element is a zero one, as in encoding/json
	}
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "text":
			return 1, d.StringField(&p.Text)
		case "origin":
			return 2, d.origin(&p.Origin)
		}
		return 0, false
	})
}

func (d lineDecoder) place(dst **Place) bool {
	if d.Null() {
		return true
	}
	p := &Place{}
	*dst = p
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "cwd":
			return 1, d.StringField(&p.Cwd)
		case "gitBranch":
			return 2, d.StringField(&p.GitBranch)
		case "gitCommit":
			return 4, d.StringField(&p.GitCommit)
		}
		return 0, false
	})
}

func (d lineDecoder) fileNote(f *FileNote) bool {
	if d.Null() {
		return true
	}
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "path":
			return 1, d.StringField(&f.Path)
		case "note":
			return 2, d.StringField(&f.Note)
		case "session":
			return 4, d.StringField(&f.Session)
		case "generation":
			return 8, d.IntField(&f.Generation)
		case "seq":
			return 16, d.Int64Field(&f.Seq)
		}
		return 0, false
	})
}

func (d lineDecoder) more(m *More) bool {
	if d.Null() {
		return true
	}
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "session":
			return 1, d.StringField(&m.Session)
		case "n":
			return 2, d.IntField(&m.N)
		case "from":
			return 4, d.Int64Field(&m.From)
		case "to":
			return 8, d.Int64Field(&m.To)
		}
		return 0, false
	})
}

func (d lineDecoder) relies(dst **Relies) bool {
	if d.Null() {
		return true
	}
	r := &Relies{}
	*dst = r
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "prefixes":
			return 1, list(d, &r.Prefixes, d.prefixMark)
		case "origins":
			return 2, list(d, &r.Origins, d.originLine)
		}
		return 0, false
	})
}

func (d lineDecoder) prefixMark(m *PrefixMark) bool {
	if d.Null() {
		return true
	}
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "session":
			return 1, d.StringField(&m.Session)
		case "generation":
			return 2, d.IntField(&m.Generation)
		case "boundary":
			return 4, d.Int64Field(&m.Boundary)
		case "prefixHash":
			return 8, d.StringField(&m.PrefixHash)
		}
		return 0, false
	})
}

func (d lineDecoder) originLine(l *OriginLine) bool {
	if d.Null() {
		return true
	}
	return d.fields(func(key string) (uint16, bool) {
		switch key {
		case "origin":
			return 1, d.origin(&l.Origin)
		case "line":
			return 2, d.StringField(&l.Line)
		}
		return 0, false
	})
}

func (d lineDecoder) meta(dst *map[string]string) bool {
	if d.Null() {
		return true
	}
	m := map[string]string{}
	*dst = m
	if !d.Consume('{') {
		return false
	}
	d.WS()
	if d.Consume('}') {
		return true
	}
	for {
		k, ok := d.StringValue()
		if !ok {
			return false
		}
		d.WS()
		if !d.Consume(':') {
			return false
		}
		d.WS()
		if d.PeekNull() {
			return false // encoding/json stores "" for a null element
		}
		v, ok := d.StringValue()
		if !ok {
			return false
		}
		m[k] = v // a repeated key: the last one wins, as in encoding/json
		d.WS()
		if d.Consume(',') {
			d.WS()
			continue
		}
		return d.Consume('}')
	}
}

// internField is StringField for the fields whose values come from a few
// words: an event's type, a source's kind and name, a tool's name. A
// value met before (or one of the event types and source kinds) is
// neither built nor checked for UTF-8 again (logscan.Decoder.Intern).
func (d lineDecoder) internField(dst *string) bool {
	if d.Null() {
		return true
	}
	b, ok := d.RawStringBytes()
	if !ok {
		return false
	}
	if v := knownWord(b); v != "" {
		*dst = v
		return true
	}
	*dst, ok = d.Intern(b)
	return ok
}

// knownWord is b as one of the event types and source kinds, without
// building it; "" for any other value.
func knownWord(b []byte) string {
	switch string(b) {
	case TypeUserMessage:
		return TypeUserMessage
	case TypeAssistantMessage:
		return TypeAssistantMessage
	case TypeToolCall:
		return TypeToolCall
	case TypeToolResult:
		return TypeToolResult
	case TypeTodoWrite:
		return TypeTodoWrite
	case TypeSubagentReport:
		return TypeSubagentReport
	case KindUser:
		return KindUser
	case KindAssistant:
		return KindAssistant
	case KindTool:
		return KindTool
	case KindSubagent:
		return KindSubagent
	}
	return ""
}

// StringFields reads the string fields named keys of a JSON object, such as
// a tool call's input, without building the other values (a Write call's
// input holds a whole file): vals[i] is the value of keys[i], "" when
// absent or null. It answers exactly as encoding/json.Unmarshal into a
// struct with one string field per key would, or says ok false and leaves
// the input to encoding/json: when input is not a valid object, a key is
// escaped, not ASCII or matches a wanted key only up to case, a wanted key
// repeats, or a wanted value is not a string or null.
func StringFields(input []byte, keys ...string) (vals []string, ok bool) {
	return logscan.StringFields(input, keys...)
}

// ScanFold is Scan for folds that never read the output of a successful
// tool call, and of a failed one only its first line with text, such as
// the tape builder (which quotes that line) and the state fold (Info.Add):
// every output is validated exactly as Scan validates it, but the output
// of a tool event whose "ok" is not false is left empty in ev.Tool.Output,
// and a failed one ("ok": false) is cut after its first line holding a
// non-space rune (strings.TrimSpace(line) != ""), without that line's
// '\n'; a MiB stack trace is not built to quote its first line. The
// timestamp ("ts"), which no fold reads, is validated and left empty.
// Everything else, the seq chain, errors and torn tails included, is as in
// Scan.
//
// Lines are decoded by runtime.GOMAXPROCS(0) goroutines while fn runs: fn
// is called in order, on the caller's goroutine, and at most 4 MiB of
// lines are read ahead of it (logscan.Pipeline).
func ScanFold(r io.Reader, path string, from ScanFrom, fn func(ev *Event, raw []byte, off int64) error) (ScanResult, error) {
	var fold func(*Event, []byte, int, LineSum, int64) error
	if fn != nil {
		fold = func(ev *Event, raw []byte, _ int, _ LineSum, off int64) error { return fn(ev, raw, off) }
	}
	return scanFold(r, path, from, false, fold)
}

// LineSum is the XXH3-128 of one raw log line (without its '\n'), 16
// bytes big-endian, high half first: what the tape's prefix hash
// (graft-prefix-v2) reads of each event.
type LineSum [16]byte

// SumLine is the LineSum of raw.
func SumLine(raw []byte) LineSum { return logscan.SumLine(raw) }

// ScanFoldSums is ScanFold for folds that read of a line only its length
// (without the '\n') and its LineSum, not its bytes, such as the tape's
// prefix hash. The sum is computed by the decoder goroutines right after
// they decode the line, while it is in their cache: the caller's
// goroutine, which runs the fold, does not read the bytes again. When r
// is also an io.ReaderAt and an io.Seeker (an *os.File, an
// io.SectionReader), a line longer than a batch is decoded as it is read
// and never held whole (see session/logscan/longline.go); it is read
// again through ReadAt, from r's position when the scan starts, only if
// it cannot be decoded that way.
func ScanFoldSums(r io.Reader, path string, from ScanFrom, fn func(ev *Event, size int, sum LineSum, off int64) error) (ScanResult, error) {
	var fold func(*Event, []byte, int, LineSum, int64) error
	if fn != nil {
		fold = func(ev *Event, _ []byte, size int, sum LineSum, off int64) error { return fn(ev, size, sum, off) }
	}
	return scanFold(r, path, from, true, fold)
}

// longLinesSeen, when set (by the tests: export_test.go), is told after
// each ScanFold how many long lines its pipeline decoded as it read them
// and how many it read again whole.
var longLinesSeen func(streamed, reread int)

// scanFold calls fn with each line's event, bytes (nil for a long line
// of ScanFoldSums), length, sum (when sums) and offset.
func scanFold(r io.Reader, path string, from ScanFrom, sums bool, fn func(ev *Event, raw []byte, size int, sum LineSum, off int64) error) (ScanResult, error) {
	if from.Line == 0 {
		from.Line = 1
	}
	if from.NextSeq == 0 {
		from.NextSeq = 1
	}
	res := ScanResult{End: from.Offset, LastSeq: from.NextSeq - 1}
	want := from.NextSeq
	p := logscan.Start[Event](r, logscan.Config{Offset: from.Offset, Line: from.Line, Decoders: runtime.GOMAXPROCS(0), Sums: sums}, foldLines{})
	defer func() {
		p.Stop()
		if longLinesSeen != nil {
			longLinesSeen(p.LongLines())
		}
	}()
	for b := p.Next(); b != nil; b = p.Next() {
		for k := range b.Lines {
			ln := &b.Lines[k]
			if ln.Err != nil {
				return res, &CorruptError{Path: path, Line: ln.Num, Offset: ln.Off, Err: ln.Err}
			}
			if ln.Ev.Seq != want {
				return res, &SeqError{Path: path, Line: ln.Num, Offset: ln.Off, Want: want, Got: ln.Ev.Seq}
			}
			want++
			res.Events++
			res.LastSeq = ln.Ev.Seq
			res.End = ln.Off + int64(ln.Size) + 1
			if fn != nil {
				if err := fn(&ln.Ev, b.Raw(ln), ln.Size, LineSum(ln.Sum), ln.Off); err != nil {
					return res, err
				}
			}
		}
		p.Release(b)
	}
	// The reader stopped: at the end, at a torn tail, or on a read error.
	if off, n, torn := p.Torn(); torn {
		res.Torn = &Torn{Offset: off, Bytes: n}
		return res, nil
	}
	if off, err := p.ReadErr(); err != nil {
		return res, fmt.Errorf("session: reading %s at byte offset %d: %w", path, off, err)
	}
	return res, nil
}

// decoders recycle the buffers of decodeLine, which has no scan to hang
// a decoder on.
var decoders = sync.Pool{New: func() any { return new(logscan.Decoder) }}

// Decode decodes one log line (without its '\n') into ev, zeroing it
// first, as Scan decodes it: the fast path, else encoding/json.
func Decode(line []byte, ev *Event) error { return decodeLine(line, ev) }

// decodeLine decodes one line into ev, zeroing it first: what Scan and
// endsAt decode with.
func decodeLine(line []byte, ev *Event) error {
	d := decoders.Get().(*logscan.Decoder)
	err := lineDecoder{d, decodeAll}.decode(line, ev)
	decoders.Put(d)
	return err
}
