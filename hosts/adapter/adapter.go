package adapter

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// Name is a host's name as graft's commands, bindings, owed exports and
// hook commands spell it ("claude-code").
type Name string

// Adapter is everything graft knows of one agent host (doc.go). Package
// hosts holds the registry of the adapters; each host's package holds one.
type Adapter interface {
	// Name is the host's name ("claude-code").
	Name() Name
	// Title is what people call the host ("Claude Code").
	Title() string
	// Program is the host's executable ("claude"), which graft doctor
	// looks for on PATH.
	Program() string
	// InstructionFiles are the files of the project directory the host
	// reads into its model's context on its own, the host's own first
	// (seen on the real programs: hosts' TestInstructionFilesAreWhatTheHostsRead).
	// A handoff to another host names those the target does not read.
	InstructionFiles() []string
	// UserInstructionFiles are the person's own instruction files in the
	// host's folder that it reads into every session's model context, the
	// ones that exist (absolute paths; seen on the real programs: hosts'
	// TestUserInstructionFilesAreWhatTheHostsRead). Another host never
	// reads them: a handoff to one names them.
	UserInstructionFiles() ([]string, error)

	// Root is the host's own folder: the environment variable RootVar,
	// else its default under the home directory. Not made absolute.
	Root() (string, error)
	// RootVar is the environment variable that moves Root.
	RootVar() string
	// TranscriptRoot is the folder under root that holds every transcript
	// of the host (a hook's transcript_path must lie under it).
	TranscriptRoot(root string) string
	// FindTranscript finds the transcript of host session id (a lower-case
	// uuid) under root the way the host finds it, cwd first when the host
	// keeps sessions by working directory: ErrNoTranscript when there is
	// none, or more than one.
	FindTranscript(root, id, cwd string) (string, error)
	// SessionID is the host session id a transcript's file name holds
	// (lower case), "" when the name holds none.
	SessionID(path string) string
	// TranscriptName describes a transcript's file name, for messages
	// ("<uuid>.jsonl").
	TranscriptName() string
	// Growth says how the host writes its session file: what a follow of
	// it must do.
	Growth() Growth

	// Mapper is the importer mapper of the host's transcripts with default
	// settings: the one a follow and an export's cursor use.
	Mapper() importer.Mapper
	// Import imports a transcript into a session incrementally (package
	// importer), with the options the person chose.
	Import(o ImportOptions) (*importer.Summary, error)

	// ExportID derives the host session id of the export of graft target
	// session, made by transaction txn, whose tape is t (hosts/doc.go:
	// same target, same id).
	ExportID(t *Turn, session, txn string) string
	// ExportPath is where the export of host session id in working
	// directory cwd (a real path) goes under root.
	ExportPath(root, cwd, id string, t *Turn) string
	// Render writes t as a host session file of host session id in cwd,
	// made as by says: the graft version that writes it and the host
	// version it names (an empty field: the records of an export from
	// before graft wrote it, for a re-export to compare with).
	Render(t *Turn, id, cwd string, by Made) ([]byte, error)
	// Writer reads who made an export from its first line (Made; an
	// empty field for one from before graft wrote it); ok is false when
	// the line is not graft's.
	Writer(first []byte) (by Made, ok bool)
	// ResumeCommand is the command a person runs to resume host session id.
	ResumeCommand(id string) string

	// LineTokens is the context size of the model request one transcript
	// line reports, for autoGraft; found is false when the line reports
	// none. The last line that does is the session's size.
	LineTokens(line []byte) (tokens int64, found bool)

	// Hooks is how the host runs graft's hooks.
	Hooks() Hooks
	// Help is what graft's commands say of the host.
	Help() Help
}

