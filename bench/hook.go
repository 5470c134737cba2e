package bench

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/graft-project/graft/session"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/vfs"
)

// syntheticVersion changes whenever SynthesizeTranscript would write other
// bytes for the same source and size: the cache is made again then.
const syntheticVersion = 1

// Synthetic is a Claude Code transcript made of copies of a real one.
type Synthetic struct {
	Version int    `json:"version"`
	Path    string `json:"path"`
	// SessionID is the Claude Code session id: the file's name and every
	// record's sessionId.
	SessionID string `json:"sessionId"`
	// Source is the real transcript copied, SourceSHA256 its digest.
	Source       string `json:"source"`
	SourceSHA256 string `json:"sourceSha256"`
	// Target is the size asked for; Bytes the size made (whole lines, the
	// first line boundary at or past Target).
	Target int64 `json:"target"`
	Bytes  int64 `json:"bytes"`
	Lines  int   `json:"lines"`
	Copies int   `json:"copies"`
	// LastUUID and LastTimestamp are the last record's, so that turns
	// appended after it chain on.
	LastUUID      string    `json:"lastUuid"`
	LastTimestamp time.Time `json:"lastTimestamp"`
	Cwd           string    `json:"cwd"`
}

// spanRE finds what a copy of a transcript line must not repeat: uuids,
// the ids of tool calls, messages and requests, and timestamps.
var spanRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b(?:toolu|msg|req)_[0-9A-Za-z]{8,}|"timestamp":"(\d{4}-\d\d-\d\dT[0-9:.]+Z)"`)

// templateLine is a source line cut at the spans a copy rewrites.
type templateLine struct {
	text  string
	spans [][2]int // byte ranges of text to rewrite, in order
	kinds []byte   // 'u' uuid, 'i' id, 't' timestamp
}

// SynthesizeTranscript returns the transcript of about size bytes cached
// as dir/<name>/<uuid>.jsonl (manifest dir/<name>.json), making it when it
// is missing or was made from another source, size or version. It is the
// lines of source repeated: copy k of a line has its uuids, tool-call,
// message and request ids replaced by ones derived from k and the
// original (the same original gives the same new one within a copy, so
// parents, tool calls and results still pair), the source's session id
// replaced by the synthetic session's, and its timestamps moved k source
// spans (plus an hour) later. The bytes are the same on every machine.
func SynthesizeTranscript(dir, name, source string, size int64, progress io.Writer) (Synthetic, error) {
	return synthesize(dir, name, source, size, progress, claudeShape)
}

// codexSpanRE is spanRE for a Codex rollout: uuids, call ids, timestamps.
var codexSpanRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\bcall_[0-9A-Za-z]{8,}|"timestamp":"(\d{4}-\d\d-\d\dT[0-9:.]+Z)"`)

// shape is what SynthesizeTranscript and SynthesizeRollout do differently.
type shape struct {
	spans *regexp.Regexp
	// file is the synthetic transcript's file name for session id sid.
	file func(sid string) string
	// srcID is the session id of the source, from its file name.
	srcID func(base string) string
	// once: a line kept in the first copy only (Codex's session_meta).
	once []byte
}

var claudeShape = shape{
	spans: spanRE,
	file:  func(sid string) string { return sid + ".jsonl" },
	srcID: func(base string) string { id, _ := strings.CutSuffix(base, ".jsonl"); return id },
}

var codexShape = shape{
	spans: codexSpanRE,
	file:  func(sid string) string { return "rollout-2026-01-01T00-00-00-" + sid + ".jsonl" },
	srcID: func(base string) string {
		id, _ := strings.CutSuffix(base, ".jsonl")
		return id[max(0, len(id)-36):]
	},
	once: []byte(`"type":"session_meta"`),
}

// SynthesizeRollout is SynthesizeTranscript for a Codex rollout: the lines
// of source repeated, each copy with its uuids and call ids derived from
// the copy and the original and its timestamps moved later, the
// session_meta line in the first copy only; the file is
// dir/<name>/rollout-2026-01-01T00-00-00-<uuid>.jsonl.
func SynthesizeRollout(dir, name, source string, size int64, progress io.Writer) (Synthetic, error) {
	return synthesize(dir, name, source, size, progress, codexShape)
}

