package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/graft-project/graft/storeurl"
	"github.com/graft-project/graft/tape"
)

// FileName is the config file's name in $GRAFT_HOME and in the XDG config
// directory.
const FileName = "config.toml"

// Config is what the file sets: every key of doc.go, with the tags naming
// it (json for "graft config --json" and the doc test).
type Config struct {
	DataDir             string `toml:"dataDir" json:"dataDir"`
	Tier                string `toml:"tier" json:"tier"`
	RecentTurns         int    `toml:"recentTurns" json:"recentTurns"`
	AdaptiveTier        bool   `toml:"adaptiveTier" json:"adaptiveTier"`
	Budget              int    `toml:"budget" json:"budget"`
	AutoGraft           int64  `toml:"autoGraft" json:"autoGraft"`
	InterceptCompaction bool   `toml:"interceptCompaction" json:"interceptCompaction"`
	Store               string `toml:"store" json:"store"`
}

// TapeOptions are the options of the tapes that prepare builds by default.
func (c Config) TapeOptions() tape.Options {
	return tape.Options{Tier: c.Tier, RecentTurns: c.RecentTurns, AutoTier: c.AdaptiveTier, Budget: c.Budget}
}

// Get returns the value of a key (one of Keys), or nil for another name.
func (c Config) Get(key string) any {
	if k := lookup(key); k != nil {
		return k.get(&c)
	}
	return nil
}

// Keys lists the keys in the order doc.go gives them.
func Keys() []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return names
}

// Kinds of Source.
const (
	FromDefault = "default"
	FromFile    = "file"
	FromEnv     = "env"
	FromFlag    = "flag"
)

// Source says where a key's effective value came from.
type Source struct {
	Kind string // FromDefault, FromFile, FromEnv or FromFlag
	Name string // the file's path, the variable's or the flag's name
	Line int    // the line of the key in the file
}

// String is "default", "file /path/config.toml:3", "env GRAFT_HOME" or
// "flag --home".
func (s Source) String() string {
	switch s.Kind {
	case FromFile:
		return fmt.Sprintf("file %s:%d", s.Name, s.Line)
	case FromEnv:
		return "env " + s.Name
	case FromFlag:
		return "flag --" + s.Name
	}
	return FromDefault
}

// Sources tells which file was looked for and where each key's value came
// from.
type Sources struct {
	File   string            // the config file looked for
	Exists bool              // whether it was there (and was read)
	Keys   map[string]Source // by key; a key not in it is a default
}

// Of is the source of key's value.
func (s Sources) Of(key string) Source {
	if src, ok := s.Keys[key]; ok {
		return src
	}
	return Source{Kind: FromDefault}
}

// Set records that key's value came from src.
func (s *Sources) Set(key string, src Source) {
	if s.Keys == nil {
		s.Keys = map[string]Source{}
	}
	s.Keys[key] = src
}

// Error is a config file that cannot be used: it names the file and, when
// the fault is in a line, the line and the key.
type Error struct {
	File string
	Line int    // 0: the file as a whole
	Key  string // "" when no key is at fault
	// Unknown: Key is no key of the file ("unknown key" says so, naming it).
	Unknown bool
	Msg     string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	switch {
	case e.Unknown:
		fmt.Fprintf(&b, "unknown key %q", e.Key)
		if e.Msg != "" {
			b.WriteString(" " + e.Msg)
		}
		return b.String()
	case e.Key != "":
		fmt.Fprintf(&b, "key %q: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Default is the configuration without a file or environment, but with
// the default data directory, which depends on the environment
// (DefaultDataDir).
func Default() Config {
	return Config{DataDir: DefaultDataDir(), Tier: tape.TierA, Budget: tape.DefaultBudget}
}

// DefaultDataDir is $XDG_DATA_HOME/graft, else ~/.local/share/graft, else
// .graft when there is no home directory.
func DefaultDataDir() string {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "graft")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "graft")
	}
	return ".graft"
}

// Path is the config file to read when no --config flag names one, and
// whether it was named explicitly (GRAFT_CONFIG), so that its absence is an
// error: $GRAFT_CONFIG, else $GRAFT_HOME/config.toml, else
// $XDG_CONFIG_HOME/graft/config.toml, else ~/.config/graft/config.toml.
func Path() (file string, explicit bool) {
	if p := os.Getenv("GRAFT_CONFIG"); p != "" {
		return p, true
	}
	if h := os.Getenv("GRAFT_HOME"); h != "" {
		return filepath.Join(h, FileName), false
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "graft", FileName), false
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".config", "graft", FileName), false
	}
	return filepath.Join(".graft", FileName), false
}

