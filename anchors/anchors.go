package anchors

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// MaxRunes caps one extracted constraint (rule 5 of the package doc).
const MaxRunes = 300

var englishMarkers = map[string]bool{
	"must": true, "never": true, "always": true, "only": true,
	"required": true, "forbidden": true, "don't": true,
	// As people say them (issue 23): "you should…", "avoid…", "X instead
	// of Y", "prefer…", "make sure…", "mustn't", "can't".
	"should": true, "shouldn't": true, "avoid": true, "instead": true, "prefer": true,
	"ensure": true, "dont": true, "mustn't": true, "cannot": true, "can't": true,
}

// englishPairs are two-word markers: "make sure", "no new …", "I said",
// "tests go in …", "not allowed"; and the words that make a request a
// standing rule: "from now on", "going forward", "every time", "each
// time", "before moving on" or "forward"; and a requirement: "need to",
// "needs to", "has to", "have to".
var englishPairs = map[[2]string]bool{
	{"make", "sure"}: true, {"no", "new"}: true, {"i", "said"}: true, {"go", "in"}: true,
	{"goes", "in"}: true, {"belong", "in"}: true, {"belongs", "in"}: true, {"not", "allowed"}: true,
	{"now", "on"}: true, {"going", "forward"}: true, {"every", "time"}: true, {"each", "time"}: true,
	{"moving", "on"}: true, {"moving", "forward"}: true,
	{"need", "to"}: true, {"needs", "to"}: true, {"has", "to"}: true, {"have", "to"}: true,
}

// englishOpeners mark a sentence that starts with them: the imperative
// of a standing rule ("use X", "keep it under N", "stop …", "leave Z
// alone", "stick to …") or a correction ("no, …").
var englishOpeners = map[string]bool{
	"use": true, "keep": true, "stop": true, "leave": true, "stick": true, "no": true,
}

var russianMarkers = map[string]bool{
	"нельзя": true, "обязательно": true, "никогда": true, "только": true,
}

var chineseMarkers = []string{"必须", "不要", "禁止", "不得", "务必", "只能"}

// Extract returns the constraint sentences of one human instruction, in the
// order they appear (rules in the package doc).
func Extract(text string) []string {
	var out []string
	seen := map[string]bool{}
	for s := range Sayings(text) {
		key := Normalize(s)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, s)
	}
	return out
}

// Sayings yields the constraint sentences of text in order, by rules 1-5
// of the package doc: what Extract returns, before rule 6 drops repeats.
// It holds nothing but the sentence at hand, so a fold can read a pasted
// text of many MB without keeping its sentences. A sentence is most often
// a substring of text: clone one to keep it without keeping text.
func Sayings(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		inFence := false
		for rest := text; rest != ""; {
			// The lines of strings.FieldsFunc(text, '\n' or '\r'), one at a time.
			line := rest
			if i := strings.IndexAny(rest, "\n\r"); i >= 0 {
				line, rest = rest[:i], rest[i+1:]
			} else {
				rest = ""
			}
			if line == "" {
				continue
			}
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				inFence = !inFence
				continue
			}
			if inFence || isOutputLine(trimmed) {
				continue
			}
			for s := range sentences(line) {
				s = trimListMarker(strings.TrimSpace(s))
				if s == "" || !hasMarker(s) {
					continue
				}
				c := capRunes(s, MaxRunes)
				if c != s && Normalize(c) == "" {
					// Its head holds no letter or digit: it says
					// nothing, and no text holds it (rule 5).
					continue
				}
				if !yield(c) {
					return
				}
			}
		}
	}
}

// outputPrefixes open the report lines of test runners, compilers and
// tools (rule 1).
var outputPrefixes = []string{"E ", "E\t", "FAILED ", "FAIL\t", "--- FAIL", "ERROR ", "ERROR:", "error:", "error[", "Error:",
	"fatal:", "warning:", "panic:", "npm ERR!", "Traceback (", `(use "git `, "(no output)"}

