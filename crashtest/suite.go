package crashtest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/graft-project/graft/txn"
)

// Case groups: Config.Groups selects among them.
const (
	GroupL1          = "L1"           // L1a–L1c: kills at the seed's named instants
	GroupL2          = "L2"           // ENOSPC and EACCES, real and injected
	GroupL3          = "L3"           // a byte of the target flipped before the cold read
	GroupL4          = "L4"           // 8 racing processes
	GroupL5          = "L5"           // recovery twice
	GroupPoints      = "points"       // every crash point of txn.Points, SIGKILL
	GroupRandomKills = "random-kills" // SIGKILL after a random delay
	GroupEIO         = "eio"          // EIO (and torn writes) on the N-th file operation
	GroupTornTails   = "torn-tails"   // target and journal record cut at every offset
	GroupPowerLoss   = "power-loss"   // every crash state of a recorded commit and revert
	// GroupRecoveryPowerLoss: every crash state of the recovery of a home
	// killed at each crash point that leaves a journal record.
	GroupRecoveryPowerLoss = "recovery-power-loss"
	// GroupHandoff: `graft handoff --yes` killed at every commit point and
	// every step of its export (txn.ExportPoints).
	GroupHandoff = "handoff"
)

// Groups lists every group in the order the suite runs them.
var Groups = []string{GroupL1, GroupL2, GroupL3, GroupL4, GroupL5, GroupPoints, GroupRandomKills, GroupEIO, GroupTornTails, GroupPowerLoss, GroupRecoveryPowerLoss, GroupHandoff}

// Defaults of Config.
const (
	DefaultRandomKills = 200
	DefaultRaceRounds  = 50
	DefaultTurns       = 4
	DefaultEvents      = 40
	// DefaultTornRecordStride: in CI the PREPARING and COLD_VERIFIED
	// records are cut at every 3rd offset (and at their end); a soak run
	// (RandomKills above DefaultRandomKills) cuts them at every offset.
	DefaultTornRecordStride = 3
	// ChildTimeout bounds one child process: a child that neither reaches
	// its crash point nor exits is a failure, not a hang.
	ChildTimeout = 60 * time.Second
)

// Config is one run of the suite.
type Config struct {
	// Bin is a graft binary built with -tags crashpoints (BuildCrashBinary).
	Bin string
	// RandomKills is how many commits are killed at a random instant.
	RandomKills int
	// Seed draws the random kill delays; 0 takes one from the clock. The
	// report carries the seed used, so a run can be repeated.
	Seed int64
	// RaceRounds is the number of rounds of each L4 race.
	RaceRounds int
	// Faults break the protocol on purpose: given to in-process cases and,
	// as GRAFT_FAULTS, to every child. Only the tests that prove the suite
	// can fail set them.
	Faults txn.Faults
	// Groups limits the run to these groups; empty runs every group.
	Groups []string
	// Parallel is how many cases run at once (default: the number of CPUs).
	Parallel int
	// WorkDir holds templates and case homes. Empty: a temporary directory,
	// removed at the end. Given: the caller owns it, and the home of a
	// failing case is kept there and named in its row.
	WorkDir string
	// Progress, when set, gets a line as each group starts.
	Progress io.Writer
	// TornRecordStride cuts the PREPARING and COLD_VERIFIED records at
	// every TornRecordStride-th offset (and at their end); 0: 1 in a soak
	// run, DefaultTornRecordStride otherwise. The report carries it.
	TornRecordStride int
	// Turns and Events size the generated source session.
	Turns, Events int
}

// Result of one row.
type Result string

const (
	Pass Result = "pass"
	Fail Result = "fail"
	Skip Result = "skip" // the machine does not allow the injection (said why)
)