// Made is who made an export, as its records say: Graft is the graft
// version that wrote it (version.Info.Short), Host the version of the host
// program it names as its own (a Versioned host's; hosts.Export finds the
// one the person has), Provider the model provider it names the session's
// (a Provided host's). A re-export renders the file already there with
// the Made its first line holds (Writer), so the same target gives the
// same bytes whichever graft, and whichever host version, exports it
// again. An empty field is an export from before graft wrote it.
type Made struct {
	Graft, Host, Provider string
}

// Provided is an Adapter whose host ties each session to the model
// provider it runs on, as its session file names it (Codex's
// session_meta model_provider): the host resumes a session on that
// provider only, and its terminal refuses one whose provider it has no
// configuration for, none included ("This chat uses model provider “”,
// which is no longer configured"). An export names the provider the
// host's configuration selects, so that the resume command graft gives
// resumes it.
type Provided interface {
	// ModelProvider is the provider the host's configuration under its
	// folder root selects (its default when the configuration names
	// none); an error when that configuration cannot be read.
	ModelProvider(root string) (string, error)
}

// Goals is an Adapter whose host keeps a goal the person sets with a
// command, turn after turn, per session (Claude Code's, Codex's and Qwen
// Code's /goal): a new session, an export too, has none until the person
// sets it there. A host without one (Gemini CLI 0.61) is not Goals.
type Goals interface {
	// GoalCommand is what the person types in the host to set objective
	// as the session's goal ("/goal <objective>").
	GoalCommand(objective string) string
}

// GoalCarrier is a Goals adapter whose host restores a session's goal
// from the session file when it resumes it (Claude Code's goal_status
// attachment, Qwen Code's goal_state record): the export of a target
// whose inherit carries an active goal (Turn.Goal) ends with the host's
// record of it, after the acknowledgement, and the goal goes on in the
// new session. A host that keeps the goal elsewhere (Codex 0.171: its
// own database, where graft never writes) is Goals only.
type GoalCarrier interface {
	Goals
	// GoalGoesOn says when the resumed session pursues the goal, for the
	// person ("when your first turn in it ends").
	GoalGoesOn() string
}

// GoalHolder is a GoalCarrier whose host restores no goal under some of
// the person's settings (Claude Code while its hooks are restricted).
type GoalHolder interface {
	GoalCarrier
	// GoalHeldBy says what holds a resumed session's goal back for a
	// session in dir ("<file> sets …, and <host> restores no goal while
	// …"), "" when nothing does.
	GoalHeldBy(dir string) (string, error)
}

// Versioned is an Adapter whose host names its own version in its
// session files' records (Claude Code's "version", Codex's cli_version,
// Qwen Code's "version"): an export names the one the person has, read
// from the newest of the host's own session files, else TestedVersion.
// A host whose records name none (Gemini CLI) is not Versioned, and its
// exports name only graft's version.
type Versioned interface {
	// LineVersion is the host version one line of a session file names
	// ("" when it names none).
	LineVersion(line []byte) string
	// TestedVersion is the host release the adapter was checked against
	// (internal/hosttest's pinned one): what an export names when no
	// session file of the host names a version.
	TestedVersion() string
}

// Help is what graft's commands say of one host, beside what the rest of
// the Adapter tells them.
type Help struct {
	// Transcript names a transcript in a usage line ("transcript.jsonl").
	Transcript string
	// Import is the one line of "graft import <host>", ImportLong the
	// rest ("" : none).
	Import, ImportLong string
	// ExportPath is where an export goes, for "graft export"'s help.
	ExportPath string
	// ResumeMore follows the resume command in "graft export"'s help
	// (other ways to resume; "" : none).
	ResumeMore string
	// Hooks is the one line of "graft hook install <host>", HooksLong the
	// rest: the host's settings files.
	Hooks, HooksLong string
	// FindByID says where "graft handoff --session-id" looks for the
	// host's transcript (FindTranscript), for its help.
	FindByID string
	// Folder describes the host's folder and its default, for the flag
	// that names it.
	Folder string
	// UserSettings names the user's settings file (ScopeUser), for the
	// flag that picks it.
	UserSettings string
}