// isOutputLine: a line of pasted program output (rule 1): one that opens
// as a report line (outputPrefixes), a diff's added or removed line of
// code ("+use policy::{", "-x = 1;"), or one that names an error or an
// exception type with its colon ("ImportError: …", "IOException: …").
func isOutputLine(line string) bool {
	for _, p := range outputPrefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return isDiffLine(line) || NamesErrorType(line) || isCodeLine(line) || isAssignment(line) || isTaggedLog(line) || isFrameRow(line) ||
		isErrnoLine(line) || isBanner(line) || strings.ContainsRune(line, '\t')
}

// errnoMessages end a program's error in strerror's form (and the shell's
// "command not found").
var errnoMessages = []string{"No such file or directory", "Permission denied", "command not found", "Operation not permitted",
	"Is a directory", "Not a directory", "File exists", "Directory not empty", "Connection refused"}

// isErrnoLine: a program's error as programs print it, its name and a
// colon first, a system error last ("ls: cannot access 'x/': No such file
// or directory"): pasted output, no rule of the person's
// (TestPastedErrorsBannersAndTableRowsAreNoConstraints). A line with a
// tab in it (trimmed) is a table's row copied from a page or a terminal.
func isErrnoLine(line string) bool {
	i := strings.Index(line, ": ")
	if i <= 0 || strings.ContainsAny(line[:i], " \t") {
		return false
	}
	for _, m := range errnoMessages {
		if strings.HasSuffix(line, m) {
			return true
		}
	}
	return false
}

// isBanner: a line framed in asterisks, "*** System restart required ***"
// (a server's login message, a tool's notice).
func isBanner(line string) bool {
	return len(line) > 6 && strings.HasPrefix(line, "***") && strings.HasSuffix(line, "***")
}

// frameSides are the box-drawing characters a drawn frame's rows open and
// close with.
const frameSides = "│┃║"

// isFrameRow: a row of a frame drawn with box-drawing characters, "│ … │"
// (Python rich's traceback, a terminal UI's panel): program output
// (TestADrawnFramesRowIsNoConstraint).
func isFrameRow(line string) bool {
	t := strings.TrimSpace(line)
	first, _ := utf8.DecodeRuneInString(t)
	last, _ := utf8.DecodeLastRuneInString(t)
	return len(t) > 2*len("│") && strings.ContainsRune(frameSides, first) && strings.ContainsRune(frameSides, last)
}

// isAssignment: a line that opens as "name = value", one word before the
// equals sign: a test runner's dump of a frame's locals ("self =
// _SubParsersAction(…)", "tmp_path = PosixPath(…)") or a line of code.
func isAssignment(line string) bool {
	i := strings.Index(line, " = ")
	if i <= 0 {
		return false
	}
	for k := 0; k < i; k++ {
		if c := line[k]; !isWordByte(c) && c != '.' && c != '[' && c != ']' {
			return false
		}
	}
	return true
}

// logLevels are the levels a tool's log line names after its tag.
var logLevels = map[string]bool{"warn": true, "warning": true, "info": true, "error": true, "debug": true, "notice": true, "verbose": true, "trace": true}

// isTaggedLog: a tool's log line, its level word behind a tag that is no
// word: a symbol or a bracket ("🦋  warn …", "[WARN] …", "⚠️ info: …");
// a sentence or a list item that opens with "Warn" is the user's, and so
// is one behind a symbol that opens with a capital ("⚠️ Error messages …").
func isTaggedLog(line string) bool {
	k := strings.IndexFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
	if k <= 0 || strings.ContainsFunc(line[:k], func(r rune) bool { return r < utf8.RuneSelf && r != '[' && r != ' ' && r != '\t' }) {
		return false // no tag, or a list marker ("- warn the user …")
	}
	end := k
	for end < len(line) && isWordByte(line[end]) {
		end++
	}
	word := line[k:end]
	if !logLevels[strings.ToLower(word)] {
		return false
	}
	// Behind a symbol a tool prints its level in lower case ("🦋  warn");
	// a person's sentence opens with a capital ("⚠️ Error messages must …").
	if !strings.Contains(line[:k], "[") && word != strings.ToLower(word) {
		return false
	}
	return end == len(line) || strings.ContainsRune(" :]", rune(line[end]))
}

