package anchors

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// wordsByRunes is words as it was written first, over a rune slice with
// a builder per word: the reference the byte-offset words must equal.
func wordsByRunes(s string) []word {
	rs := []rune(strings.ToLower(s))
	var out []word
	gapSpaceOnly := true
	for i := 0; i < len(rs); {
		if !isWordRune(rs[i]) {
			if !unicode.IsSpace(rs[i]) {
				gapSpaceOnly = false
			}
			i++
			continue
		}
		j := i
		var b strings.Builder
		for j < len(rs) {
			r := rs[j]
			if isWordRune(r) {
				b.WriteRune(r)
				j++
				continue
			}
			if (r == '\'' || r == '’') && j > i && j+1 < len(rs) && unicode.IsLetter(rs[j-1]) && unicode.IsLetter(rs[j+1]) {
				b.WriteRune('\'')
				j++
				continue
			}
			break
		}
		out = append(out, word{text: b.String(), spaced: gapSpaceOnly && len(out) > 0})
		gapSpaceOnly = true
		i = j
	}
	return out
}

func TestWordsAsByRunes(t *testing.T) {
	for _, s := range []string{
		"", "Don't push", "don’t  PUSH!", "it's’s", "'quoted' words", "a'b'c", "x' y", "ÄÖÜ straße İstanbul",
		"Не меняй API", "必须保持。", "snake_case and 42nd", "end'", "'", "’’", "a’’b", "\xff\xfebad bytes\xc3",
		"tab\tand\nnewline", "emoji 👍 word", "ǅungla", "don’t-stop ‘x’",
	} {
		if got, want := words(s), wordsByRunes(s); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzWordsAsByRunes(f *testing.F) {
	f.Add("Don’t touch vendor/, it's generated. NEVER push")
	f.Add("\xff'a’b\u0130")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := words(s), wordsByRunes(s); !slices.Equal(got, want) {
			t.Fatalf("words(%q) = %v, want %v", s, got, want)
		}
	})
}

// pastedLog is a 200 KiB paste of a build log: lines a person pastes to
// show where it failed, of which no sentence sets a rule.
func pastedLog() string {
	var b strings.Builder
	for k := 0; b.Len() < 200<<10; k++ {
		fmt.Fprintf(&b, "npm notice %d.%dkB dist/file%d.js Error: cannot find module './x%d' at Object.<anonymous> (/home/u/app/src/index.js:%d:5)\n", k, k%10, k, k, k)
	}
	return b.String()
}

// BenchmarkSayingsPastedLog is what the tape's fold pays for the sayings
// of one human instruction of 200 KiB (a prepare, or a hook that gives the
// host the constraints block, pays it for a paste).
func BenchmarkSayingsPastedLog(b *testing.B) { benchmarkSayings(b, pastedLog()) }

func benchmarkSayings(b *testing.B, s string) {
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		for range Sayings(s) {
		}
	}
}

// FuzzASCIIPrefilterKeepsEveryMarker holds the ASCII prefilter to what it
// promises: a sentence it rules out is one hasMarker's full reading finds
// no marker in.
func FuzzASCIIPrefilterKeepsEveryMarker(f *testing.F) {
	for _, s := range []string{
		"Don't touch vendor/", "do not push", "DO  NOT push", "I said no", "i, said", "Use tabs.", "tests go in /t",
		"from now on", "it's fine", "can't", "no new deps", "a'b c'd", "make-sure", "npm ERR! cannot find module",
		"Error: x at Object.<anonymous> (/a.js:1:5)", "must_not", "MUST", "never's", "x\x00must",
		"cannot find it", "cannot\tfind", "cannot'find", "do not see", "do  not\nknow", "that don't see", "don't", "x do not",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ascii, may := asciiMayMark(s)
		// It stops at the first byte past ASCII, or at the first marker.
		if !ascii && (may || isASCII(s)) || ascii && !may && !isASCII(s) {
			t.Fatalf("asciiMayMark(%q) = %v, %v", s, ascii, may)
		}
		if !ascii {
			return
		}
		if !may && hasMarkerFull(s) {
			t.Fatalf("asciiMayMark(%q) rules out a sentence with a marker", s)
		}
	})
}