// Row is one checked case.
type Row struct {
	Group string `json:"group"`
	// Family names a bulk of rows of one kind ("eio", "torn/target", …);
	// the table folds a run of passing rows of one family into one line.
	// Empty for rows always shown alone.
	Family    string    `json:"family,omitempty"`
	Case      string    `json:"case"`
	Injection string    `json:"injection"`
	Expected  string    `json:"expected"`
	Observed  string    `json:"observed"`
	Result    Result    `json:"result"`
	Point     txn.Point `json:"point,omitempty"` // the crash point a child was killed at, once reached
}

// Counts sum up a report.
type Counts struct {
	Cases           int `json:"cases"`
	Passed          int `json:"passed"`
	Failed          int `json:"failed"`
	Skipped         int `json:"skipped"`
	CrashPoints     int `json:"crashPoints"`     // distinct points of txn.Points and txn.ExportPoints killed at
	RandomKills     int `json:"randomKills"`     // commits killed after a random delay
	PowerLossStates int `json:"powerLossStates"` // crash states recovered and checked
	// RecoveryPowerLossStates are crash states of a recovery (of a home
	// killed at a crash point), recovered again and checked.
	RecoveryPowerLossStates int `json:"recoveryPowerLossStates"`
	EIOOps                  int `json:"eioOps"`      // values of N that failed an operation with EIO
	TornWrites              int `json:"tornWrites"`  // writes torn through the seam
	TornOffsets             int `json:"tornOffsets"` // cuts of the target and the journal record
	RaceRounds              int `json:"raceRounds"`  // L4 rounds, both races
}

// Report is what Run checked.
type Report struct {
	Seed int64 `json:"seed"`
	// TornRecordStride: the PREPARING and COLD_VERIFIED records were cut
	// at every TornRecordStride-th offset (1: every offset).
	TornRecordStride int    `json:"tornRecordStride"`
	Bin              string `json:"bin"`
	Rows             []Row  `json:"rows"`
	Counts           Counts `json:"counts"`
	Elapsed          string `json:"elapsed"`
}

// Summary is the last line of the table: "crash suite: N passed, M failed".
func (r *Report) Summary() string {
	return fmt.Sprintf("crash suite: %d passed, %d failed", r.Counts.Passed, r.Counts.Failed)
}

// Uncovered lists the points of txn.Points and txn.ExportPoints at which
// no row killed a child: a point added to a list without a case here is a
// gap in the proof.
func (r *Report) Uncovered() []txn.Point {
	covered := map[txn.Point]bool{}
	for _, row := range r.Rows {
		if row.Point != "" {
			covered[row.Point] = true
		}
	}
	var out []txn.Point
	for _, p := range append(append([]txn.Point{}, txn.Points...), txn.ExportPoints...) {
		if !covered[p] {
			out = append(out, p)
		}
	}
	return out
}

// suite is one Run in progress.
type suite struct {
	cfg  Config
	work string
	keep bool // keep failing case homes (WorkDir given)
	bin  string
	tmpl *template // the prepared source
	done *template // the same home after a committed graft (revert cases)
	// dropRecoveryDirSyncs makes the recorded recoveries of the
	// recovery-power-loss family skip every directory fsync (a test's knob).
	dropRecoveryDirSyncs bool
	// tornRecordRecoverer replaces `graft recover` in the torn-record cases
	// (a test's knob: a recovery that discards the evidence).
	tornRecordRecoverer recoverer

	mu   sync.Mutex
	next int // case directory counter
}

// job is a unit of work; jobs run in parallel, rows keep job order.
type job struct {
	group string
	run   func() []Row
}