// Load returns the defaults, overlaid with the file (when it exists) and
// then with the environment (GRAFT_HOME sets dataDir), and where each value
// came from. A missing file is no error unless required. Every error is an
// *Error.
func Load(file string, required bool) (Config, Sources, error) {
	c := Default()
	src := Sources{File: file, Keys: map[string]Source{}}
	if fi, err := os.Stat(file); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		// A named pipe or a device would block the read, and every
		// command and hook with it (issue 24, item 8).
		return Config{}, Sources{}, &Error{File: file, Msg: fmt.Sprintf("not a regular file (%s): graft reads its settings only from a regular file", fileKind(fi.Mode()))}
	}
	data, err := os.ReadFile(file)
	switch {
	case err == nil:
		src.Exists = true
		if err := apply(&c, &src, file, data); err != nil {
			return Config{}, Sources{}, err
		}
	case errors.Is(err, fs.ErrNotExist) && !required:
	default:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return Config{}, Sources{}, &Error{File: file, Msg: err.Error()}
	}
	if h := os.Getenv("GRAFT_HOME"); h != "" {
		c.DataDir = h
		src.Set("dataDir", Source{Kind: FromEnv, Name: "GRAFT_HOME"})
	}
	if st := os.Getenv("GRAFT_STORE"); st != "" {
		if err := storeurl.CheckSetting(st); err != nil {
			return Config{}, Sources{}, &Error{File: "$GRAFT_STORE", Msg: err.Error()}
		}
		c.Store = st
		src.Set("store", Source{Kind: FromEnv, Name: "GRAFT_STORE"})
	}
	return c, src, nil
}

// fileKind names what a non-regular file is, for the error.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// key is one key of the file: its name, what it takes, how it is read from
// and written into a Config, and its check.
type key struct {
	name  string
	kind  unstable.Kind // the TOML kind it takes
	want  string        // what the error of a bad value says is wanted
	get   func(*Config) any
	take  func(dst, src *Config) // copies the key's field
	check func(*Config) error    // nil: any value of the kind
}

var keys = []key{
	{name: "dataDir", kind: unstable.String, want: "an absolute path or one starting with ~/",
		get:  func(c *Config) any { return c.DataDir },
		take: func(dst, src *Config) { dst.DataDir = src.DataDir }, check: checkDataDir},
	{name: "tier", kind: unstable.String, want: fmt.Sprintf("%q or %q", tape.TierA, tape.TierB),
		get:  func(c *Config) any { return c.Tier },
		take: func(dst, src *Config) { dst.Tier = src.Tier },
		check: func(c *Config) error {
			if c.Tier != tape.TierA && c.Tier != tape.TierB {
				return errBad
			}
			return nil
		}},
	{name: "recentTurns", kind: unstable.Integer, want: fmt.Sprintf("an integer from 0 to %d", tape.MaxRecentTurns),
		get:  func(c *Config) any { return c.RecentTurns },
		take: func(dst, src *Config) { dst.RecentTurns = src.RecentTurns },
		check: func(c *Config) error {
			if c.RecentTurns < 0 || c.RecentTurns > tape.MaxRecentTurns {
				return errBad
			}
			return nil
		}},
	{name: "adaptiveTier", kind: unstable.Bool, want: "true or false",
		get:  func(c *Config) any { return c.AdaptiveTier },
		take: func(dst, src *Config) { dst.AdaptiveTier = src.AdaptiveTier }},
	{name: "budget", kind: unstable.Integer, want: fmt.Sprintf("an integer from %d to %d", tape.MinBudget, tape.MaxBudget),
		get:  func(c *Config) any { return c.Budget },
		take: func(dst, src *Config) { dst.Budget = src.Budget },
		check: func(c *Config) error {
			if c.Budget < tape.MinBudget || c.Budget > tape.MaxBudget {
				return errBad
			}
			return nil
		}},
	{name: "autoGraft", kind: unstable.Integer, want: "an integer ≥ 0 (0: off)",
		get:  func(c *Config) any { return c.AutoGraft },
		take: func(dst, src *Config) { dst.AutoGraft = src.AutoGraft },
		check: func(c *Config) error {
			if c.AutoGraft < 0 {
				return errBad
			}
			return nil
		}},
	{name: "interceptCompaction", kind: unstable.Bool, want: "true or false",
		get:  func(c *Config) any { return c.InterceptCompaction },
		take: func(dst, src *Config) { dst.InterceptCompaction = src.InterceptCompaction }},
	{name: "store", kind: unstable.String, want: `"file" or etcd://host:port[,host:port…]/prefix[?lease=10s&timeout=5s]`,
		get:  func(c *Config) any { return c.Store },
		take: func(dst, src *Config) { dst.Store = src.Store },
		check: func(c *Config) error {
			if storeurl.CheckSetting(c.Store) != nil {
				return errBad
			}
			return nil
		}},
}

// errBad is a value outside what its key wants (the error says what is).
var errBad = errors.New("bad value")

func lookup(name string) *key {
	for i := range keys {
		if keys[i].name == name {
			return &keys[i]
		}
	}
	return nil
}