// proseLog is 200 KiB of ASCII prose a person pastes (a build's narration
// and its log), of which a few sentences set a rule.
func proseLog() string {
	var b strings.Builder
	for k := 0; b.Len() < 200<<10; k++ {
		fmt.Fprintf(&b, "The build of module %d finished after %d seconds and wrote the bundle to dist/app%d.js. ", k, k%60, k)
		fmt.Fprintf(&b, "Then the step uploaded it to the cache at https://cache.example.com/%d for the next run.\n", k)
		if k%50 == 0 {
			b.WriteString("Don't upload the bundle twice.\n")
		}
	}
	return b.String()
}

// BenchmarkSayingsProse is BenchmarkSayingsPastedLog on prose.
func BenchmarkSayingsProse(b *testing.B) { benchmarkSayings(b, proseLog()) }

// The prefilter rules out what sets no rule, and lets through a sentence
// with a marker word or pair however it is cased or spaced.
func TestASCIIPrefilter(t *testing.T) {
	for s, want := range map[string]bool{
		"The build finished after 3 seconds.":         false,
		"Then it uploaded dist/app.js to the cache.":  false,
		"donut cannon doing nothing":                  false,
		"supercalifragilisticexpialidocious-must":     true,
		"DON'T touch it":                              true,
		"Make   sure it builds":                       true,
		"do, not that":                                true, // a pair across a comma: the full reading decides
		"tests go in testdata":                        true,
		"no":                                          true,
		"it's a verylongwordthatisnotamarkerword now": false,
		"Error: cannot find module './x'":             false, // a perception verb after the negation
		"I do not  know why":                          false,
		"cannot, find":                                true, // not after white space: the full reading decides
		"You cannot push to main":                     true,
		"just don't":                                  true,
		"do not verylongwordthatisnoverb":             true,
	} {
		ascii, may := asciiMayMark(s)
		if !ascii || may != want {
			t.Errorf("asciiMayMark(%q) = %v, %v; want true, %v", s, ascii, may, want)
		}
	}
	if ascii, _ := asciiMayMark("Не меняй API"); ascii {
		t.Error("asciiMayMark reads Cyrillic as ASCII")
	}
	// A word longer than the buffer would never be found.
	for w := range wordFlags {
		if len(w) > maxMarkerWord && isASCII(w) {
			t.Errorf("word %q is longer than maxMarkerWord (%d)", w, maxMarkerWord)
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// TestASCIIPrefilterOnMarkerSentences holds the prefilter sound on
// sentences made of the words the full reading looks at (markers, pairs,
// negations, perception verbs, relatives), joined by white space and
// punctuation: random bytes rarely spell them.
func TestASCIIPrefilterOnMarkerSentences(t *testing.T) {
	vocab := []string{"do", "not", "that", "which", "who", "i", "the", "maybe", "see", "am", "it", "files", "Don't", "CANNOT"}
	for _, m := range []map[string]bool{englishMarkers, englishOpeners, negations, perceptionVerbs, markerWords} {
		for w := range m {
			if isASCII(w) {
				vocab = append(vocab, w)
			}
		}
	}
	for p := range markerPairs {
		vocab = append(vocab, strings.Fields(p)...)
	}
	slices.Sort(vocab) // map order must not change the sentences
	seps := []string{" ", "  ", ", ", "\t", "'", "? ", ": ", "-", "*"}
	rng := rand.New(rand.NewPCG(23, 59))
	var b strings.Builder
	ruledOut := 0
	for range 200000 {
		b.Reset()
		for k := range 1 + rng.IntN(6) {
			if k > 0 || rng.IntN(4) == 0 {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			b.WriteString(vocab[rng.IntN(len(vocab))])
		}
		if rng.IntN(3) == 0 {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		s := b.String()
		ascii, may := asciiMayMark(s)
		if !ascii {
			t.Fatalf("asciiMayMark(%q) says the text is not ASCII", s)
		}
		if !may {
			ruledOut++
			if hasMarkerFull(s) {
				t.Fatalf("asciiMayMark(%q) rules out a sentence with a marker", s)
			}
		}
	}
	if ruledOut == 0 {
		t.Fatal("the prefilter ruled out none of the sentences: the test reads nothing")
	}
	t.Logf("%d of 200000 sentences ruled out", ruledOut)
}
