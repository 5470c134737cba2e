package anchors

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"
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

// BenchmarkSayingsPastedLog is what the fold pays for the sayings of one
// human instruction of 200 KiB (a per-turn hook pays it for a paste).
func BenchmarkSayingsPastedLog(b *testing.B) {
	s := pastedLog()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		for range Sayings(s) {
		}
	}
}
