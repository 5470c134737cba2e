package gemini

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
)

// The mapper's state (issue 25). A long session's state holds every
// message and tool call id it imported: a later $set repeats the whole
// message list, and only what is new in it may be imported. It keeps
// each id as its key, the first 16 bytes of the id's SHA-256, in maps of
// values without pointers (the garbage collector does not scan them), and
// a done call without its tool name (a name is read only for a result
// still owed). Saved in a cursor, it was StateVersion's compact form:
// each table one base64 string of entries; the importer now keeps it in
// a state file, the third form (statefile.go, doc.go).

// StateVersion is the "v" of the state SaveState writes. A state without
// one is the first form (JSON maps of the ids themselves: "msgs", "list",
// "calls", "told"), which LoadState still reads.
const StateVersion = 2

// key is a message or call id as the state keeps it.
type key [16]byte

func keyOf(id string) key {
	sum := sha256.Sum256([]byte(id))
	return key(sum[:16])
}

// digestSize is the size of a text's digest.
const digestSize = 8

// mark is what was imported of one message id.
type mark struct {
	// text is the digest of the text imported, when has is hasDigest.
	text [digestSize]byte
	has  uint8
	// present is false for an id the list holds but no message was
	// imported of (only a first-form state can hold one).
	present bool
	// listed: the id is in the host's list now.
	listed   bool
	thoughts int32
}

// What a mark holds of the text imported.
const (
	noText    = 0
	hasDigest = 1
	// otherText is a first-form state's text that is not a digest: it
	// matches no text, and says one was imported.
	otherText = 2
)

// sameText reports whether the text imported has digest d.
func (mk *mark) sameText(d [digestSize]byte) bool { return mk.has == hasDigest && mk.text == d }

func (mk *mark) setText(d [digestSize]byte) { mk.text, mk.has = d, hasDigest }

// mapState is what Mapper remembers across lines (the cursor's state).
// A state read from its file (the third form, loadBinary) is not decoded
// into maps: its marks and its done calls stay in the file's sorted tables
// (base, baseDone), searched by key when a line asks, and what later lines
// change goes into the maps, which win over the tables. A follow of one
// turn on a long session decodes a few entries, not all of them.
type mapState struct {
	msgs map[key]mark
	base table
	// list is the host's message list now, in order.
	list []key
	// done are the tool calls whose result was imported (with baseDone);
	// open the calls imported without one yet, with their tool name.
	done     map[key]struct{}
	baseDone table
	open     map[key]string
	told     []string
}

func newState() mapState {
	return mapState{msgs: map[key]mark{}, done: map[key]struct{}{}, open: map[key]string{},
		base: table{size: markSize}, baseDone: table{size: len(key{})}}
}

// mark is what was imported of message id k.
func (st *mapState) mark(k key) mark {
	if mk, ok := st.msgs[k]; ok {
		return mk
	}
	if e, ok := st.base.find(k); ok {
		return decodeMark(e)
	}
	return mark{}
}

func (st *mapState) setMark(k key, mk mark) { st.msgs[k] = mk }

// isDone reports whether the result of call k was imported.
func (st *mapState) isDone(k key) bool {
	if _, ok := st.done[k]; ok {
		return true
	}
	_, ok := st.baseDone.find(k)
	return ok
}

func (st *mapState) setDone(k key) { st.done[k] = struct{}{} }

// hasCall reports whether call id k was imported.
func (st *mapState) hasCall(k key) bool {
	if st.isDone(k) {
		return true
	}
	_, ok := st.open[k]
	return ok
}

// table is a state file's table: entries of size bytes, each starting
// with its key, sorted by key, no key twice.
type table struct {
	raw  []byte
	size int
}

func (t table) len() int { return len(t.raw) / t.size }

// find is the entry of key k.
func (t table) find(k key) ([]byte, bool) {
	j, ok := sort.Find(t.len(), func(j int) int { return bytes.Compare(k[:], t.raw[j*t.size:j*t.size+len(key{})]) })
	if !ok {
		return nil, false
	}
	return t.raw[j*t.size : (j+1)*t.size], true
}

// eachMark calls fn with every mark, the table's and the map's merged,
// in key order.
func (st *mapState) eachMark(fn func(k key, mk mark)) {
	keys := sortedKeys(st.msgs)
	mergeTable(st.base, keys, func(k key) { fn(k, st.msgs[k]) }, func(e []byte) {
		for ; len(e) > 0; e = e[markSize:] {
			fn(key(e[:len(key{})]), decodeMark(e[:markSize]))
		}
	})
}

// eachDone calls fn with the key of every call done, in order.
func (st *mapState) eachDone(fn func(k key)) {
	mergeTable(st.baseDone, sortedKeys(st.done), fn, func(e []byte) {
		for ; len(e) > 0; e = e[len(key{}):] {
			fn(key(e[:len(key{})]))
		}
	})
}

