package adapter

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Errors an adapter returns; package hosts returns the same values
// (hosts/errors.go), and callers match them with errors.Is.
var (
	ErrUnknownHost   = errors.New("hosts: unknown host")
	ErrHostSessionID = errors.New("hosts: bad host session id")
	ErrNoTranscript  = errors.New("hosts: no transcript")
	ErrBadCwd        = errors.New("hosts: bad working directory")
)

var sessionIDRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// ValidSessionID checks a host session id: a lower-case uuid.
func ValidSessionID(id string) error {
	if !sessionIDRe.MatchString(id) {
		return fmt.Errorf("%w: %q is not a lower-case uuid", ErrHostSessionID, id)
	}
	return nil
}

// OneMatch is the one transcript of host session id found under where:
// ErrNoTranscript for none, or for several (named).
func OneMatch(host Name, id, where string, matches []string) (string, error) {
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", fmt.Errorf("%w: no %s transcript of session %s under %s", ErrNoTranscript, host, id, where)
	}
	slices.Sort(matches)
	return "", fmt.Errorf("%w: %d %s transcripts of session %s (%s); pass one with --transcript", ErrNoTranscript, len(matches), host, id, strings.Join(matches, ", "))
}

// HomeDir is $<envVar>, else <the user's home>/<dir>: where a host keeps
// its folder.
func HomeDir(envVar, dir string) (string, error) {
	if d := os.Getenv(envVar); d != "" {
		return d, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, dir), nil
}

// RealDir resolves a working directory as the hosts see it: absolute,
// symlinks resolved, a directory.
func RealDir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrBadCwd, err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%w %s: %v", ErrBadCwd, dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%w %s: %v", ErrBadCwd, dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%w %s: %v", ErrBadCwd, dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w %s: not a directory", ErrBadCwd, dir)
	}
	return real, nil
}

// DerivedUUID shapes SHA-256 over "graft-host-v1" and the parts as a uuid
// of version v (4, or 7 with at's milliseconds in its first 48 bits).
func DerivedUUID(v int, at time.Time, parts ...string) string {
	h := sha256.New()
	h.Write([]byte("graft-host-v1"))
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%d:%s", len(p), p)
	}
	b := h.Sum(nil)[:16]
	if v == 7 {
		ms := uint64(at.UnixMilli())
		for k := 0; k < 6; k++ {
			b[k] = byte(ms >> (8 * (5 - k)))
		}
	}
	b[6] = b[6]&0x0f | byte(v<<4)
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// TextBlock is a {"type", "text"} content block, as the hosts write them.
type TextBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// WriteLine appends v as one compact JSON line (no HTML escaping: the
// hosts write their own lines the same way).
func WriteLine(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Stamp is the k-th record's time: the tape's, a millisecond apart.
func Stamp(at time.Time, k int) string {
	return at.Add(time.Duration(k) * time.Millisecond).UTC().Format("2006-01-02T15:04:05.000Z")
}

// UsageCounts are the token counts of a model request, as the hosts
// name them.
type UsageCounts struct {
	Input         int64 `json:"input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
}

var hostVersionRe = regexp.MustCompile(`^[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}([-+.][0-9A-Za-z.+-]{1,40})?$`)

// HostVersion is v when it is a release version as the hosts write theirs
// ("2.1.332", "0.171.0", "0.25.0-preview.1"), else "": what a session
// file's record names is not written into an export unless it is one.
func HostVersion(v string) string {
	if hostVersionRe.MatchString(v) {
		return v
	}
	return ""
}

// Existing are the paths that are regular files, in order; first stops at
// the first (a host that reads one of several, the first it finds). A file
// that cannot be checked is an error.
func Existing(first bool, paths ...string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		if fi.Mode().IsRegular() {
			out = append(out, p)
			if first {
				break
			}
		}
	}
	return out, nil
}
