// Package config reads config.toml, the file that sets graft's defaults:
// the data directory, the tape options prepare uses when no flag says
// otherwise, and the thresholds of the host hooks. The file is optional;
// without it every key has its default.
//
// # Where the file is
//
// The first of these that applies names the file:
//
//	--config FILE                         a flag of every command; a missing FILE is an error
//	$GRAFT_CONFIG                         a missing file is an error
//	$GRAFT_HOME/config.toml               when GRAFT_HOME is set
//	$XDG_CONFIG_HOME/graft/config.toml    when XDG_CONFIG_HOME is an absolute path
//	~/.config/graft/config.toml
//
// A file found at one of the last three places is optional: when it does
// not exist, the defaults hold. A path that cannot be read (no permission,
// a directory) is an error naming it.
//
// # Format
//
// TOML (read with github.com/pelletier/go-toml/v2), UTF-8. Every key
// is at the top level: the file has no [tables]. Keys are camelCase and
// case-sensitive. For example:
//
//	# ~/.config/graft/config.toml
//	dataDir = "~/graft"
//	recentTurns = 2
//	budget = 24000
//	autoGraft = 150000
//
// # Keys
//
//	key                  type     default                 meaning
//	dataDir              string   $XDG_DATA_HOME/graft,   the graft home: sessions/, .txn/, catalog.db.
//	                              else ~/.local/share/    An absolute path, or one starting with ~/
//	                              graft                   (expanded to the home directory).
//	tier                 string   "A"                     replay tier of the tape: "A" replays no turn
//	                                                      verbatim, "B" the last closed turn.
//	recentTurns          integer  0                       replay this many closed turns verbatim,
//	                                                      0 to 5 (tape.MaxRecentTurns); when > 0 it
//	                                                      overrides tier.
//	adaptiveTier         boolean  false                   tier A becomes B when todos are unfinished
//	                                                      or a recent tool call failed.
//	budget               integer  16000                   character budget of the whole tape,
//	                                                      4000 to 100000 (tape.MinBudget,
//	                                                      tape.MaxBudget; default tape.DefaultBudget).
//	autoGraft            integer  0 (off)                 a token threshold ≥ 0: when the host's last
//	                                                      reported context size (the input tokens of
//	                                                      the last model request in the host
//	                                                      transcript) passes it, the Stop and
//	                                                      UserPromptSubmit hooks prepare a review and
//	                                                      tell the user how to hand off.
//	interceptCompaction  boolean  false                   the PreCompact hook hands the session off
//	                                                      and blocks the host's own compaction.
//	store                string   "" (the file store)     "file", or etcd://host:port[,…]/prefix
//	                                                      [?lease=10s&timeout=5s]: transactions,
//	                                                      locks and the catalog on an etcd cluster
//	                                                      shared by workers (package etcdstore).
//
// The tape keys (tier, recentTurns, adaptiveTier, budget) are
// Config.TapeOptions: the defaults of "graft prepare" (--tier,
// --recent-turns, --auto-tier, --budget) and of the MCP tool graft_prepare.
//
// # Precedence
//
// For each key, the first of these that sets it wins:
//
//	flag    a flag given on the command line (--home for dataDir, --store for store; prepare's
//	        --tier, --recent-turns, --auto-tier, --budget for the tape keys)
//	env     $GRAFT_HOME for dataDir, $GRAFT_STORE for store
//	file    the key in config.toml
//	default the defaults above
//
// Load applies the file and the environment; the CLI applies its flags. A
// --tier or --recent-turns flag sets the replay of the tape: it takes the
// other of the two from its flag default, not from the file, so that
// "--tier B" is not overridden by the file's recentTurns.
//
// "graft config [--json]" prints the file looked for, whether it exists,
// and each key's effective value with its source: "default",
// "file PATH:LINE", "env GRAFT_HOME" or "flag --NAME".
//
// # Errors
//
// An unknown key, a [table], a value of the wrong TOML type, a value out of
// range and a TOML syntax error are errors (*Error) naming the file, the
// line and the key:
//
//	config: /home/u/.config/graft/config.toml:3: unknown key "budgett"
//	config: /home/u/.config/graft/config.toml:5: key "budget": want an integer from 4000 to 100000, got -4
//	config: /home/u/.config/graft/config.toml:2: key "tier": want "A" or "B", got 2
//
// Every graft command fails with exit code 2 on such a file ("graft help"
// and --help still work), "graft config" included: run it to see the
// error.
package config