// checkDataDir expands a leading ~ and wants an absolute path: a relative
// one would depend on the directory graft happens to run in.
func checkDataDir(c *Config) error {
	p := c.DataDir
	if p == "~" || strings.HasPrefix(p, "~/") {
		h, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("cannot expand ~: %w", err)
		}
		p = filepath.Join(h, p[1:])
	}
	if !filepath.IsAbs(p) {
		return errBad
	}
	c.DataDir = filepath.Clean(p)
	return nil
}

// entry is a top-level key=value of the file as the parser saw it.
type entry struct {
	line int
	kind unstable.Kind
	data string // a string's value; a number's or a boolean's text
}

// apply decodes the file into c, strictly, then checks each value set.
func apply(c *Config, src *Sources, file string, data []byte) error {
	entries, order := scan(data)
	// The decoder matches names regardless of case, as encoding/json does;
	// the file's keys are case-sensitive.
	var unknown []string
	for _, name := range order {
		if lookup(name) == nil {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		msg := ""
		if n := len(unknown) - 1; n > 0 {
			msg = fmt.Sprintf("(and %d more unknown keys)", n)
		}
		return &Error{File: file, Line: entries[unknown[0]].line, Key: unknown[0], Unknown: true, Msg: msg}
	}
	var set Config
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&set); err != nil {
		return decodeError(file, entries, err)
	}
	// Decode wrote only the keys the file has: take those over the defaults.
	for _, k := range keys {
		e, ok := entries[k.name]
		if !ok {
			continue
		}
		k.take(c, &set)
		if k.check != nil {
			if err := k.check(c); err != nil {
				msg := fmt.Sprintf("want %s, got %s", k.want, e.describe())
				if !errors.Is(err, errBad) {
					msg = err.Error()
				}
				return &Error{File: file, Line: e.line, Key: k.name, Msg: msg}
			}
		}
		src.Set(k.name, Source{Kind: FromFile, Name: file, Line: e.line})
	}
	return nil
}

// scan finds the top-level keys of the file with their lines (the decoder
// gives lines only for errors), in the order of the file. It stops at the first table header or
// syntax error: the decoder reports those.
func scan(data []byte) (entries map[string]entry, order []string) {
	entries = map[string]entry{}
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind != unstable.KeyValue {
			break // a [table]: every key from here on is in it
		}
		it := e.Key()
		if !it.Next() {
			continue
		}
		first := it.Node()
		name := string(first.Data)
		if _, dup := entries[name]; dup {
			continue
		}
		v := e.Value()
		order = append(order, name)
		entries[name] = entry{
			line: p.Shape(first.Raw).Start.Line,
			kind: v.Kind,
			data: string(v.Data),
		}
	}
	return entries, order
}

// describe says what a value is, for "want …, got …".
func (e entry) describe() string {
	switch e.kind {
	case unstable.String:
		b, err := json.Marshal(e.data)
		if err != nil {
			return "a string"
		}
		return string(b)
	case unstable.Integer, unstable.Float, unstable.Bool:
		return e.data
	case unstable.Array:
		return "an array"
	case unstable.InlineTable:
		return "a table"
	case unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime, unstable.DateTime:
		return "a date or time " + e.data
	}
	return "a " + e.kind.String()
}

// decodeError turns the decoder's error into an *Error with the line and
// the key.
func decodeError(file string, entries map[string]entry, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		first := strict.Errors[0]
		line, _ := first.Position()
		msg := ""
		if n := len(strict.Errors) - 1; n > 0 {
			msg = fmt.Sprintf("(and %d more unknown keys)", n)
		}
		return &Error{File: file, Line: line, Key: strings.Join(first.Key(), "."), Unknown: true, Msg: msg}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		parts := de.Key()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if len(parts) > 0 && lookup(parts[0]) == nil {
			// "[Budget]": the decoder ignores case; the file does not.
			return &Error{File: file, Line: line, Key: parts[0], Unknown: true}
		}
		if len(parts) > 0 {
			if k := lookup(parts[0]); k != nil {
				e, ok := entries[k.name]
				switch {
				case ok && e.line == line && len(parts) == 1 && (e.kind != k.kind || e.kind == unstable.Integer):
					// A value of another type, or an integer past 64 bits.
					return &Error{File: file, Line: line, Key: k.name, Msg: fmt.Sprintf("want %s, got %s", k.want, e.describe())}
				case len(parts) > 1 || !ok && strings.Contains(msg, "table"):
					// "dataDir.x = 1" or a [dataDir] header.
					return &Error{File: file, Line: line, Key: k.name, Msg: fmt.Sprintf("want %s, got a table", k.want)}
				}
			}
		}
		name := strings.Join(parts, ".")
		if name != "" && !strings.Contains(msg, name) {
			return &Error{File: file, Line: line, Key: name, Msg: msg}
		}
		return &Error{File: file, Line: line, Msg: msg}
	}
	return &Error{File: file, Msg: err.Error()}
}