// mergeTable walks t and the sorted keys together: runs of t's entries
// that no key replaces go to entries (whole, as they are), each key to
// over, in place of t's entry of the same key.
func mergeTable(t table, keys []key, over func(k key), entries func(run []byte)) {
	rest := t.raw
	for _, k := range keys {
		j, found := sort.Find(len(rest)/t.size, func(j int) int { return bytes.Compare(k[:], rest[j*t.size:j*t.size+len(key{})]) })
		if j > 0 {
			entries(rest[:j*t.size])
		}
		rest = rest[j*t.size:]
		if found {
			rest = rest[t.size:]
		}
		over(k)
	}
	if len(rest) > 0 {
		entries(rest)
	}
}

// savedState is the JSON of a state: the second form's fields ([]byte is
// base64), and the first form's.
type savedState struct {
	V     int                        `json:"v"`
	Msgs  json.RawMessage            `json:"msgs"`
	List  json.RawMessage            `json:"list"`
	Calls json.RawMessage            `json:"calls"`
	Open  map[string]json.RawMessage `json:"open"`
	Told  []string                   `json:"told"`
}

// appendState writes st in the second form: {"v":2, "msgs": base64 of
// the marks by key (key, what is held of the text: 0 nothing, 1 a digest
// that follows, 2 a text that is no digest; the thoughts count, a signed
// varint), "list": base64 of the keys in order, "calls": base64 of the
// keys of the calls done, "open": {hex key: tool name}, "told": […]},
// tables sorted by key and empty ones left out: the same state, the same
// bytes.
func appendState(b []byte, st *mapState) ([]byte, error) {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, StateVersion, 10)
	var raw []byte
	if n := presentMarks(st); n > 0 {
		raw = make([]byte, 0, n*(len(key{})+1+digestSize+1))
		st.eachMark(func(k key, mk mark) {
			if !mk.present {
				return
			}
			raw = append(raw, k[:]...)
			raw = append(raw, mk.has)
			if mk.has == hasDigest {
				raw = append(raw, mk.text[:]...)
			}
			raw = binary.AppendVarint(raw, int64(mk.thoughts))
		})
		b = appendBase64(b, "msgs", raw)
	}
	if len(st.list) > 0 {
		raw = raw[:0]
		for _, k := range st.list {
			raw = append(raw, k[:]...)
		}
		b = appendBase64(b, "list", raw)
	}
	if len(st.done)+st.baseDone.len() > 0 {
		raw = raw[:0]
		st.eachDone(func(k key) { raw = append(raw, k[:]...) })
		b = appendBase64(b, "calls", raw)
	}
	var err error
	if len(st.open) > 0 {
		b = append(b, `,"open":{`...)
		for j, k := range sortedKeys(st.open) {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = hex.AppendEncode(b, k[:])
			b = append(b, '"', ':')
			if b, err = appendString(b, st.open[k]); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	if len(st.told) > 0 {
		b = append(b, `,"told":`...)
		if b, err = appendStrings(b, st.told); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func presentMarks(st *mapState) int {
	n := 0
	st.eachMark(func(_ key, mk mark) {
		if mk.present {
			n++
		}
	})
	return n
}

var base64Std = base64.StdEncoding

func appendBase64(b []byte, name string, raw []byte) []byte {
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":"`...)
	b = base64Std.AppendEncode(b, raw)
	return append(b, '"')
}

// loadState reads a state SaveState wrote, in either form.
func loadState(raw []byte) (mapState, error) {
	st := newState()
	var s savedState
	if err := json.Unmarshal(raw, &s); err != nil {
		return st, err
	}
	st.told = s.Told
	switch s.V {
	case 0:
		return st, loadFirstForm(&st, raw)
	case StateVersion:
	default:
		return st, fmt.Errorf("gemini: state version %d, this graft reads %d", s.V, StateVersion)
	}
	table := func(name string, msg json.RawMessage) ([]byte, error) {
		if len(msg) == 0 {
			return nil, nil
		}
		var b []byte
		if err := json.Unmarshal(msg, &b); err != nil {
			return nil, fmt.Errorf("gemini: state %s: %w", name, err)
		}
		return b, nil
	}
	msgs, err := table("msgs", s.Msgs)
	if err != nil {
		return st, err
	}
	for len(msgs) > 0 {
		if len(msgs) < len(key{})+1 {
			return st, errors.New("gemini: state msgs: cut short")
		}
		k, mk := key(msgs[:len(key{})]), mark{present: true, has: msgs[len(key{})]}
		msgs = msgs[len(key{})+1:]
		switch mk.has {
		case noText, otherText:
		case hasDigest:
			if len(msgs) < digestSize {
				return st, errors.New("gemini: state msgs: cut short")
			}
			mk.text = [digestSize]byte(msgs[:digestSize])
			msgs = msgs[digestSize:]
		default:
			return st, fmt.Errorf("gemini: state msgs: text kind %d", mk.has)
		}
		th, n := binary.Varint(msgs)
		if n <= 0 || th < math.MinInt32 || th > math.MaxInt32 {
			return st, errors.New("gemini: state msgs: bad thoughts count")
		}
		mk.thoughts = int32(th)
		msgs = msgs[n:]
		st.msgs[k] = mk
	}
	list, err := table("list", s.List)
	if err != nil {
		return st, err
	}
	if len(list)%len(key{}) != 0 {
		return st, errors.New("gemini: state list: cut short")
	}
	st.list = make([]key, 0, len(list)/len(key{}))
	for ; len(list) > 0; list = list[len(key{}):] {
		st.list = append(st.list, key(list[:len(key{})]))
	}
	calls, err := table("calls", s.Calls)
	if err != nil {
		return st, err
	}
	if len(calls)%len(key{}) != 0 {
		return st, errors.New("gemini: state calls: cut short")
	}
	for ; len(calls) > 0; calls = calls[len(key{}):] {
		st.done[key(calls[:len(key{})])] = struct{}{}
	}
	for h, name := range s.Open {
		var k key
		if n, err := hex.Decode(k[:], []byte(h)); err != nil || n != len(k) || len(h) != 2*len(k) {
			return st, fmt.Errorf("gemini: state open: key %q", h)
		}
		var s string
		if err := json.Unmarshal(name, &s); err != nil {
			return st, fmt.Errorf("gemini: state open: %w", err)
		}
		st.open[k] = s
	}
	st.listed()
	return st, nil
}

// loadFirstForm reads a state of the first form, as graft wrote it before
// StateVersion: the ids themselves.
func loadFirstForm(st *mapState, raw []byte) error {
	var old struct {
		Msgs map[string]*struct {
			Text     string `json:"t,omitempty"`
			Thoughts int    `json:"th,omitempty"`
		} `json:"msgs"`
		List  []string `json:"list"`
		Calls map[string]*struct {
			Name string `json:"n"`
			Done bool   `json:"d,omitempty"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(raw, &old); err != nil {
		return err
	}
	for id, om := range old.Msgs {
		if om == nil { // a nil mark is no mark
			continue
		}
		mk := mark{present: true, thoughts: int32(max(min(om.Thoughts, math.MaxInt32), math.MinInt32))}
		var d [digestSize]byte
		switch n, err := hex.Decode(d[:], []byte(om.Text)); {
		case om.Text == "":
		case err == nil && n == digestSize && len(om.Text) == 2*digestSize && om.Text == hex.EncodeToString(d[:]):
			mk.setText(d)
		default:
			mk.has = otherText
		}
		st.msgs[keyOf(id)] = mk
	}
	st.list = make([]key, len(old.List))
	for j, id := range old.List {
		st.list[j] = keyOf(id)
	}
	for id, c := range old.Calls {
		switch {
		case c == nil:
		case c.Done:
			st.done[keyOf(id)] = struct{}{}
		default:
			st.open[keyOf(id)] = c.Name
		}
	}
	st.listed()
	return nil
}

// listed marks the ids of st.list as listed, and only them: an id of the
// list no message was imported of gets a mark that is not present. It is
// for a state read from JSON, whose marks are all in st.msgs.
func (st *mapState) listed() {
	for k, mk := range st.msgs {
		if mk.listed {
			mk.listed = false
			st.msgs[k] = mk
		}
	}
	for _, k := range st.list {
		mk := st.msgs[k]
		mk.listed = true
		st.msgs[k] = mk
	}
}

func sortedKeys[V any](m map[key]V) []key {
	keys := make([]key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return compareKeys(&a, &b) })
	return keys
}

func compareKeys(a, b *key) int { return bytes.Compare(a[:], b[:]) }

func appendStrings(b []byte, ss []string) ([]byte, error) {
	b = append(b, '[')
	for j, s := range ss {
		if j > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendString(b, s); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendString is s as json.Marshal writes it: as it is when it is
// printable ASCII that needs no escape (ids, digests, tool names), else
// through json.Marshal.
func appendString(b []byte, s string) ([]byte, error) {
	for k := 0; k < len(s); k++ {
		c := s[k]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(s)
			return append(b, q...), err
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}

// stateSize is about the size of st's JSON, to make its buffer once.
func stateSize(st *mapState) int {
	n := 64 + ((len(st.msgs)+st.base.len())*(len(key{})+2+digestSize)+(len(st.list)+len(st.done)+st.baseDone.len())*len(key{}))*4/3
	for _, name := range st.open {
		n += 2*len(key{}) + len(name) + 6
	}
	for _, t := range st.told {
		n += len(t) + 3
	}
	return n
}
