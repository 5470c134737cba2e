// Package version says which graft this is: the module version, the VCS
// revision and dirty flag the build recorded, the Go version, and the
// formats of what it writes that a reader must know (the tape, the prefix
// hash). graft --version, graft version, the MCP server's serverInfo,
// graft doctor and the host transcripts graft writes all take it from here.
//
// The version is, first, what the build stamped in with
//
//	-ldflags "-X github.com/graft-project/graft/version.stamped=v1.2.3"
//
// (make build and make dist do, with scripts/version.sh's version), else the main module's version in the build info
// (go install …/cmd/graft@v1.2.3 records v1.2.3; go build in a git
// checkout records a pseudo-version such as v0.0.0-20261201011700-36003f5abcde+dirty),
// else "(devel)".
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/graft-project/graft/tape"
)

// Set by the linker (-X, see the package doc; make dist sets all three):
// "" when the build did not. A build in a git worktree records no VCS
// information of its own (the go command looks for a .git directory, and a
// worktree's .git is a file), so make stamps the revision too.
var (
	stamped         string
	stampedRevision string
	stampedModified string // "true" or "false"
)

// Devel is the version of a build that recorded none.
const Devel = "(devel)"

// Info is one build of graft.
type Info struct {
	// Version is the module version: stamped, else the build info's,
	// else "(devel)".
	Version string `json:"version"`
	// Revision is the VCS revision the build recorded (vcs.revision), ""
	// when none was.
	Revision string `json:"revision,omitempty"`
	// Time is the revision's commit time (vcs.time), "" when none.
	Time string `json:"time,omitempty"`
	// Modified: the work tree had changes the revision does not hold
	// (vcs.modified).
	Modified bool `json:"modified"`
	// GoVersion is the toolchain that built it ("go1.26.8").
	GoVersion string `json:"goVersion"`
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
	// TapeFormat and PrefixFormat name the tape and the prefix hash it
	// writes ("graft-tape-v2", "graft-prefix-v2").
	TapeFormat   string `json:"tapeFormat"`
	PrefixFormat string `json:"prefixFormat"`
}

// Get returns this binary's Info.
func Get() Info {
	i := Info{
		Version:      Devel,
		GoVersion:    runtime.Version(),
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
		TapeFormat:   strings.TrimSuffix(tape.TapeHashPrefix, ":"),
		PrefixFormat: strings.TrimSuffix(tape.PrefixHashPrefix, ":"),
	}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		if v := bi.Main.Version; v != "" {
			i.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				i.Revision = s.Value
			case "vcs.time":
				i.Time = s.Value
			case "vcs.modified":
				i.Modified = s.Value == "true"
			}
		}
	}
	if stamped != "" {
		i.Version = stamped
	}
	if stampedRevision != "" {
		i.Revision, i.Time, i.Modified = stampedRevision, "", stampedModified == "true"
	}
	return i
}

// String is the version in one line, as graft --version prints it:
// "graft v1.2.3 (rev 36003f5abcde, modified; go1.26.8 linux/amd64; graft-tape-v2, graft-prefix-v2)".
func (i Info) String() string {
	var rev string
	if i.Revision != "" {
		rev = "rev " + short(i.Revision)
		if i.Modified {
			rev += ", modified"
		}
		rev += "; "
	}
	return fmt.Sprintf("graft %s (%s%s %s; %s, %s)", i.Version, rev, i.GoVersion, i.Platform, i.TapeFormat, i.PrefixFormat)
}

// Short is the version in one word, for a field that holds a writer's
// version (MCP's serverInfo, a host transcript's record): the version,
// and for a build without one the revision ("(devel)+36003f5abcde",
// "+dirty" when modified).
func (i Info) Short() string {
	if i.Version != Devel || i.Revision == "" {
		return i.Version
	}
	s := i.Version + "+" + short(i.Revision)
	if i.Modified {
		s += "-dirty"
	}
	return s
}

func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