// Run runs the suite. Case failures are rows of the report; the error is
// for a suite that could not run at all (no binary, a template that could
// not be built, a binary without crash points).
func Run(cfg Config) (rep *Report, err error) {
	start := time.Now()
	if cfg.Bin == "" {
		return nil, errors.New("crashtest: Config.Bin is empty: build graft with -tags crashpoints (BuildCrashBinary)")
	}
	bin, err := filepath.Abs(cfg.Bin)
	if err != nil {
		return nil, fmt.Errorf("crashtest: the crashpoints binary: %w", err)
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("crashtest: the crashpoints binary: %w", err)
	}
	cfg.Bin = bin
	for _, g := range cfg.Groups {
		if !slices.Contains(Groups, g) {
			return nil, fmt.Errorf("crashtest: unknown group %q (groups: %v)", g, Groups)
		}
	}
	if cfg.RandomKills == 0 {
		cfg.RandomKills = DefaultRandomKills
	}
	if cfg.RaceRounds == 0 {
		cfg.RaceRounds = DefaultRaceRounds
	}
	if cfg.TornRecordStride < 0 {
		return nil, fmt.Errorf("crashtest: TornRecordStride %d: a stride cannot be negative", cfg.TornRecordStride)
	}
	cfg.TornRecordStride = tornRecordStride(cfg)
	if cfg.Parallel <= 0 {
		cfg.Parallel = runtime.NumCPU()
	}
	if cfg.Turns == 0 {
		cfg.Turns = DefaultTurns
	}
	if cfg.Events == 0 {
		cfg.Events = DefaultEvents
	}
	if cfg.Seed == 0 {
		cfg.Seed = time.Now().UnixNano()
	}
	s := &suite{cfg: cfg, bin: cfg.Bin}
	if cfg.WorkDir == "" {
		dir, err := os.MkdirTemp("", "graft-crashtest-")
		if err != nil {
			return nil, fmt.Errorf("crashtest: work directory: %w", err)
		}
		defer func() {
			if rerr := os.RemoveAll(dir); rerr != nil {
				err = errors.Join(err, fmt.Errorf("crashtest: removing the work directory: %w", rerr))
			}
		}()
		s.work = dir
	} else {
		if err := os.MkdirAll(cfg.WorkDir, 0o700); err != nil {
			return nil, fmt.Errorf("crashtest: work directory: %w", err)
		}
		s.work, s.keep = cfg.WorkDir, true
	}
	if s.tmpl, err = s.prepareTemplate("template", "src"); err != nil {
		return nil, err
	}
	if s.done, err = s.committedTemplate(s.tmpl); err != nil {
		return nil, err
	}
	if err := s.checkArmed(); err != nil {
		return nil, err
	}

	var jobs []job
	add := func(group string, jobsOf func() []job) {
		if len(cfg.Groups) == 0 || slices.Contains(cfg.Groups, group) {
			js := jobsOf()
			for k := range js {
				js[k].group = group
			}
			jobs = append(jobs, js...)
		}
	}
	add(GroupL1, s.l1Jobs)
	add(GroupL2, s.l2Jobs)
	add(GroupL3, s.l3Jobs)
	add(GroupL4, s.l4Jobs)
	add(GroupL5, s.l5Jobs)
	add(GroupPoints, s.pointJobs)
	add(GroupRandomKills, s.randomKillJobs)
	add(GroupEIO, s.eioJobs)
	add(GroupTornTails, s.tornJobs)
	add(GroupPowerLoss, s.powerJobs)
	add(GroupRecoveryPowerLoss, s.recoveryPowerJobs)
	add(GroupHandoff, s.handoffJobs)

	rows := s.runJobs(jobs)
	if r := s.noHostWrites(); r != nil {
		rows = append(rows, *r)
	}
	rep = &Report{Seed: cfg.Seed, Bin: cfg.Bin, Rows: rows, TornRecordStride: cfg.TornRecordStride}
	rep.count()
	rep.Elapsed = time.Since(start).Round(time.Millisecond).String()
	return rep, nil
}

// tornRecordStride is cfg's stride of the sampled torn records, its
// default filled in: every offset in a soak run (more random kills than
// CI's), every DefaultTornRecordStride-th otherwise.
func tornRecordStride(cfg Config) int {
	switch {
	case cfg.TornRecordStride > 0:
		return cfg.TornRecordStride
	case cfg.RandomKills > DefaultRandomKills:
		return 1
	}
	return DefaultTornRecordStride
}

