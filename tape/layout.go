package tape

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// item is one cuttable entry of a block: a paragraph, a constraint, a todo…
// session and from..to name what to recall when it is cut ("" is the
// source session).
type item struct {
	text     string
	runes    int
	session  string
	from, to int64
}

func newItem(text, sess string, from, to int64) item {
	return item{text: text, runes: utf8.RuneCountInString(text), session: sess, from: from, to: to}
}

// section is a run of items under an optional heading. The budget cuts
// items in order (oldest first when cutFront) and says so in one cut line:
// before the items when cutFront, after them otherwise.
type section struct {
	blk              *block
	heading          string
	items            []item
	singular, plural string
	cutFront         bool
	order            []int // cut order; nil: front to back if cutFront, else back to front
	// grown are longer texts of the items ("": none), which grow puts in
	// where the budget leaves room once nothing of the section was cut.
	grown []string
	// short are shorter texts of the items ("": none), which a shrink
	// step puts in before any is cut.
	short []string
	pre   seqRange // cut by the builder's bounds before rendering
	// preOthers is what the builder cut in other sessions (inherited).
	preOthers map[string]seqRange
	cut       []bool
	ncut      int
	next      int
	shrunk    int // how far shrinkNext went along order
	live      int // Σ (1 + runes) of the items not cut
	// optional: the section says nothing, heading and cut line too, once
	// every item is cut (a longer form of what another section holds).
	optional bool
	// inOrder: the refill takes back the section's entries in its cut
	// order only: once one does not fit, none cut before it comes back.
	inOrder bool
	// of is the section whose entries this one's continue (a plan's
	// middle parts continue its head and end): the refill takes none
	// back while of is cut whole (TestNoPlanMiddleWithoutItsPlan).
	of *section
	// cutOwn and cutOthers are the seqs of the items cut so far, of the
	// source and of other sessions: kept as they are cut, so that the cut
	// line costs the same however many items were cut.
	cutOwn    seqRange
	cutOthers map[string]seqRange
}

func (s *section) init() {
	s.cut = make([]bool, len(s.items))
	s.live = 0
	for _, it := range s.items {
		s.live += 1 + it.runes
	}
	if s.order == nil {
		s.order = make([]int, len(s.items))
		for k := range s.order {
			if s.cutFront {
				s.order[k] = k
			} else {
				s.order[k] = len(s.items) - 1 - k
			}
		}
	}
}

func (s *section) canCut() bool { return s.next < len(s.order) }

// grow puts the grown texts of the section's items in place of theirs,
// newest first, each while the whole stays within room more runes; it
// returns the runes it added. It does nothing once an item was cut.
func (s *section) grow(room int) int {
	if s == nil || s.ncut > 0 {
		return 0
	}
	added := 0
	for k := len(s.items) - 1; k >= 0; k-- {
		if k >= len(s.grown) || s.grown[k] == "" {
			continue
		}
		g := newItem(s.grown[k], s.items[k].session, s.items[k].from, s.items[k].to)
		if d := g.runes - s.items[k].runes; d > 0 && added+d <= room {
			s.items[k] = g
			s.live += d
			added += d
		}
	}
	return added
}

// runesOrZero is runes, 0 for a nil section.
func (s *section) runesOrZero() int {
	if s == nil {
		return 0
	}
	return s.runes()
}

// liveItems is how many items are not cut.
func (s *section) liveItems() int { return len(s.items) - s.ncut }

// cutStep is one step of the budget's ranking: cut sec, in its own order,
// down to keep items.
type cutStep struct {
	sec  *section
	keep int
	// keepRunes, when set, ends the step once the section's entries hold
	// no more than that many runes, whatever their number.
	keepRunes int
	// shrink: the step puts in the items' short texts, keeping the last
	// keep of the order whole, instead of cutting.
	shrink bool
}

// shrinkNext puts the short text of the next item in the cut order that
// has one in place of its own and reports whether there was one (keep:
// the last keep items of the order are not shrunk).
func (s *section) shrinkNext(keep int) bool {
	for s.shrunk < len(s.order)-keep {
		k := s.order[s.shrunk]
		s.shrunk++
		if k >= len(s.short) || s.short[k] == "" || s.cut[k] {
			continue
		}
		it := newItem(s.short[k], s.items[k].session, s.items[k].from, s.items[k].to)
		if d := s.items[k].runes - it.runes; d > 0 {
			s.items[k] = it
			s.live -= d
			return true
		}
	}
	return false
}

// cutNext cuts the next item in the section's order and returns its index.
func (s *section) cutNext() int {
	k := s.order[s.next]
	s.next++
	s.cut[k] = true
	s.ncut++
	it := s.items[k]
	s.live -= 1 + it.runes
	s.addCutSeqs(it)
	return k
}

// addCutSeqs adds the seqs of the cut item it to those the cut line names.
func (s *section) addCutSeqs(it item) {
	if it.session == "" {
		s.cutOwn.add(it.from, it.to)
		return
	}
	if s.cutOthers == nil {
		s.cutOthers = map[string]seqRange{}
	}
	r := s.cutOthers[it.session]
	r.add(it.from, it.to)
	s.cutOthers[it.session] = r
}

