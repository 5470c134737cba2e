package gen

import (
	"errors"
	"fmt"
	"strings"
)

// Preset names.
const (
	// PresetSeed is the original plugin's real session: 48 turns, 14,978 events.
	PresetSeed = "seed"
	// PresetLarge is a stress session: at least 200,000 events and 1 GiB.
	PresetLarge = "large"
)

// Presets lists the preset names PresetOptions accepts.
var Presets = []string{PresetSeed, PresetLarge}

// ErrOptions is matched (errors.Is) by every refusal of Validate and
// PresetOptions: the caller's options, not a failure while generating.
var ErrOptions = errors.New("gen: invalid options")

// Options says what to generate. The same Options give the same events,
// byte for byte.
type Options struct {
	// Turns is the number of human instructions.
	Turns int
	// Events is the exact number of events; at least 2 per turn.
	Events int
	// Seed picks the texts, sizes, failures and timestamps.
	Seed int64
	// Preset selects the size profile ("" for the small default one); set
	// by PresetOptions, kept when Turns, Events or Seed are changed after.
	Preset string
}

// DefaultOptions is a small session: 6 turns, 200 events.
func DefaultOptions() Options { return Options{Turns: 6, Events: 200, Seed: 1} }

// PresetOptions returns the options of a named preset.
func PresetOptions(name string) (Options, error) {
	switch name {
	case PresetSeed:
		return Options{Turns: 48, Events: 14978, Seed: 1, Preset: PresetSeed}, nil
	case PresetLarge:
		return Options{Turns: 500, Events: 220000, Seed: 1, Preset: PresetLarge}, nil
	}
	return Options{}, fmt.Errorf("%w: unknown preset %q (want one of %s)", ErrOptions, name, strings.Join(Presets, ", "))
}

// Validate refuses options Generate cannot honour exactly.
func (o Options) Validate() error {
	if o.Turns < 1 {
		return fmt.Errorf("%w: turns is %d, want at least 1", ErrOptions, o.Turns)
	}
	if o.Events < 2*o.Turns {
		return fmt.Errorf("%w: events is %d, want at least 2 per turn (%d for %d turns): every turn is a human instruction and an answer", ErrOptions, o.Events, 2*o.Turns, o.Turns)
	}
	if _, ok := profiles[o.Preset]; !ok {
		return fmt.Errorf("%w: unknown preset %q (want one of %s, or none)", ErrOptions, o.Preset, strings.Join(Presets, ", "))
	}
	return nil
}

// profile shapes sizes. Big tool outputs are placed wherever the session
// falls behind bytesPerEvent × events so far, so a preset's total size holds
// for every seed rather than on average.
type profile struct {
	bytesPerEvent  int // JSONL bytes per event the big outputs steer to
	bigMin, bigMax int // size of one big tool output
}

var profiles = map[string]profile{
	"":          {bytesPerEvent: 3 << 10, bigMin: 64 << 10, bigMax: 1 << 20},
	PresetSeed:  {bytesPerEvent: 1700, bigMin: 256 << 10, bigMax: 3 << 20},
	PresetLarge: {bytesPerEvent: 5500, bigMin: 512 << 10, bigMax: 4 << 20},
}
