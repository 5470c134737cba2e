package gemini

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The third form of the state: binary, the content of the cursor's state
// file (importer.BinaryState, imports/<id>.state). Its tables are the
// second form's raw bytes with fixed-size entries, so a follow reads them
// where they lie: a key is found by a binary search, and a save copies
// the runs no line changed (doc.go gives the layout).

// binaryMagic starts a state file; its digit is the form.
var binaryMagic = []byte("graft gemini-cli state 3\n")

// markSize is the size of a mark's entry: the key, its flags, the text's
// digest (zeros when there is none) and the thoughts count (int32, little
// endian).
const markSize = 16 + 1 + digestSize + 4

// A mark's flags: what is held of the text (noText, hasDigest, otherText)
// in the low two bits, and these.
const (
	flagPresent = 1 << 2
	flagListed  = 1 << 3
	flagsKnown  = 3 | flagPresent | flagListed
)

func decodeMark(e []byte) mark {
	f := e[len(key{})]
	return mark{
		has:      f & 3,
		present:  f&flagPresent != 0,
		listed:   f&flagListed != 0,
		text:     [digestSize]byte(e[len(key{})+1:]),
		thoughts: int32(binary.LittleEndian.Uint32(e[len(key{})+1+digestSize:])),
	}
}

func appendMark(b []byte, k key, mk *mark) []byte {
	f := mk.has
	if mk.present {
		f |= flagPresent
	}
	if mk.listed {
		f |= flagListed
	}
	b = append(b, k[:]...)
	b = append(b, f)
	if mk.has == hasDigest {
		b = append(b, mk.text[:]...)
	} else {
		b = append(b, make([]byte, digestSize)...)
	}
	return binary.LittleEndian.AppendUint32(b, uint32(mk.thoughts))
}

// appendBinary writes st in the third form: the same state, the same
// bytes, whichever form it was read from.
func appendBinary(b []byte, st *mapState) ([]byte, error) {
	b = append(b, binaryMagic...)
	// Marks: a mark neither present nor listed is no mark.
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	n := 0
	mergeTable(st.base, sortedKeys(st.msgs), func(k key) {
		if mk := st.msgs[k]; mk.present || mk.listed {
			b = appendMark(b, k, &mk)
			n++
		}
	}, func(run []byte) {
		b = append(b, run...)
		n += len(run) / markSize
	})
	binary.LittleEndian.PutUint32(b[at:], uint32(n))
	b = appendCount(b, len(st.list))
	for _, k := range st.list {
		b = append(b, k[:]...)
	}
	at = len(b)
	b = append(b, 0, 0, 0, 0)
	n = 0
	mergeTable(st.baseDone, sortedKeys(st.done), func(k key) {
		b = append(b, k[:]...)
		n++
	}, func(run []byte) {
		b = append(b, run...)
		n += len(run) / len(key{})
	})
	binary.LittleEndian.PutUint32(b[at:], uint32(n))
	b = appendCount(b, len(st.open))
	for _, k := range sortedKeys(st.open) {
		b = append(b, k[:]...)
		b = appendText(b, st.open[k])
	}
	b = appendCount(b, len(st.told))
	for _, t := range st.told {
		b = appendText(b, t)
	}
	return b, nil
}

func appendCount(b []byte, n int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(n)) }

func appendText(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// binarySize is the size of st's third form, to make its buffer once.
func binarySize(st *mapState) int {
	n := len(binaryMagic) + 5*4 + (st.base.len()+len(st.msgs))*markSize + (len(st.list)+st.baseDone.len()+len(st.done))*len(key{})
	for _, name := range st.open {
		n += len(key{}) + binary.MaxVarintLen64 + len(name)
	}
	for _, t := range st.told {
		n += binary.MaxVarintLen64 + len(t)
	}
	return n
}

var errCut = errors.New("cut short")

// loadBinary reads a state of the third form. The state keeps data's
// tables (it must not change after). Every entry is checked: its flags,
// and the order of the keys.
func loadBinary(data []byte) (mapState, error) {
	st := newState()
	if !bytes.HasPrefix(data, binaryMagic) {
		return st, errors.New("gemini: state file: not a Gemini CLI state of form 3")
	}
	p := data[len(binaryMagic):]
	fixed := func(name string, size int) ([]byte, error) {
		if len(p) < 4 {
			return nil, fmt.Errorf("gemini: state file %s: %w", name, errCut)
		}
		n := uint64(binary.LittleEndian.Uint32(p))
		p = p[4:]
		if n*uint64(size) > uint64(len(p)) {
			return nil, fmt.Errorf("gemini: state file %s: %w", name, errCut)
		}
		t := p[:n*uint64(size)]
		p = p[n*uint64(size):]
		return t, nil
	}
	sorted := func(name string, t []byte, size int) error {
		for j := size; j < len(t); j += size {
			if bytes.Compare(t[j-size:j-size+len(key{})], t[j:j+len(key{})]) >= 0 {
				return fmt.Errorf("gemini: state file %s: keys out of order", name)
			}
		}
		return nil
	}
	msgs, err := fixed("marks", markSize)
	if err != nil {
		return st, err
	}
	for e := msgs; len(e) > 0; e = e[markSize:] {
		f := e[len(key{})]
		if f&^flagsKnown != 0 || f&3 > otherText || f&(flagPresent|flagListed) == 0 {
			return st, fmt.Errorf("gemini: state file marks: flags %#x", f)
		}
	}
	if err := sorted("marks", msgs, markSize); err != nil {
		return st, err
	}
	st.base.raw = msgs
	list, err := fixed("list", len(key{}))
	if err != nil {
		return st, err
	}
	st.list = make([]key, len(list)/len(key{}))
	for j := range st.list {
		st.list[j] = key(list[j*len(key{}):])
	}
	done, err := fixed("calls", len(key{}))
	if err != nil {
		return st, err
	}
	if err := sorted("calls", done, len(key{})); err != nil {
		return st, err
	}
	st.baseDone.raw = done
	text := func(name string) (string, error) {
		n, w := binary.Uvarint(p)
		if w <= 0 || n > uint64(len(p)-w) {
			return "", fmt.Errorf("gemini: state file %s: %w", name, errCut)
		}
		s := string(p[w : w+int(n)])
		p = p[w+int(n):]
		return s, nil
	}
	count := func(name string) (int, error) {
		if len(p) < 4 {
			return 0, fmt.Errorf("gemini: state file %s: %w", name, errCut)
		}
		n := binary.LittleEndian.Uint32(p)
		p = p[4:]
		if uint64(n) > uint64(len(p)) || n > math.MaxInt32 {
			return 0, fmt.Errorf("gemini: state file %s: %w", name, errCut)
		}
		return int(n), nil
	}
	n, err := count("open")
	if err != nil {
		return st, err
	}
	for range n {
		if len(p) < len(key{}) {
			return st, fmt.Errorf("gemini: state file open: %w", errCut)
		}
		k := key(p)
		p = p[len(key{}):]
		if st.open[k], err = text("open"); err != nil {
			return st, err
		}
	}
	if n, err = count("told"); err != nil {
		return st, err
	}
	for range n {
		t, err := text("told")
		if err != nil {
			return st, err
		}
		st.told = append(st.told, t)
	}
	if len(p) != 0 {
		return st, fmt.Errorf("gemini: state file: %d bytes after its end", len(p))
	}
	return st, nil
}