// Growth is how a host writes its session file.
type Growth int

const (
	// Appends: the host only appends lines, and no line takes back what
	// an earlier one said; a follow imports the lines past its cursor.
	Appends Growth = iota + 1
	// Rewrites: a later record replaces what earlier ones said (a new
	// message list), or the file is rewritten; a follow must work on
	// snapshots of the whole session, which the append-only cursor
	// refuses (importer: source_rewritten).
	Rewrites
)

// Continuer is an Adapter whose host resumes "the newest session of this
// directory" (claude --continue): graft picks the same one when an agent
// names neither its transcript nor its session.
type Continuer interface {
	// Newest is the transcript of the newest session of working directory
	// cwd (a real path) under root.
	Newest(root, cwd string) (string, error)
	// ContinueCommand is the host's command that resumes it.
	ContinueCommand() string
}

// Claimer is an Adapter whose host must find markers in its own folder
// before it resumes a session in a working directory it has never run in
// (Gemini CLI's .project_root files): an export creates each of them that
// does not exist, through the store's vfs.FS, before the session file,
// and never replaces one.
type Claimer interface {
	// Claims are the markers an export into working directory cwd (a real
	// path) under root creates first; an error when the host's folder for
	// cwd cannot be told.
	Claims(root, cwd string) ([]File, error)
}

// File is a file an export creates: its path and bytes.
type File struct {
	Path string
	Data []byte
}

// ImportOptions are the options of Adapter.Import.
type ImportOptions struct {
	Store *session.Store
	Home  string
	// Path is the transcript.
	Path string
	// ID is the session to import into; "": importer.DefaultID(Path).
	ID           string
	KeepThinking bool
	// Progress, when set, is called as a transcript is read: its path (the
	// transcript, or a sub-agent's), the bytes read and its size.
	Progress func(path string, read, total int64)
	// Ctx, when set, cancels the import (importer.Options.Ctx).
	Ctx context.Context
	// LockWait bounds each wait for the session's lock (importer.Options).
	LockWait time.Duration
	// Others are the other hosts (importer.Options.Others: a first import
	// of a file that is not this host's is refused naming the one it is).
	Others []importer.Other
}

// File is o as the options of a one-file import (importer.FileOptions):
// what a host whose transcript is one file hands its mapper's Import.
func (o ImportOptions) File() importer.FileOptions {
	f := importer.FileOptions{Store: o.Store, Home: o.Home, Path: o.Path, ID: o.ID, KeepThinking: o.KeepThinking, Ctx: o.Ctx, LockWait: o.LockWait, Others: o.Others}
	if o.Progress != nil {
		f.Progress = func(read, total int64) { o.Progress(o.Path, read, total) }
	}
	return f
}

// Turn is a graft tape as one closed host turn (hosts/doc.go): what an
// export renders.
type Turn struct {
	// User is the handoff text, then every recap block in order.
	User []string
	// Ack is the assistant's acknowledgement.
	Ack string
	// At is the time of the tape's graft/origin event.
	At time.Time
	// Goal is the objective of the goal the host still pursued at the
	// cut (the graft/origin's inherit.goal), "" for none: a GoalCarrier
	// writes it after Ack.
	Goal string
}

// PluginID is graft's plugin as Claude Code and Codex name it,
// <plugin>@<marketplace> (plugin/ in graft's repository).
const PluginID = "graft@graft"

// ExtensionAt is the manifest file of the extension named name in the
// folder extensions of a host that keeps its extensions there (Gemini
// CLI's and Qwen Code's extensions/<name>/<manifest>), and whether it is
// there (Hooks.PluginAt).
func ExtensionAt(extensions, name, manifest string) (string, bool, error) {
	p := filepath.Join(extensions, name, manifest)
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return p, false, nil
	}
	if err != nil {
		return p, false, err
	}
	return p, fi.Mode().IsRegular(), nil
}
