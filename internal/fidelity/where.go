package fidelity

import (
	"fmt"
	"strings"

	"github.com/graft-project/graft/session"
)

// Places a fact's evidence can be in, in the order Where tries them: the
// first kind of imported event that holds all of a fact's evidence is
// where the fact is. What no tape carries is told by this place
// (make fidelity-sweep): content the tape does not hold, not room.
const (
	PlaceHuman       = "the person's messages (pastes and command templates included)"
	PlaceAssistant   = "the assistant's messages"
	PlaceThinking    = "the assistant's thinking"
	PlaceInjected    = "text the host injects (instruction files, reminders, summaries)"
	PlaceReports     = "sub-agent reports"
	PlaceToolInputs  = "tool inputs (code written, commands run)"
	PlaceToolOutputs = "tool outputs (files read, command output)"
	PlaceSeveral     = "several of these together"
	PlaceNotImported = "not in graft's log (left out at import)"
)

// Places lists them in that order.
var Places = []string{PlaceHuman, PlaceAssistant, PlaceThinking, PlaceInjected, PlaceReports, PlaceToolInputs, PlaceToolOutputs, PlaceSeveral, PlaceNotImported}

// placeOf is the place an imported event's text belongs to ("" for none:
// graft's own marks).
func placeOf(ev *session.Event) string {
	switch ev.Type {
	case session.TypeUserMessage:
		if ev.IsHumanInstruction() {
			return PlaceHuman
		}
		return PlaceInjected
	case session.TypeAssistantMessage:
		if ev.Source.Name == "thinking" {
			return PlaceThinking
		}
		return PlaceAssistant
	case session.TypeSystem:
		return PlaceInjected
	case session.TypeSubagentReport:
		return PlaceReports
	case session.TypeToolCall:
		return PlaceToolInputs
	case session.TypeToolResult:
		return PlaceToolOutputs
	case session.TypeTodoWrite:
		return PlaceToolInputs
	}
	return ""
}

// Where places each fact (by index) in the imported events evs: the first
// place of Places whose events together hold all its evidence; else
// PlaceSeveral when all of them do, else PlaceNotImported.
func Where(facts []Fact, evs []*session.Event) []string {
	texts := map[string]*strings.Builder{}
	for _, p := range Places {
		texts[p] = &strings.Builder{}
	}
	for _, ev := range evs {
		if p := placeOf(ev); p != "" {
			texts[p].WriteString(ev.AllText())
			texts[p].WriteByte('\n')
		}
	}
	norm := map[string]string{}
	var all strings.Builder
	for _, p := range Places {
		norm[p] = Normalize(texts[p].String())
		all.WriteString(norm[p] + "\n")
	}
	whole := all.String()
	out := make([]string, len(facts))
	for k, f := range facts {
		out[k] = PlaceNotImported
		for _, p := range Places[:len(Places)-2] {
			if Carries(norm[p], f) {
				out[k] = p
				break
			}
		}
		if out[k] == PlaceNotImported && Carries(whole, f) {
			out[k] = PlaceSeveral
		}
	}
	return out
}

// Reread says, per fact (by index), whether the instruction files the
// host wrote into its log (session.Event.IsInstructionFile: Codex's
// AGENTS.md) hold all its evidence. The host reads those files again when
// the export resumes, so such a fact reaches the next window whatever the
// candidate: the tape leaves them to the host (docs/DESIGN.md §8.3).
func Reread(facts []Fact, evs []*session.Event) []bool {
	var b strings.Builder
	for _, ev := range evs {
		if ev.IsInstructionFile() {
			b.WriteString(ev.Text)
			b.WriteByte('\n')
		}
	}
	out := make([]bool, len(facts))
	if b.Len() == 0 {
		return out
	}
	norm := Normalize(b.String())
	for k, f := range facts {
		out[k] = Carries(norm, f)
	}
	return out
}

// whereTable is the table of the places of the facts graft's tape does
// not carry in results, over all cases, the tuning and the held-out ones
// (counts only); "" when no result has places.
func whereTable(results []*Result) string {
	count := map[string][3]int{}
	placed := false
	for _, r := range results {
		if r.Where == nil {
			continue
		}
		placed = true
		for k := range r.Case.Facts {
			if r.Carried[Graft][k] {
				continue
			}
			c := count[r.Where[k]]
			c[0]++
			if r.Case.HeldOut {
				c[2]++
			} else {
				c[1]++
			}
			count[r.Where[k]] = c
		}
	}
	if !placed {
		return ""
	}
	var b strings.Builder
	b.WriteString("| where the evidence is | all | tuning | held out |\n|---|---|---|---|\n")
	for _, p := range Places {
		if c, ok := count[p]; ok {
			fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", p, c[0], c[1], c[2])
		}
	}
	return b.String()
}