// runJobs runs the jobs on cfg.Parallel workers and returns their rows in
// job order.
func (s *suite) runJobs(jobs []job) []Row {
	results := make([][]Row, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < s.cfg.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				results[k] = jobs[k].run()
			}
		}()
	}
	announced := map[string]bool{}
	for k, j := range jobs {
		if s.cfg.Progress != nil && !announced[j.group] {
			announced[j.group] = true
			fmt.Fprintf(s.cfg.Progress, "crashtest: %s\n", j.group)
		}
		next <- k
	}
	close(next)
	wg.Wait()
	var rows []Row
	for k, rs := range results {
		for _, r := range rs {
			r.Group = jobs[k].group
			rows = append(rows, r)
		}
	}
	return rows
}

func (r *Report) count() {
	c := Counts{}
	points := map[txn.Point]bool{}
	for _, row := range r.Rows {
		c.Cases++
		switch row.Result {
		case Pass:
			c.Passed++
		case Fail:
			c.Failed++
		case Skip:
			c.Skipped++
		}
		if row.Point != "" {
			points[row.Point] = true
		}
		family, _, _ := strings.Cut(row.Family, "/")
		switch {
		case row.Family == familyRandomKill:
			c.RandomKills++
		case family == familyPower:
			c.PowerLossStates++
		case family == familyRecoveryPower:
			c.RecoveryPowerLossStates++
		case family == familyEIO:
			c.EIOOps++
		case family == familyTornWrite:
			c.TornWrites++
		case family == familyTorn:
			c.TornOffsets++
		case family == familyRace:
			c.RaceRounds++
		}
	}
	c.CrashPoints = len(points)
	r.Counts = c
}

// Families of bulk rows; the part before a "/" is what Counts counts.
const (
	familyRandomKill  = "random-kill"
	familyPower       = "power"
	familyPowerCommit = familyPower + "/commit"
	familyPowerRevert = familyPower + "/revert"
	// familyRecoveryPower + "/" + the crash point the recovered home was killed at.
	familyRecoveryPower = "recovery-power"
	familyEIO           = "eio"        // + "/commit" or "/revert"
	familyTornWrite     = "torn-write" // + "/commit" or "/revert"
	familyTorn          = "torn"
	familyTornTarget    = familyTorn + "/target"
	familyTornRecord    = familyTorn + "/journal" // the TARGET_FLUSHED record
	// The PREPARING record (killed at commit/journal-preparing:after), and
	// the COLD_VERIFIED record before and after the source was retired.
	familyTornPreparing = familyTorn + "/journal-preparing"
	familyTornVerified  = familyTorn + "/journal-verified"
	familyTornRetired   = familyTorn + "/journal-retired"
	familyHandoff       = "handoff"
	familyHandoffKill   = "handoff-random-kill"
	familyRace          = "L4"
	familyRaceTarget    = familyRace + "/same-target"
	familyRaceSource    = familyRace + "/same-source"
)

// noHostWrites is a failing row when any child wrote into the host folders
// every child but a handoff case's gets (childEnv): no graft command may
// write a host transcript it was not asked to; nil when they hold nothing.
func (s *suite) noHostWrites() *Row {
	dir := filepath.Join(s.work, "no-host")
	var found []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			found = append(found, p)
		}
		return nil
	})
	if errors.Is(err, os.ErrNotExist) && len(found) == 0 {
		return nil
	}
	r := Row{Group: GroupHandoff, Case: "host folders of other cases", Injection: "(none)", Expected: "nothing written under CLAUDE_CONFIG_DIR or CODEX_HOME of the children that hand nothing off"}
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		r.Result, r.Observed = Fail, "FAILED: reading "+dir+": "+err.Error()
	case len(found) > 0:
		r.Result, r.Observed = Fail, "FAILED: written there: "+strings.Join(found, ", ")
	default:
		return nil
	}
	return &r
}
