// Package anchors extracts hard constraints from human instructions and
// carries their original origin {generation, session, seq} through every
// graft (docs/DESIGN.md §4.2, issue 6).
//
// Only human instructions are sources (session.Event.IsHumanInstruction);
// the caller applies that filter, this package only reads the text it is
// given.
//
// # Extraction rules (Extract)
//
//  1. Lines inside fenced code blocks (a line starting with ``` or ~~~
//     opens or closes a fence) are skipped: pasted code and logs are not the
//     user's words. So are lines of program output pasted without a fence
//     (isOutputLine): a line that opens as a test runner's, a compiler's
//     or a tool's report ("E ", "FAILED ", "--- FAIL", "ERROR", "error:",
//     "Error:", "fatal:", "warning:", "panic:", "npm ERR!", "Traceback (",
//     git's hint "(use "git …", a host's "(no output)"), a diff's added or
//     removed line of code ("+" or "-" straight before text holding a
//     brace, a semicolon, "=" or "::"), or a line that names an error or
//     exception type with its colon ("ImportError: cannot import name …",
//     one qualified by its module or package by its last dotted name,
//     "java.lang.IllegalStateException: … must not be null"), or a row of
//     a frame drawn with box-drawing characters ("│ … │": Python rich's
//     traceback, a terminal UI's panel), a program's error in strerror's
//     form, its name and a colon first and a system error last ("ls:
//     cannot access 'x/': No such file or directory", "Permission
//     denied", "command not found"), a banner framed in asterisks ("***
//     System restart required ***"), or a line with a tab inside it (a
//     table's row copied from a page or a terminal):
//     its "cannot", "use" and "must" are the program's; and a line of
//     program text: one that ends with ";" or "{", or names a path with
//     "::" between two words ("use std::collections::HashMap;"), or opens
//     as "name = value" (a test runner's dump of a frame's locals: "self =
//     _SubParsersAction(…)"); and a tool's log line, its level word (warn,
//     info, error, …) behind a tag that is no word nor list marker ("🦋
//     warn If you meant …", "[WARN] …").
//  2. Every other line is split into sentences after 。！？ (always) and
//     after . ! ? when followed by white space or the end of the line.
//  3. A sentence is trimmed of white space and of a leading list marker
//     ("- ", "* ", "• ", "+ ", "> ", "1. ", "1) ").
//  4. A sentence is a constraint when it carries a marker:
//     - English, whole words, case-insensitive: must, never, always, only,
//     required, forbidden, don't (also with ’), and "do not" (two words
//     separated by white space only); as people say their rules (issue
//     23): should, shouldn't, avoid, instead, prefer, ensure, dont,
//     mustn't, cannot, can't; the pairs "make sure", "no new", "I said",
//     "go in", "goes in", "belong in", "belongs in", "not allowed", and
//     those that make a request a standing rule: "now on" (from now on),
//     "going forward", "every time", "each time", "moving on", "moving
//     forward" (before moving on), and the requirements "need to", "needs
//     to", "has to", "have to" ("instructions need to be clear") (white
//     space only between them); and a sentence of two words or more that
//     opens with use, keep, stop, leave, stick or no ("Use pnpm, not npm",
//     "Keep it under 200 lines", "No, I said the staging bucket"), the
//     word its start, in bold or code at most ("**Stop and report**"; not
//     behind a status mark: "✅ No more errors" reports);
//     - Chinese, substring: 必须 不要 禁止 不得 务必 只能;
//     - Russian, whole words (Unicode letters), case-insensitive: нельзя,
//     обязательно, никогда, только, and "не" followed by a word (white space
//     only between them) that is not a verb in the third person, present
//     or past ("не работает", "не запускается", "не нашёл" report what
//     happens, as English "doesn't" does), but the ones that state a rule
//     ("не следует", "не стоит", "не допускается").
//     A word is a run of letters, digits and '_'; an apostrophe between two
//     letters belongs to the word.
//     Some sayings carry a marker and are no rule: a question (it ends
//     with "?"), a hedge (it opens with maybe or perhaps) or a report of
//     what the person sees (it opens with "I see", "I saw", "I get", "I
//     notice", also as "I'm seeing", "I am now getting" …) whose markers
//     are only should, only, need to, needs to, has to or have to ("should
//     they?", "what do I need to do?", "maybe this should be 0.1.1", "I am
//     now seeing the logs in the cli only"); a
//     report of what the person sees or knows: don't, do not, can't or
//     cannot followed by see, know, think, understand, notice, get,
//     remember, recall, hear, believe or find ("I do not see it in the
//     logs"); a clause that says what a thing is: don't, do not, can't or
//     cannot right after that, which or who ("short ones that don't need
//     expansion"); and "the only", which names a thing ("that's the only
//     difference"). Another marker in the sentence still makes it a rule.
//     A question that opens with what, why, how, where, when, which, who
//     or whose asks for what the person wants to know and is no rule
//     whatever it holds ("what can't I use?", "how do I make sure they
//     work?"); a request put as a question still is ("can you make sure
//     the tests pass?").
//     A label, a sentence of at most 4 words that ends with a colon ("Next
//     required action:", "**Must haves:**"), is no rule whatever it holds:
//     the lines under it say the rules.
//  5. A constraint longer than MaxRunes runes is cut to MaxRunes-1 runes
//     plus "…"; one whose cut head holds no letter or digit (a rule of
//     box-drawing characters before the words) is dropped: it says
//     nothing, and Normalize leaves nothing of it for Holds to find.
//  6. Sentences equal after Normalize are kept once, first one wins.
//
// The output depends on the text only: same text, same constraints, same
// order. Sayings yields the sentences of rules 1-5 one at a time, repeats
// included, keeping none: a pasted text of many MB costs no list of its
// sentences. An ASCII sentence that holds none of the words and word
// pairs rules 2-4 look for, and no negation but one a perception verb
// follows ("cannot find", "don't know"), is ruled out in one pass over its
// bytes, without a copy, before it is split into words: most sentences of
// a pasted log or transcript are such sentences (BenchmarkSayingsProse,
// BenchmarkSayingsPastedLog).
//
// # Identity and origin (Normalize, Merge, Oldest)
//
// Two constraints are the same when their Normalize forms are equal:
// lower case, every run of characters that are neither letters nor digits
// becomes one space, trimmed. Merge keeps the oldest origin of a constraint
// (lower generation; in one session, lower seq) and lists every other origin
// it was said at in Also, each once, in the order they were met.
//
// A Set is what Merge does for a fold that merges message after message:
// it keeps the index of Normalize forms (and, for long Also lists, the
// origins in them) beside the list, so merging a message costs that
// message, not the constraints already held. Set.Add can stop growing the
// list at a maximum; it then counts, instead of keeping, each sentence
// that is not already a constraint of the set.
//
// # Audit (Holds)
//
// Holds reports whether the Normalize form of a constraint is a substring of
// the Normalize form of the origin event's text. A constraint cut by rule 5
// still holds (its ellipsis normalizes away); an empty constraint never
// holds, since there is nothing to check. HoldsAll answers Holds for many
// constraints of one origin text in one reading of it: a constraint equal
// (after Normalize) to one of the text's own sayings holds; only the
// others are searched for in the text's Normalize form.
package anchors