// isCodeLine: a line of program text, not a sentence: it ends with ";"
// or "{", or names a path with "::" between two words ("use
// std::collections::HashMap;", "use solana_sdk::{").
func isCodeLine(line string) bool {
	if strings.HasSuffix(line, ";") || strings.HasSuffix(line, "{") {
		return true
	}
	for i := strings.Index(line, "::"); i >= 0; {
		if i > 0 && i+2 < len(line) && isWordByte(line[i-1]) && isWordByte(line[i+2]) {
			return true
		}
		j := strings.Index(line[i+2:], "::")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// NamesErrorType: line names an error or exception type with its colon
// ("ImportError: …", "IOException: …", "assert x: AssertionError: …"),
// one qualified by its module or package too, by its last dotted name
// ("json.decoder.JSONDecodeError: …", "java.lang.IllegalStateException:
// …": TestAQualifiedExceptionNamesAnErrorType).
func NamesErrorType(line string) bool {
	for rest := line; ; {
		i := strings.IndexByte(rest, ':')
		if i < 0 {
			return false
		}
		w := rest[:i]
		if j := strings.LastIndexAny(w, " \t([{'\""); j >= 0 {
			w = w[j+1:]
		}
		if j := strings.LastIndexByte(w, '.'); j >= 0 {
			w = w[j+1:]
		}
		if len(w) > len("Error") && (strings.HasSuffix(w, "Error") || strings.HasSuffix(w, "Exception")) && w[0] >= 'A' && w[0] <= 'Z' {
			return true
		}
		rest = rest[i+1:]
	}
}

// isDiffLine: "+" or "-" straight before the line's text, not a list
// marker ("- item") nor a rule ("---"), and the text reads as code: it
// holds a brace, a semicolon, an equals sign or "::".
func isDiffLine(line string) bool {
	if len(line) < 2 || (line[0] != '+' && line[0] != '-') {
		return false
	}
	if c := line[1]; c == ' ' || c == '\t' || c == '+' || c == '-' {
		return false
	}
	return strings.ContainsAny(line[1:], "{};=") || strings.Contains(line, "::")
}

// sentences splits one line after 。！？ and after . ! ? followed by white
// space or the end of the line, yielding each sentence in order. The
// sentences are substrings of line, and none is kept: a line of many MB
// costs no list of its sentences. A line that is not valid UTF-8 is split
// rune by rune, each bad byte becoming U+FFFD, as a []rune conversion does.
func sentences(line string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if !utf8.ValidString(line) {
			for _, s := range sentencesRunes(line) {
				if !yield(s) {
					return
				}
			}
			return
		}
		start := 0
		for i := 0; i < len(line); {
			r, n := utf8.DecodeRuneInString(line[i:])
			end := false
			switch r {
			case '。', '！', '？':
				end = true
			case '.', '!', '?':
				if i+n == len(line) {
					end = true
				} else {
					next, _ := utf8.DecodeRuneInString(line[i+n:])
					end = unicode.IsSpace(next)
				}
			}
			i += n
			if end {
				if !yield(line[start:i]) {
					return
				}
				start = i
			}
		}
		if start < len(line) {
			yield(line[start:])
		}
	}
}

// sentencesRunes is sentences over the runes of a line that is not valid
// UTF-8.
func sentencesRunes(line string) []string {
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

func trimListMarker(s string) string {
	for _, p := range []string{"- ", "* ", "• ", "+ ", "> "} {
		if strings.HasPrefix(s, p) {
			return strings.TrimSpace(s[len(p):])
		}
	}
	// "1. " and "1) "
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return strings.TrimSpace(s[i+2:])
	}
	return s
}

func capRunes(s string, n int) string {
	if len(s) <= n { // bytes ≥ runes: short strings need no rune count
		return s
	}
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n-1]) + "…"
}