func synthesize(dir, name, source string, size int64, progress io.Writer, sh shape) (Synthetic, error) {
	data, err := os.ReadFile(source)
	if err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	sum := sha256.Sum256(data)
	want := Synthetic{Version: syntheticVersion, SessionID: derivedUUID(0, "synthetic session "+name), Source: filepath.Base(source),
		SourceSHA256: hex.EncodeToString(sum[:]), Target: size}
	home := filepath.Join(dir, name)
	want.Path = filepath.Join(home, sh.file(want.SessionID))
	manPath := filepath.Join(dir, name+".json")
	if b, err := os.ReadFile(manPath); err == nil {
		var m Synthetic
		if json.Unmarshal(b, &m) == nil && m.Version == want.Version && m.SessionID == want.SessionID && m.SourceSHA256 == want.SourceSHA256 &&
			m.Target == want.Target && m.Path == want.Path {
			if fi, err := os.Stat(m.Path); err == nil && fi.Size() == m.Bytes {
				return m, nil
			}
		}
	}
	start := time.Now()
	srcID := sh.srcID(filepath.Base(source))
	var lines []templateLine
	var first, last time.Time
	for raw := range bytes.SplitSeq(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var probe struct {
			Cwd string `json:"cwd"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return Synthetic{}, fmt.Errorf("bench: %s: a line is not JSON: %w", source, err)
		}
		if want.Cwd == "" {
			want.Cwd = probe.Cwd
		}
		tl := templateLine{text: string(raw)}
		for _, m := range sh.spans.FindAllStringSubmatchIndex(tl.text, -1) {
			switch {
			case m[2] >= 0:
				ts, err := time.Parse(time.RFC3339Nano, tl.text[m[2]:m[3]])
				if err != nil {
					return Synthetic{}, fmt.Errorf("bench: %s: %w", source, err)
				}
				if first.IsZero() || ts.Before(first) {
					first = ts
				}
				if ts.After(last) {
					last = ts
				}
				tl.spans, tl.kinds = append(tl.spans, [2]int{m[2], m[3]}), append(tl.kinds, 't')
			case tl.text[m[0]] == 't' || tl.text[m[0]] == 'm' || tl.text[m[0]] == 'r' || strings.HasPrefix(tl.text[m[0]:], "call_"):
				tl.spans, tl.kinds = append(tl.spans, [2]int{m[0], m[1]}), append(tl.kinds, 'i')
			default:
				tl.spans, tl.kinds = append(tl.spans, [2]int{m[0], m[1]}), append(tl.kinds, 'u')
			}
		}
		lines = append(lines, tl)
	}
	if len(lines) == 0 || first.IsZero() {
		return Synthetic{}, fmt.Errorf("bench: %s has no timestamped lines", source)
	}
	shift := last.Sub(first) + time.Hour
	if err := os.RemoveAll(home); err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	f, err := os.OpenFile(want.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	s := want
	var lastLine []byte
	for k := 0; s.Bytes < size; k++ {
		ids := map[string]string{}
		for _, tl := range lines {
			if k > 0 && sh.once != nil && strings.Contains(tl.text, string(sh.once)) {
				continue
			}
			var b []byte
			at := 0
			for j, sp := range tl.spans {
				b = append(b, tl.text[at:sp[0]]...)
				orig := tl.text[sp[0]:sp[1]]
				switch tl.kinds[j] {
				case 't':
					ts, _ := time.Parse(time.RFC3339Nano, orig)
					b = ts.Add(time.Duration(k)*shift).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
				case 'u':
					if orig == srcID {
						b = append(b, s.SessionID...)
						break
					}
					n, ok := ids[orig]
					if !ok {
						n = derivedUUID(k, orig)
						ids[orig] = n
					}
					b = append(b, n...)
				case 'i':
					n, ok := ids[orig]
					if !ok {
						n = derivedID(k, orig)
						ids[orig] = n
					}
					b = append(b, n...)
				}
				at = sp[1]
			}
			b = append(append(b, tl.text[at:]...), '\n')
			if _, err := w.Write(b); err != nil {
				return Synthetic{}, errors.Join(fmt.Errorf("bench: writing %s: %w", want.Path, err), f.Close())
			}
			s.Bytes += int64(len(b))
			s.Lines++
			lastLine = b
			if s.Bytes >= size {
				break
			}
		}
		s.Copies = k + 1
		if progress != nil && k%8 == 7 {
			fmt.Fprintf(progress, "bench: synthesizing %s: %.0f of %.0f MiB\n", name, float64(s.Bytes)/(1<<20), float64(size)/(1<<20))
		}
	}
	if err := w.Flush(); err != nil {
		return Synthetic{}, errors.Join(fmt.Errorf("bench: writing %s: %w", want.Path, err), f.Close())
	}
	if err := f.Sync(); err != nil {
		return Synthetic{}, errors.Join(fmt.Errorf("bench: flushing %s: %w", want.Path, err), f.Close())
	}
	if err := f.Close(); err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	var tail struct {
		UUID      string    `json:"uuid"`
		Timestamp time.Time `json:"timestamp"`
	}
	if err := json.Unmarshal(lastLine, &tail); err != nil {
		return Synthetic{}, fmt.Errorf("bench: the last line of %s: %w", want.Path, err)
	}
	s.LastUUID, s.LastTimestamp = tail.UUID, tail.Timestamp
	if s.LastTimestamp.IsZero() {
		s.LastTimestamp = last.Add(time.Duration(s.Copies) * shift)
	}
	man, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return Synthetic{}, err
	}
	if err := os.WriteFile(manPath, man, 0o600); err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	if progress != nil {
		fmt.Fprintf(progress, "bench: synthesized %s: %d lines, %.1f MiB in %.1fs\n", name, s.Lines, float64(s.Bytes)/(1<<20), time.Since(start).Seconds())
	}
	return s, nil
}

// derivedUUID is a version-4-shaped uuid derived from k and s.
func derivedUUID(k int, s string) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%d/%s", k, s))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

// derivedID is an id like orig (same prefix, same length) derived from k.
func derivedID(k int, orig string) string {
	const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	prefix, rest, _ := strings.Cut(orig, "_")
	h := sha256.Sum256(fmt.Appendf(nil, "%d/%s", k, orig))
	b := []byte(prefix + "_")
	for j := range len(rest) {
		b = append(b, alnum[int(h[j%len(h)]^byte(j/len(h)*31))%len(alnum)])
	}
	return string(b)
}

// object encodes key, value pairs as one JSON object, in order (as Claude
// Code writes its records).
func object(kv ...any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for j := 0; j+1 < len(kv); j += 2 {
		if j > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[j])
		v, err := json.Marshal(kv[j+1])
		if err != nil {
			panic(err) // only values built here
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// HookTurn is the k-th turn appended to a synthetic transcript: a human
// instruction, an assistant reply calling Bash, the tool's result (about 2
// KB of test output, carried twice as Claude Code records it: in the
// message and in toolUseResult) and the assistant's closing text. parent
// is the uuid of the record it follows; it returns the lines and the uuid
// of its last record.
func HookTurn(sid, cwd, parent string, k int, at time.Time) ([]byte, string) {
	return hookTurn(sid, cwd, parent, k, at, fmt.Sprintf("Turn %d: the parser still drops the last row when the input has no trailing newline. Fix it in internal/turn, add a test for input %d, and run the package's tests.", k, k))
}

// PastedLog is about size bytes of what a person pastes to show a failed
// build: a few sentences of their own, then the build's log (compiler and
// test lines, a stack trace, the tool's narration), repeated.
func PastedLog(size int) string {
	var b strings.Builder
	b.WriteString("The nightly build broke again after the dependency bump. Here is the whole log, from the start of the job:\n\n")
	for k := 0; b.Len() < size; k++ {
		fmt.Fprintf(&b, "[%04d] Compiling module %d of 400 (internal/pkg%d) took %d ms and wrote build/obj/pkg%d.o to the cache.\n", k, k%400, k, 40+k%900, k)
		fmt.Fprintf(&b, "npm notice %d.%dkB dist/chunk-%d.js Error: cannot find module './x%d' at Object.<anonymous> (/home/u/app/src/index.js:%d:5)\n", k, k%10, k, k, k)
		fmt.Fprintf(&b, "    at Module._compile (node:internal/modules/cjs/loader:%d:14)\n", 1100+k%300)
		fmt.Fprintf(&b, "--- FAIL: TestParse%d (0.%02ds)\n    parse_test.go:%d: got %d rows, want %d\n", k, k%100, 20+k%80, k%7, k%7+1)
		fmt.Fprintf(&b, "The runner retried the step once, then uploaded the artifacts of job %d to the cache and went on with the next package.\n", k)
	}
	return b.String()
}

func hookTurn(sid, cwd, parent string, k int, at time.Time, instruction string) ([]byte, string) {
	uuid := func(j int) string { return derivedUUID(k, fmt.Sprintf("hook turn %s %d", sid, j)) }
	id := func(prefix string, j int) string {
		return derivedID(k, fmt.Sprintf("%s_hookturn%d%016d", prefix, j, k))
	}
	ts := func(sec int) string {
		return at.Add(time.Duration(sec) * time.Second).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	head := func(parent string) []any {
		return []any{"parentUuid", parent, "isSidechain", false, "userType", "external", "cwd", cwd, "sessionId", sid, "version", "2.1.39", "gitBranch", "main"}
	}
	usage := object("input_tokens", 3, "cache_creation_input_tokens", 1200+k%97, "cache_read_input_tokens", 90000+37*k%60000,
		"cache_creation", object("ephemeral_5m_input_tokens", 1200+k%97, "ephemeral_1h_input_tokens", 0), "output_tokens", 180+k%41,
		"service_tier", "standard", "inference_geo", "global")
	var out strings.Builder
	out.WriteString(fmt.Sprintf("=== RUN   TestTurn%d\n", k))
	for j := 0; out.Len() < 2000; j++ {
		fmt.Fprintf(&out, "    turn_test.go:%d: case %d/%d: input %q → ok (%d.%03ds)\n", 40+j, k, j, fmt.Sprintf("row-%d-%d", k, j), j%3, (k*7+j*13)%1000)
	}
	fmt.Fprintf(&out, "--- PASS: TestTurn%d (0.%02ds)\nPASS\nok  \tgithub.com/example/project/internal/turn\t0.%03ds", k, k%100, (k*17)%1000)
	u1, u2, u3, u4 := uuid(1), uuid(2), uuid(3), uuid(4)
	toolu, msg1, msg2 := id("toolu", 1), id("msg", 2), id("msg", 3)
	cmd := fmt.Sprintf("go test ./internal/turn/ -run 'TestTurn%d$' -count=1 -v", k)
	var b bytes.Buffer
	for _, rec := range []json.RawMessage{
		object(append(head(parent), "type", "user", "message", object("role", "user", "content", instruction),
			"uuid", u1, "timestamp", ts(0), "permissionMode", "bypassPermissions")...),
		object(append(head(u1), "message", object("model", "claude-opus-4-6", "id", msg1, "type", "message", "role", "assistant",
			"content", []json.RawMessage{object("type", "tool_use", "id", toolu, "name", "Bash", "input", object("command", cmd, "description", fmt.Sprintf("Run the tests of turn %d", k)), "caller", object("type", "direct"))},
			"stop_reason", nil, "stop_sequence", nil, "usage", usage), "requestId", id("req", 4), "type", "assistant", "uuid", u2, "timestamp", ts(4))...),
		object(append(head(u2), "type", "user", "message", object("role", "user", "content",
			[]json.RawMessage{object("tool_use_id", toolu, "type", "tool_result", "content", out.String(), "is_error", false)}),
			"uuid", u3, "timestamp", ts(9), "toolUseResult", object("stdout", out.String(), "stderr", "", "interrupted", false, "isImage", false),
			"sourceToolAssistantUUID", u2)...),
		object(append(head(u3), "message", object("model", "claude-opus-4-6", "id", msg2, "type", "message", "role", "assistant",
			"content", []json.RawMessage{object("type", "text", "text", fmt.Sprintf("The tests of turn %d pass. The parser kept the last row only when a newline followed it: `scanRows` now flushes the pending row at EOF, and `TestTurn%d` covers input %d without a trailing newline. Nothing else in internal/turn reads rows, so no other caller changes.", k, k, k))},
			"stop_reason", nil, "stop_sequence", nil, "usage", usage), "requestId", id("req", 5), "type", "assistant", "uuid", u4, "timestamp", ts(15))...),
	} {
		b.Write(rec)
		b.WriteByte('\n')
	}
	return b.Bytes(), u4
}

// HookBench runs graft hook claude-code (a Stop) after each turn appended
// to a Claude Code transcript in a throw-away user, as Claude Code runs it:
// a new process, the hook JSON on stdin.
type HookBench struct {
	Dirs HostDirs
	// Transcript is the transcript's path under
	// $CLAUDE_CONFIG_DIR/projects/<project>/; Session its graft session.
	Transcript, Session string
	// Prime is the first hook's run: the whole transcript imported.
	Prime time.Duration
	// CPU is the CPU time of the last hook run.
	CPU time.Duration
	// TurnBytes is the size of the last turn appended.
	TurnBytes int

	bin, sid, parent string
	at               time.Time
	turns            int
	stdin            []byte
}

// NewHookBench copies st into a fresh throw-away user under dir and runs
// the Stop hook once, which imports all of it.
func NewHookBench(bin, dir string, st Synthetic) (*HookBench, error) {
	d, err := NewHostDirs(dir, "hook-")
	if err != nil {
		return nil, err
	}
	proj := filepath.Join(d.Claude, "projects", hosts.ClaudeProjectDirName(d.Project))
	if err := os.MkdirAll(proj, 0o700); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	h := &HookBench{Dirs: d, Transcript: filepath.Join(proj, st.SessionID+".jsonl"), bin: bin, sid: st.SessionID,
		parent: st.LastUUID, at: st.LastTimestamp.Add(time.Minute)}
	if h.Session, err = importer.DefaultID(h.Transcript); err != nil {
		return nil, err
	}
	if err := copyFile(st.Path, h.Transcript); err != nil {
		return nil, err
	}
	h.stdin, err = json.Marshal(map[string]string{"session_id": st.SessionID, "transcript_path": h.Transcript, "cwd": d.Project, "hook_event_name": "Stop"})
	if err != nil {
		return nil, err
	}
	if h.Prime, err = h.run(); err != nil {
		return nil, fmt.Errorf("bench: the first hook (importing all of %s): %w", h.Transcript, err)
	}
	return h, nil
}

// Append appends the next turn to the transcript, as Claude Code does
// (no fsync), and returns its size.
func (h *HookBench) Append() (int, error) {
	data, last := HookTurn(h.sid, h.Dirs.Project, h.parent, h.turns, h.at)
	if err := h.appendTurn(data, last); err != nil {
		return 0, err
	}
	return len(data), nil
}

// appendTurn appends the lines of a turn whose last record is last.
func (h *HookBench) appendTurn(data []byte, last string) error {
	f, err := os.OpenFile(h.Transcript, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		return errors.Join(fmt.Errorf("bench: appending to %s: %w", h.Transcript, err), f.Close())
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	h.parent, h.at, h.turns, h.TurnBytes = last, h.at.Add(time.Minute), h.turns+1, len(data)
	return nil
}

// Turn appends one turn and times one Stop hook, which must import it.
func (h *HookBench) Turn() (time.Duration, error) {
	if _, err := h.Append(); err != nil {
		return 0, err
	}
	return h.run()
}

// PasteTurn is Turn with paste as the turn's instruction: a person who
// pastes a long log into the prompt.
func (h *HookBench) PasteTurn(paste string) (time.Duration, error) {
	data, last := hookTurn(h.sid, h.Dirs.Project, h.parent, h.turns, h.at, paste)
	if err := h.appendTurn(data, last); err != nil {
		return 0, err
	}
	return h.run()
}

// run runs the hook once and checks that it said nothing (a hook reports
// its failures on stderr and exits 0 all the same) and that the import
// cursor reached the transcript's end.
func (h *HookBench) run() (time.Duration, error) {
	pr, err := RunProcess(h.Dirs.Env(), h.stdin, h.bin, "hook", "claude-code")
	if err != nil {
		return 0, err
	}
	h.CPU = pr.CPU
	if len(pr.Stderr) > 0 || len(pr.Stdout) > 0 {
		return 0, fmt.Errorf("bench: graft hook claude-code printed %q on stdout, %q on stderr; want nothing", pr.Stdout, pr.Stderr)
	}
	if err := h.check(); err != nil {
		return 0, err
	}
	return pr.Wall, nil
}

func (h *HookBench) check() error { return followedToEnd(h.Transcript, h.Dirs.Graft, h.Session) }

// followedToEnd checks that the import cursor of session in home is at
// the end of transcript: the hook followed it all.
func followedToEnd(transcript, home, session string) error {
	fi, err := os.Stat(transcript)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	cur, err := importer.LoadCursor(vfs.Default, home, session)
	if err != nil {
		return err
	}
	if cur.Offset != fi.Size() {
		return fmt.Errorf("bench: the import cursor of %s is at byte %d of %d: the hook did not follow %s to its end", session, cur.Offset, fi.Size(), transcript)
	}
	return nil
}

// HookParts is where a Stop hook's time goes, each part timed in this
// process on the hook's own home, after one more turn was appended.
type HookParts struct {
	// Open is graft.Open of the home: directories, the journal and the
	// recovery scan (nothing pending).
	Open time.Duration
	// Follow is Service.Follow of the transcript: what the hook does after
	// opening (Stop, autoGraft off).
	Follow time.Duration
	// Reads are the bytes Follow read from graft's own files, per file
	// (relative to the home), and how many times each was opened.
	Reads []FileReads
	// Fsyncs counts Follow's fsyncs of files and directories (an atomic
	// file replace is two: the file and its directory), FsyncTime the time
	// spent in the calls that make them.
	Fsyncs    int
	FsyncTime time.Duration
	// Synced names what was fsynced, in order (relative to the home; an
	// atomic replace is "<file> (atomic)").
	Synced []string
	// LogBytes is the size of the session's log.
	LogBytes int64
	// Fold is one Store.Info of the session: a fold of its whole log.
	Fold time.Duration
	// PrefixBytes and PrefixHash: the transcript's bytes already imported
	// and one sha256 of them, the check an incremental import starts with.
	PrefixBytes int64
	PrefixHash  time.Duration
}

// FileReads is what was read from one file.
type FileReads struct {
	Path  string
	Opens int
	Bytes int64
}

// Parts appends a turn and times the parts of following it in-process.
func (h *HookBench) Parts() (HookParts, error) {
	var p HookParts
	if _, err := h.Append(); err != nil {
		return p, err
	}
	start := time.Now()
	svc, err := Open(h.Dirs.Graft, graft.Options{})
	p.Open = time.Since(start)
	if err != nil {
		return p, err
	}
	cur, err := importer.LoadCursor(vfs.Default, h.Dirs.Graft, h.Session)
	if err != nil {
		return p, err
	}
	p.PrefixBytes = cur.Offset
	rfs := &ioCountFS{FS: vfs.Default, reads: map[string]*FileReads{}}
	counted, err := Open(h.Dirs.Graft, graft.Options{FS: rfs})
	if err != nil {
		return p, err
	}
	rfs.on()
	start = time.Now()
	_, err = counted.Follow(hosts.ClaudeCode, h.Transcript, h.sid, h.Dirs.Project, nil)
	p.Follow = time.Since(start)
	p.Reads, p.Fsyncs, p.FsyncTime, p.Synced = rfs.off(h.Dirs.Graft)
	if err != nil {
		return p, err
	}
	if err := h.check(); err != nil {
		return p, err
	}
	st, err := session.OpenStore(svc.FS, svc.Home)
	if err != nil {
		return p, err
	}
	fi, err := os.Stat(st.Path(h.Session))
	if err != nil {
		return p, fmt.Errorf("bench: %w", err)
	}
	p.LogBytes = fi.Size()
	start = time.Now()
	if _, err := st.Info(h.Session); err != nil {
		return p, err
	}
	p.Fold = time.Since(start)
	start = time.Now()
	f, err := os.Open(h.Transcript)
	if err != nil {
		return p, fmt.Errorf("bench: %w", err)
	}
	_, err = io.CopyN(sha256.New(), f, p.PrefixBytes)
	p.PrefixHash = time.Since(start)
	return p, errors.Join(err, f.Close())
}

// ioCountFS counts the opens of each file and the bytes read from it, and
// the fsyncs and the time they took.
type ioCountFS struct {
	vfs.FS
	mu        sync.Mutex
	counting  bool
	reads     map[string]*FileReads
	fsyncs    int
	fsyncTime time.Duration
	synced    []string
}

func (r *ioCountFS) on() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counting = true
	clear(r.reads)
	r.fsyncs, r.fsyncTime, r.synced = 0, 0, nil
}

func (r *ioCountFS) off(home string) ([]FileReads, int, time.Duration, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counting = false
	var out []FileReads
	for _, fr := range r.reads {
		c := *fr
		if rel, err := filepath.Rel(home, c.Path); err == nil {
			c.Path = rel
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b FileReads) int {
		if a.Bytes != b.Bytes {
			return int(b.Bytes - a.Bytes)
		}
		return strings.Compare(a.Path, b.Path)
	})
	var synced []string
	for _, s := range r.synced {
		if rel, err := filepath.Rel(home, s); err == nil {
			s = rel
		}
		synced = append(synced, s)
	}
	return out, r.fsyncs, r.fsyncTime, synced
}

// sync counts n fsyncs of what that took from start until now.
func (r *ioCountFS) sync(n int, what string, start time.Time) {
	d := time.Since(start)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counting {
		r.fsyncs += n
		r.fsyncTime += d
		r.synced = append(r.synced, what)
	}
}

func (r *ioCountFS) WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	start := time.Now()
	err := r.FS.WriteFileAtomic(name, data, perm)
	r.sync(2, name+" (atomic)", start)
	return err
}

func (r *ioCountFS) SyncDir(dir string) error {
	start := time.Now()
	err := r.FS.SyncDir(dir)
	r.sync(1, dir+"/", start)
	return err
}

func (r *ioCountFS) Create(name string, perm os.FileMode) (vfs.File, error) {
	f, err := r.FS.Create(name, perm)
	if err != nil {
		return nil, err
	}
	return &readCountFile{File: f, fs: r}, nil
}

func (r *ioCountFS) entry(name string) *FileReads {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.counting {
		return nil
	}
	fr := r.reads[name]
	if fr == nil {
		fr = &FileReads{Path: name}
		r.reads[name] = fr
	}
	fr.Opens++
	return fr
}

func (r *ioCountFS) add(fr *FileReads, n int) {
	if fr == nil || n <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fr.Bytes += int64(n)
}

func (r *ioCountFS) Open(name string) (vfs.File, error) {
	f, err := r.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &readCountFile{File: f, fs: r, fr: r.entry(name)}, nil
}

func (r *ioCountFS) OpenAppend(name string) (vfs.File, error) {
	f, err := r.FS.OpenAppend(name)
	if err != nil {
		return nil, err
	}
	return &readCountFile{File: f, fs: r, fr: r.entry(name)}, nil
}

type readCountFile struct {
	vfs.File
	fs *ioCountFS
	fr *FileReads
}

func (f *readCountFile) Sync() error {
	start := time.Now()
	err := f.File.Sync()
	f.fs.sync(1, f.File.Name(), start)
	return err
}

func (f *readCountFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.fs.add(f.fr, n)
	return n, err
}

func (f *readCountFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.fs.add(f.fr, n)
	return n, err
}