// setCut cuts the item k or puts it back; the seqs the cut line names
// are counted again from the items cut (refill: at most refillTries
// times per Build).
func (s *section) setCut(k int, cut bool) {
	if s.cut[k] == cut {
		return
	}
	s.cut[k] = cut
	if cut {
		s.ncut++
		s.live -= 1 + s.items[k].runes
	} else {
		s.ncut--
		s.live += 1 + s.items[k].runes
	}
	s.cutOwn, s.cutOthers = seqRange{}, nil
	for j, c := range s.cut {
		if c {
			s.addCutSeqs(s.items[j])
		}
	}
}

// cutLine is "[cut: N nouns; recall seq=a..b]", or "" when nothing was cut.
func (s *section) cutLine() string {
	n := s.pre.N + s.ncut
	for _, r := range s.preOthers {
		n += r.N
	}
	if n == 0 {
		return ""
	}
	noun := s.plural
	if n == 1 {
		noun = s.singular
	}
	own := s.pre
	own.merge(s.cutOwn)
	var parts []string
	if own.N > 0 {
		parts = append(parts, seqSpan(own.From, own.To))
	}
	names := make([]string, 0, len(s.preOthers)+len(s.cutOthers))
	for name := range s.preOthers {
		names = append(names, name)
	}
	for name := range s.cutOthers {
		if _, dup := s.preOthers[name]; !dup {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		r := s.preOthers[name]
		r.merge(s.cutOthers[name])
		parts = append(parts, sessionLabel(name)+" "+seqSpan(r.From, r.To))
	}
	return fmt.Sprintf("[cut: %d %s; recall %s]", n, noun, strings.Join(parts, ", "))
}

// gone: an optional section whose items are all cut.
func (s *section) gone() bool {
	return s.optional && s.ncut == len(s.items) && s.pre.N == 0 && len(s.preOthers) == 0
}

// runes is what the section adds to its block: each line plus its '\n'.
func (s *section) runes() int {
	if s.gone() {
		return 0
	}
	n := s.live
	if s.heading != "" {
		n += 1 + utf8.RuneCountInString(s.heading)
	}
	if c := s.cutLine(); c != "" {
		n += 1 + utf8.RuneCountInString(c)
	}
	return n
}

func (s *section) lines() []string {
	if s.gone() {
		return nil
	}
	var out []string
	if s.heading != "" {
		out = append(out, s.heading)
	}
	c := s.cutLine()
	if c != "" && s.cutFront {
		out = append(out, c)
	}
	for k, it := range s.items {
		if !s.cut[k] {
			out = append(out, it.text)
		}
	}
	if c != "" && !s.cutFront {
		out = append(out, c)
	}
	return out
}

// block is one event of the tape: a marker line, head lines the budget
// never cuts, and sections.
type block struct {
	// optional: left out whole, head and cut lines too, once every item of
	// its sections is cut (the conversation tail: nothing but room).
	optional bool
	title    string
	kind     string // session.TypeUserMessage or TypeAssistantMessage
	head     []string
	sections []*section
	headLen  int
}

func newBlock(title string) *block {
	return &block{title: title, kind: session.TypeUserMessage}
}

func (b *block) addHead(lines ...string) {
	for _, l := range lines {
		b.head = append(b.head, l)
		b.headLen += 1 + utf8.RuneCountInString(l)
	}
}

func (b *block) addSection(s *section) *section {
	s.blk = b
	s.init()
	b.sections = append(b.sections, s)
	return s
}

// markerLen is the rune length of "[graft:tape xxxxxxxx] [title]".
func (b *block) markerLen() int {
	return utf8.RuneCountInString(session.GraftMarker) + 1 + shortHashLen + 3 + utf8.RuneCountInString(b.title) + 1
}

// vanished: an optional block whose items are all cut.
func (b *block) vanished() bool {
	if !b.optional || len(b.sections) == 0 {
		return false
	}
	for _, s := range b.sections {
		if s.liveItems() > 0 {
			return false
		}
	}
	return true
}

// span is what the block adds to the tape text: its runes and the "\n\n"
// before it, nothing when it vanished (totalRunes takes the first
// separator off).
func (b *block) span() int {
	if b.vanished() {
		return 0
	}
	return b.runes() + 2
}

func (b *block) runes() int {
	n := b.markerLen() + b.headLen
	for _, s := range b.sections {
		n += s.runes()
	}
	return n
}

func (b *block) bodyLines() []string {
	lines := append([]string(nil), b.head...)
	for _, s := range b.sections {
		lines = append(lines, s.lines()...)
	}
	return lines
}

const shortHashLen = 8

// text renders the block with its marker line. The short hash covers the
// source id, the title and the body, so equal blocks carry equal markers.
func (b *block) text(sourceID string) string {
	lines := b.bodyLines()
	body := strings.Join(lines, "\n")
	h := sha256.New()
	writeLP(h, []byte("graft-block-v1"))
	writeLP(h, []byte(sourceID))
	writeLP(h, []byte(b.title))
	writeLP(h, []byte(body))
	short := hex.EncodeToString(h.Sum(nil))[:shortHashLen]
	marker := session.GraftMarker + " " + short + "] [" + b.title + "]"
	if len(lines) == 0 {
		return marker
	}
	return marker + "\n" + body
}

func totalRunes(blocks []*block) int {
	n := 0
	for _, b := range blocks {
		n += b.span()
	}
	if n > 0 {
		n -= 2 // no "\n\n" before the first
	}
	return n
}