// word is one token of a sentence; spaced says whether only white space
// separates it from the previous word.
type word struct {
	text   string
	spaced bool
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// words splits s into lower-case words (rule 4 of the package doc). A
// word is a substring of the lower-cased s (a curly apostrophe inside it
// read as a straight one): no rune slice, no copy per word, for it reads
// every sentence of every instruction (a pasted log too).
func words(s string) []word {
	low := strings.ToLower(s) // valid UTF-8: ToLower maps a bad byte to U+FFFD
	var out []word
	gapSpaceOnly := true
	for i := 0; i < len(low); {
		r, n := utf8.DecodeRuneInString(low[i:])
		if !isWordRune(r) {
			if !unicode.IsSpace(r) {
				gapSpaceOnly = false
			}
			i += n
			continue
		}
		j, prev, curly := i, r, false
		for j < len(low) {
			r, n := utf8.DecodeRuneInString(low[j:])
			if isWordRune(r) {
				prev, j = r, j+n
				continue
			}
			if (r == '\'' || r == '’') && j > i && j+n < len(low) && unicode.IsLetter(prev) {
				if next, _ := utf8.DecodeRuneInString(low[j+n:]); unicode.IsLetter(next) {
					curly = curly || r == '’'
					prev, j = r, j+n
					continue
				}
			}
			break
		}
		text := low[i:j]
		if curly {
			text = strings.ReplaceAll(text, "’", "'")
		}
		out = append(out, word{text: text, spaced: gapSpaceOnly && len(out) > 0})
		gapSpaceOnly = true
		i = j
	}
	return out
}

// hasMarker says whether sentence s sets a rule (rules 2-4 of the package
// doc). An ASCII sentence without a word that can open one is ruled out
// before the full reading (asciiMayMark): most of a pasted log or
// transcript is such sentences, and the tape's fold reads them all (a
// prepare, and a hook that gives the host the constraints block).
func hasMarker(s string) bool {
	if ascii, may := asciiMayMark(s); ascii && !may {
		return false
	}
	return hasMarkerFull(s)
}

// markerWords and markerPairs are every word, and every two words in a
// row ("make sure", "no new"), that hasMarkerFull can find a rule by, but
// a negation (negations: "don't", "cannot", and "do not"), which sets a
// rule unless a perception verb follows it ("cannot find", "don't know"):
// a sentence holding none of them sets none.
var markerWords, markerPairs = func() (map[string]bool, map[string]bool) {
	ws := map[string]bool{}
	for _, m := range []map[string]bool{englishMarkers, englishOpeners, russianMarkers} {
		for w := range m {
			if !negations[w] {
				ws[w] = true
			}
		}
	}
	ps := map[string]bool{}
	for p := range englishPairs {
		ps[p[0]+" "+p[1]] = true
	}
	return ws, ps
}()

// negations are the words hasMarkerFull reads before its markers: a rule
// unless a perception verb follows ("I don't see it").
var negations = map[string]bool{"don't": true, "dont": true, "can't": true, "cannot": true}

// What a word is to asciiMayMark (wordFlags): one lookup a word.
const (
	fMarker     = 1 << iota // in markerWords
	fPairFirst              // the first word of a pair in markerPairs
	fPairSecond             // the second word of one
	fNegation               // in negations
	fPerception             // in perceptionVerbs
	fDo                     // "do", of "do not"
)

// wordFlags maps each word asciiMayMark looks for to what it is.
var wordFlags = func() map[string]uint8 {
	fs := map[string]uint8{"do": fDo}
	for w := range markerWords {
		fs[w] |= fMarker
	}
	for p := range englishPairs {
		fs[p[0]] |= fPairFirst
		fs[p[1]] |= fPairSecond
	}
	for w := range negations {
		fs[w] |= fNegation
	}
	for w := range perceptionVerbs {
		fs[w] |= fPerception
	}
	return fs
}()

// maxMarkerWord is the longest word of wordFlags in bytes: a longer word
// is none of them.
const maxMarkerWord = 16

// asciiMayMark says whether s may set a rule: whether it holds one of
// markerWords or markerPairs, or a negation that no perception verb
// follows after white space, its words split and lower-cased as words
// does. It stops at the first of them (true, true), or at the first byte
// past ASCII (false, false: the full reading decides). It copies nothing
// of s: a word is read into a buffer on the stack.
func asciiMayMark(s string) (ascii, may bool) {
	var cur, prev [maxMarkerWord]byte
	n, np := 0, 0              // the lengths of cur and prev; -1: longer than maxMarkerWord
	var flags, prevFlags uint8 // what cur and prev are (wordFlags)
	inWord := false            // s[i] continues the word in cur
	spaced := false            // only white space since the previous word
	negated := false           // the previous word was a negation ("cannot", "do not")
	// end reads the word in cur, which has just ended: whether it makes
	// s a candidate.
	end := func() bool {
		flags = 0
		if n > 0 {
			flags = wordFlags[string(cur[:n])]
		}
		if negated && !(spaced && flags&fPerception != 0) {
			return true
		}
		if flags&fMarker != 0 {
			return true
		}
		if prevFlags&fPairFirst != 0 && flags&fPairSecond != 0 {
			var pair [2*maxMarkerWord + 1]byte
			k := copy(pair[:], prev[:np])
			pair[k] = ' '
			k += 1 + copy(pair[k+1:], cur[:n])
			if markerPairs[string(pair[:k])] {
				return true
			}
		}
		negated = flags&fNegation != 0 || prevFlags&fDo != 0 && n == 3 && string(cur[:3]) == "not"
		prev, np, prevFlags = cur, n, flags
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return false, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		isWord := 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_'
		// An apostrophe between two letters is inside the word ("don't").
		if c == '\'' && inWord && i+1 < len(s) && isASCIILetter(s[i-1]) && isASCIILetter(s[i+1]) {
			isWord = true
		}
		if isWord {
			if !inWord {
				inWord, n = true, 0
			}
			switch {
			case n < 0:
			case n == maxMarkerWord:
				n = -1
			default:
				cur[n] = c
				n++
			}
			continue
		}
		if inWord {
			inWord = false
			if end() {
				return true, true
			}
			spaced = true
		}
		if c != ' ' && (c < '\t' || c > '\r') {
			spaced = false
		}
	}
	if inWord && end() {
		return true, true
	}
	return true, negated
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// hasMarkerFull is hasMarker's full reading of a sentence.
func hasMarkerFull(s string) bool {
	for _, m := range chineseMarkers {
		if strings.Contains(s, m) {
			return true
		}
	}
	ws := words(s)
	if len(ws) <= maxLabelWords && strings.HasSuffix(strings.TrimRight(s, "* "), ":") {
		return false // a label ("Next required action:"): the lines under it say the rules
	}
	// An opener opens an imperative: the sentence starts with its word
	// (bold or code at most), not with a status mark ("✅ No more …").
	if len(ws) > 1 && englishOpeners[ws[0].text] && startsWithLetter(strings.TrimLeft(s, "*_`")) {
		return true
	}
	// A question asks: its "should", "only" or "need to" is no rule
	// ("should they?", "what do I need to do?"); its "make sure", "don't"
	// or "never" still is ("can you make sure the tests pass?").
	// A hedge ("maybe …", "perhaps …") suggests and a report of what the
	// person sees tells: their asking markers are no rule either.
	question := strings.HasSuffix(strings.TrimSpace(s), "?")
	if question && len(ws) > 0 && whWords[ws[0].text] {
		// It asks what, why or how: it wants to know, whatever its
		// markers ("what can't I use?", "how do I make sure …?").
		return false
	}
	asking := question || len(ws) > 0 && hedges[ws[0].text] || seesReport(ws)
	// relative: ws[k] follows "that", "which" or "who", whose clause says
	// what a thing is ("ones that don't need expansion"), not what to do.
	relative := func(k int) bool { return k > 0 && ws[k].spaced && relatives[ws[k-1].text] }
	// next is the word after ws[k], when white space only is between them.
	next := func(k int) string {
		if k+1 < len(ws) && ws[k+1].spaced {
			return ws[k+1].text
		}
		return ""
	}
	for k, w := range ws {
		switch {
		case w.text == "don't" || w.text == "dont" || w.text == "can't" || w.text == "cannot":
			if !perceptionVerbs[next(k)] && !relative(k) {
				return true
			}
		case w.text == "only" && k > 0 && ws[k-1].text == "the" && w.spaced:
			// "the only difference" names a thing; it restricts nothing.
		case englishMarkers[w.text] || russianMarkers[w.text]:
			if !asking || !askingMarkers[w.text] {
				return true
			}
		}
		if n := next(k); n != "" && englishPairs[[2]string{w.text, n}] && (!asking || !askingPairs[[2]string{w.text, n}]) {
			return true
		}
		if w.text == "do" && next(k) == "not" && !perceptionVerbs[next(k+1)] && !relative(k) {
			return true
		}
		if w.text == "не" && startsWithLetter(next(k)) && !russianReport(next(k)) {
			return true
		}
	}
	return false
}

// russianReport: w (lower case) is a Russian verb in the third person,
// present or past ("работает", "запускается", "может", "нашёл", "было"):
// after "не" it reports what happens, as English "doesn't" does, and sets
// no rule; an imperative ("меняй", "торопись"), an infinitive
// ("коммитить") or "нужно" after it sets one.
func russianReport(w string) bool {
	if russianDeontic[w] {
		return false // "не следует", "не допускается": the rule in the third person
	}
	for _, e := range russianReportEndings {
		if strings.HasSuffix(w, e) && utf8.RuneCountInString(w) > utf8.RuneCountInString(e)+1 {
			return true
		}
	}
	return false
}

// russianDeontic are the third-person verbs by which Russian states a rule
// ("не следует менять", "не допускается", "не стоит трогать").
var russianDeontic = map[string]bool{"следует": true, "стоит": true, "допускается": true, "разрешается": true,
	"рекомендуется": true, "полагается": true}

// russianReportEndings end a Russian verb's third person (present: -ет,
// -ёт, -ит, -ут, -ют, -ат, -ят and their reflexive -ся) or its past (-л,
// -ла, -ло, -ли, -лся, -лась, -лось, -лись).
var russianReportEndings = []string{"ется", "ётся", "ится", "утся", "ются", "атся", "ятся",
	"ет", "ёт", "ит", "ут", "ют", "ат", "ят",
	"лся", "лась", "лось", "лись", "л", "ла", "ло", "ли"}

// maxLabelWords: a sentence of at most this many words that ends with a
// colon is a label for what follows it.
const maxLabelWords = 4

// whWords open a question that asks for what the person wants to know,
// hedges open a sentence that suggests ("maybe …", "perhaps …"), and
// relatives open a clause that says what a thing is ("those that don't
// need it", "files which do not change").
var (
	whWords   = map[string]bool{"what": true, "why": true, "how": true, "where": true, "when": true, "which": true, "who": true, "whose": true}
	hedges    = map[string]bool{"maybe": true, "perhaps": true}
	relatives = map[string]bool{"that": true, "which": true, "who": true}
)

// seesReport: the sentence opens as a report of what the person sees or
// gets ("I see …", "I'm getting …", "I am now seeing …"): as in a question,
// its asking markers are no rule ("… in the cli only").
func seesReport(ws []word) bool {
	k := 0
	switch {
	case len(ws) > 1 && ws[0].text == "i" && ws[1].text == "am":
		k = 2
	case len(ws) > 0 && (ws[0].text == "i'm" || ws[0].text == "i"):
		k = 1
	default:
		return false
	}
	for k < len(ws) && reportAdverbs[ws[k].text] {
		k++
	}
	return k < len(ws) && seeingVerbs[ws[k].text]
}

var (
	reportAdverbs = map[string]bool{"now": true, "still": true, "also": true, "just": true, "only": true}
	seeingVerbs   = map[string]bool{"see": true, "seeing": true, "saw": true, "get": true, "getting": true, "got": true,
		"notice": true, "noticed": true, "noticing": true}
)

// askingMarkers and askingPairs make no rule in a question, a hedge or a
// report of what the person sees.
var (
	askingMarkers = map[string]bool{"should": true, "only": true}
	askingPairs   = map[[2]string]bool{{"need", "to"}: true, {"needs", "to"}: true, {"has", "to"}: true, {"have", "to"}: true}
)

// perceptionVerbs after "don't", "do not", "can't" or "cannot" report what the person sees
// or knows ("I do not see it in the logs"): no rule.
var perceptionVerbs = map[string]bool{"see": true, "know": true, "think": true, "understand": true, "notice": true,
	"get": true, "remember": true, "recall": true, "hear": true, "believe": true, "find": true}

func startsWithLetter(s string) bool {
	for _, r := range s {
		return unicode.IsLetter(r)
	}
	return false
}

// Normalize is the identity of a constraint: lower case, every run of
// non-letters and non-digits one space, trimmed.
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r < utf8.RuneSelf {
			// ASCII, as the unicode tables class and fold it.
			c := byte(r)
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
				if space && b.Len() > 0 {
					b.WriteByte(' ')
				}
				space = false
				b.WriteByte(c)
				continue
			}
			space = true
			continue
		}
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

// older reports whether a was said before b. Across generations the lower
// generation is older; seqs compare only within one session.
func older(a, b session.Origin) bool {
	if a.Generation != b.Generation {
		return a.Generation < b.Generation
	}
	return a.Session == b.Session && a.Seq < b.Seq
}

// Merge adds the constraints of one human instruction (text, said at
// origin) to inherited and returns the result; inherited is not modified.
// A constraint already present keeps its oldest origin and gets the other
// one in Also, once. It copies inherited: a fold that merges message after
// message uses a Set.
func Merge(inherited []session.Constraint, text string, origin session.Origin) []session.Constraint {
	out := make([]session.Constraint, len(inherited))
	for k, c := range inherited {
		c.Also = append([]session.Origin(nil), c.Also...)
		out[k] = c
	}
	set := NewSet(out)
	set.Add(text, origin, 0)
	return set.List()
}

// alsoIndexed is the length from which a Set looks an origin up in a map
// instead of scanning the constraint's Also list.
const alsoIndexed = 8

// Set is a list of constraints that human instructions are merged into,
// one after another, as Merge merges them, at a cost that does not grow
// with what the list already holds: the index of Normalize forms and the
// origins of long Also lists are kept beside it.
type Set struct {
	list  []session.Constraint
	index map[string]int
	// also holds, for each constraint whose Also list reached
	// alsoIndexed when it was looked at, the origins in it.
	also map[int]map[session.Origin]struct{}
}

// NewSet starts a set from cs, which it takes over: the caller must not
// change cs afterwards. Among constraints of cs with equal Normalize forms,
// the first is the one merged into.
func NewSet(cs []session.Constraint) *Set {
	s := &Set{list: cs, index: make(map[string]int, len(cs))}
	for k, c := range cs {
		key := Normalize(c.Text)
		if _, dup := s.index[key]; !dup {
			s.index[key] = k
		}
	}
	return s
}

// List is the constraints, in the order they were first met. It is the
// set's own slice, valid until the next Add.
func (s *Set) List() []session.Constraint { return s.list }

// Add merges the constraints of one human instruction (text, said at
// origin), as Merge does. A constraint not yet in the set is added only
// while the set holds fewer than max (0: no limit); Add returns how many
// sentences of text it did not keep for that reason, each one counted (a
// sentence said twice counts twice).
func (s *Set) Add(text string, origin session.Origin, max int) (dropped int) {
	_, dropped = s.AddCounted(text, origin, max)
	return dropped
}

// AddCounted is Add that also says how many sayings text held, those it
// dropped included: a caller that asks whether any was kept (a kept one
// cites the instruction) reads text once.
func (s *Set) AddCounted(text string, origin session.Origin, max int) (sayings, dropped int) {
	for sentence := range Sayings(text) {
		sayings++
		key := Normalize(sentence)
		k, ok := s.index[key]
		if !ok {
			if max > 0 && len(s.list) >= max {
				dropped++
				continue
			}
			// A clone: a substring would keep the whole message alive.
			s.index[key] = len(s.list)
			s.list = append(s.list, session.Constraint{Text: strings.Clone(sentence), Origin: origin})
			continue
		}
		c := &s.list[k]
		if older(origin, c.Origin) {
			// Said earlier than the copy we hold: the earlier saying is the origin.
			prev := c.Origin
			c.Origin, c.Text = origin, strings.Clone(sentence)
			s.removeAlso(k, origin)
			s.addAlso(k, prev)
			continue
		}
		if origin != c.Origin {
			s.addAlso(k, origin)
		}
	}
	return sayings, dropped
}

// hasAlso reports whether constraint k lists o in Also.
func (s *Set) hasAlso(k int, o session.Origin) bool {
	c := &s.list[k]
	if len(c.Also) < alsoIndexed {
		return slices.Contains(c.Also, o)
	}
	m := s.also[k]
	if m == nil {
		if s.also == nil {
			s.also = map[int]map[session.Origin]struct{}{}
		}
		m = make(map[session.Origin]struct{}, len(c.Also))
		for _, x := range c.Also {
			m[x] = struct{}{}
		}
		s.also[k] = m
	}
	_, ok := m[o]
	return ok
}

func (s *Set) addAlso(k int, o session.Origin) {
	if s.hasAlso(k, o) {
		return
	}
	c := &s.list[k]
	c.Also = append(c.Also, o)
	if m := s.also[k]; m != nil {
		m[o] = struct{}{}
	}
}

func (s *Set) removeAlso(k int, o session.Origin) {
	if !s.hasAlso(k, o) {
		return
	}
	c := &s.list[k]
	c.Also = slices.DeleteFunc(c.Also, func(x session.Origin) bool { return x == o })
	if m := s.also[k]; m != nil {
		delete(m, o)
	}
}

// AnchorLine is the pinned first line of the Hard Constraints block
// (docs/DESIGN.md §4.2), naming the oldest origin.
func AnchorLine(oldest session.Origin) string {
	return fmt.Sprintf("[ANCHOR] Core constraints originate from generation %d session %s, seq=%d; re-read it first when in doubt. The HARD CONSTRAINTS below are copies extracted from the user's own words, not something this generation's user just said.",
		oldest.Generation, oldest.Session, oldest.Seq)
}

// Oldest returns the oldest origin among cs (lowest generation, then session
// id, then seq, so ties resolve the same way every time); false when cs is
// empty.
func Oldest(cs []session.Constraint) (session.Origin, bool) {
	if len(cs) == 0 {
		return session.Origin{}, false
	}
	best := cs[0].Origin
	for _, c := range cs[1:] {
		o := c.Origin
		switch {
		case o.Generation != best.Generation:
			if o.Generation < best.Generation {
				best = o
			}
		case o.Session != best.Session:
			if o.Session < best.Session {
				best = o
			}
		case o.Seq < best.Seq:
			best = o
		}
	}
	return best, true
}

// Holds reports whether the origin event's text still contains the
// constraint, both compared after Normalize. An empty constraint never holds.
func Holds(originText, constraint string) bool {
	c := Normalize(constraint)
	if c == "" {
		return false
	}
	return strings.Contains(Normalize(originText), c)
}

// HoldsAll is Holds(originText, c) for each of constraints, reading the
// origin text once: a constraint that is one of the text's own sayings
// (the normal case: it was extracted from that text) holds without a
// search; only the others are searched for in the text's Normalize form.
func HoldsAll(originText string, constraints []string) []bool {
	out := make([]bool, len(constraints))
	want := make(map[string][]int, len(constraints))
	for k, c := range constraints {
		if key := Normalize(c); key != "" {
			want[key] = append(want[key], k)
		}
	}
	for sentence := range Sayings(originText) {
		if len(want) == 0 {
			return out
		}
		key := Normalize(sentence)
		if ks, ok := want[key]; ok {
			for _, k := range ks {
				out[k] = true
			}
			delete(want, key)
		}
	}
	if len(want) == 0 {
		return out
	}
	norm := Normalize(originText)
	for key, ks := range want {
		if strings.Contains(norm, key) {
			for _, k := range ks {
				out[k] = true
			}
		}
	}
	return out
}
