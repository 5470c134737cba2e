package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	geminihost "github.com/graft-project/graft/hosts/gemini"
	qwenhost "github.com/graft-project/graft/hosts/qwen"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/claudecode"
	"github.com/graft-project/graft/importer/codex"
	"github.com/graft-project/graft/importer/gemini"
	"github.com/graft-project/graft/importer/qwen"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// Import hosts: the argument of ImportRun and of graft import.
const (
	HostClaudeCode = claudecode.Format
	HostCodex      = codex.Format
	HostGemini     = string(geminihost.Name)
	HostQwen       = string(qwenhost.Name)
)

// ImportSession is the session id ImportTranscript imports into.
const ImportSession = "imported"

// ImportRun is one import of a host transcript into a fresh graft home.
type ImportRun struct {
	Wall time.Duration
	// Home is the graft home it made; its log is sessions/<ImportSession>.jsonl.
	Home     string
	Events   int
	LogBytes int64
}

// ImportTranscript imports the transcript at path of host (HostClaudeCode,
// HostCodex, HostGemini, HostQwen) in this process into a fresh home under
// dir, as graft import does (the whole import: cursor, log and their
// fsyncs), and times it. A run fails unless every line was consumed, none
// malformed.
func ImportTranscript(dir, host, path string) (ImportRun, error) {
	home, err := os.MkdirTemp(dir, "import-")
	if err != nil {
		return ImportRun{}, fmt.Errorf("bench: %w", err)
	}
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		return ImportRun{}, fmt.Errorf("bench: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ImportRun{}, fmt.Errorf("bench: %w", err)
	}
	start := time.Now()
	var sum *importer.Summary
	switch host {
	case HostClaudeCode:
		sum, err = claudecode.Import(claudecode.Options{Store: st, Home: home, Path: path, ID: ImportSession})
	case HostCodex:
		sum, err = codex.Import(codex.Options{Store: st, Home: home, Path: path, ID: ImportSession})
	case HostGemini:
		sum, err = gemini.Import(gemini.Options{Store: st, Home: home, Path: path, ID: ImportSession})
	case HostQwen:
		sum, err = qwen.Import(qwen.Options{Store: st, Home: home, Path: path, ID: ImportSession})
	default:
		return ImportRun{}, fmt.Errorf("bench: no importer for host %q", host)
	}
	d := time.Since(start)
	if err != nil {
		return ImportRun{}, fmt.Errorf("bench: importing %s: %w", path, err)
	}
	if sum.Offset != fi.Size() || sum.MalformedCount > 0 {
		return ImportRun{}, fmt.Errorf("bench: importing %s consumed %d of %d bytes, %d malformed lines", path, sum.Offset, fi.Size(), sum.MalformedCount)
	}
	lfi, err := os.Stat(st.Path(ImportSession))
	if err != nil {
		return ImportRun{}, fmt.Errorf("bench: %w", err)
	}
	return ImportRun{Wall: d, Home: home, Events: sum.Appended, LogBytes: lfi.Size()}, nil
}

// ImportPeakRSS runs graft import <host> of path into a fresh home under dir
// as a process of its own (through the launcher: the running executable
// must call RunLauncher first thing) and returns its peak resident set
// size and wall time.
func ImportPeakRSS(bin, dir, host, path string) (int64, time.Duration, error) {
	home, err := os.MkdirTemp(dir, "import-rss-")
	if err != nil {
		return 0, 0, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(home)
	self, err := os.Executable()
	if err != nil {
		return 0, 0, fmt.Errorf("bench: finding the launcher: %w", err)
	}
	cmd := exec.Command(self, bin, "--home", home, "import", host, path, "--id", ImportSession)
	cmd.Env = append(os.Environ(), launcherEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("bench: %s import %s %s: %w: %s", bin, host, path, err, stderr.Bytes())
	}
	var rss, ns int64
	if _, err := fmt.Sscan(string(out), &rss, &ns); err != nil {
		return 0, 0, fmt.Errorf("bench: the launcher printed %q: %w", out, err)
	}
	if _, err := os.Stat(filepath.Join(home, "sessions", ImportSession+session.Ext)); err != nil {
		return 0, 0, fmt.Errorf("bench: %s import %s wrote no session: %w", bin, host, err)
	}
	return rss, time.Duration(ns), nil
}
