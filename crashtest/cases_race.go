package crashtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/graft-project/graft/graft"
)

// racers is the number of processes of an L4 round.
const racers = 8

// l4Jobs are the two races, each RaceRounds rounds: racers processes
// graft different sources into one target id; racers processes graft one
// source into different targets. Exactly one may win each round.
func (s *suite) l4Jobs() []job {
	return []job{
		{run: func() []Row {
			var sources []string
			for k := 0; k < racers; k++ {
				sources = append(sources, fmt.Sprintf("src%d", k))
			}
			tmpl, err := s.prepareTemplate("template-race", sources...)
			if err != nil {
				return []Row{failed(Row{Family: familyRaceTarget, Case: "L4 same target"}, err)}
			}
			var rows []Row
			for round := 1; round <= s.cfg.RaceRounds; round++ {
				var runs [][]string
				for _, src := range sources {
					runs = append(runs, commitArgs(tmpl.reviews[src], caseTarget))
				}
				rows = append(rows, s.raceRound(Row{
					Family: familyRaceTarget, Case: fmt.Sprintf("L4 same target, round %d", round),
					Injection: fmt.Sprintf("%d processes graft %d different sources into %s at once", racers, racers, caseTarget),
					Expected:  "exactly one wins; the others are refused (locked, target_exists); every loser's source untouched",
				}, tmpl, runs, []string{"locked", "target_exists"}))
			}
			return rows
		}},
		{run: func() []Row {
			var rows []Row
			r := s.tmpl.reviews[s.tmpl.source()]
			for round := 1; round <= s.cfg.RaceRounds; round++ {
				var runs [][]string
				for k := 0; k < racers; k++ {
					runs = append(runs, commitArgs(r, fmt.Sprintf("%s%d", caseTarget, k)))
				}
				rows = append(rows, s.raceRound(Row{
					Family: familyRaceSource, Case: fmt.Sprintf("L4 same source, round %d", round),
					Injection: fmt.Sprintf("%d processes graft %s into %d different targets at once", racers, s.tmpl.source(), racers),
					Expected:  "exactly one wins; the others are refused (locked, already_grafted, used_prepared); no loser's target exists",
				}, s.tmpl, runs, []string{"locked", "already_grafted", "used_prepared"}))
			}
			return rows
		}},
	}
}

// raceRound starts one child per argument list at once, waits for all and
// checks that exactly one won and every loser was refused with one of the
// allowed codes.
func (s *suite) raceRound(r Row, tmpl *template, runs [][]string, allowed []string) Row {
	return s.inCase(r, tmpl, func(r Row, home string) Row { return s.race(r, home, tmpl, runs, allowed) })
}

func (s *suite) race(r Row, home string, tmpl *template, runs [][]string, allowed []string) Row {
	var started []*running
	for _, args := range runs {
		run, err := s.start(child{home: home, args: args})
		if err != nil {
			// The racers already started are commits: let them end.
			for _, st := range started {
				if _, werr := st.wait(); werr != nil {
					err = errors.Join(err, werr)
				}
			}
			return failed(r, err)
		}
		started = append(started, run)
	}
	var problems []string
	var winners []graft.CommitResult
	refused := map[string]int{}
	for _, run := range started {
		res, err := run.wait()
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if res.exit == 0 {
			var cr graft.CommitResult
			if err := json.Unmarshal([]byte(res.stdout), &cr); err != nil {
				problems = append(problems, fmt.Sprintf("a winner printed no commit result: %v", err))
			}
			winners = append(winners, cr)
			continue
		}
		code := codeOfExit(res.exit)
		refused[code]++
		if !slices.Contains(allowed, code) {
			problems = append(problems, fmt.Sprintf("a loser failed with %s, not a refusal of the race: %s", code, firstLine(res.stderr)))
		}
	}
	if len(winners) != 1 {
		problems = append(problems, fmt.Sprintf("%d processes won, exactly one must", len(winners)))
	}
	exp := expect{tmpl: tmpl, outcome: eitherWay, recover: recoverInProcess}
	observed, more := check(home, exp)
	problems = append(problems, more...)
	won := "nobody won"
	if len(winners) == 1 {
		w := winners[0]
		won = fmt.Sprintf("%s → %s won", w.Source, w.TargetID)
		problems = append(problems, raceOutcome(home, tmpl, w)...)
	}
	var codes []string
	for c, n := range refused {
		codes = append(codes, fmt.Sprintf("%s×%d", c, n))
	}
	sort.Strings(codes)
	judge(&r, fmt.Sprintf("%s; refused: %s; %s", won, strings.Join(codes, ", "), observed), problems)
	return r
}

// raceOutcome: the winner's target is live and its source retired; every
// other source is usable and no other target exists.
func raceOutcome(home string, tmpl *template, w graft.CommitResult) []string {
	sv, err := takeSurvey(home)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	if !sv.usable(w.TargetID) {
		problems = append(problems, fmt.Sprintf("the winner's target is not live: %s", sv.describe(w.TargetID)))
	}
	for _, src := range tmpl.sources {
		if src != w.Source && !sv.usable(src) {
			problems = append(problems, fmt.Sprintf("a loser's source is not usable: %s", sv.describe(src)))
		}
	}
	for _, id := range sv.ids {
		if id != w.TargetID && !slices.Contains(tmpl.sources, id) {
			problems = append(problems, fmt.Sprintf("a loser left a target behind: %s", sv.describe(id)))
		}
	}
	return problems
}

// codeOfExit names an exit code by the table of graft.ExitCodes.
func codeOfExit(exit int) string {
	for _, c := range graft.ExitCodes() {
		if c.Exit == exit {
			return string(c.Code)
		}
	}
	return fmt.Sprintf("exit %d", exit)
}
