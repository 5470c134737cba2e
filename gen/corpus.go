package gen

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// corpus is a text of whole lines built once per Generate. Tool outputs are
// slices of it at line boundaries, so a MiB of output costs no allocation
// and no random numbers per byte.
type corpus struct {
	text   string
	starts []int // starts[k] is the offset of line k+1; the last entry is len(text)
}

func (c *corpus) lines() int { return len(c.starts) - 1 }

// headLines is the number of lines that start in the first corpusHead
// bytes: an output starting there has room for bigMax bytes after it.
func (c *corpus) headLines() int { return max(sort.SearchInts(c.starts, corpusHead), 1) }

// slice returns lines first..first+n-1 (1-based), clipped to the corpus.
func (c *corpus) slice(first, n int) string {
	first = min(max(first, 1), c.lines())
	last := min(first+n-1, c.lines())
	return c.text[c.starts[first-1]:c.starts[last]]
}

// span returns the lines from first on until they hold at least size bytes
// (or the corpus ends) and how many lines that is.
func (c *corpus) span(first, size int) (string, int) {
	first = min(max(first, 1), c.lines())
	from := c.starts[first-1]
	end := sort.SearchInts(c.starts, from+size)
	end = min(end, c.lines())
	return c.text[from:c.starts[end]], end - first + 1
}

// newSourceCorpus numbers Go-looking lines the way Claude Code's Read does
// ("%6d→line"), up to at least size bytes.
func newSourceCorpus(rng *source, size int) *corpus {
	var b strings.Builder
	b.Grow(size + 4096)
	starts := []int{0}
	for n := 1; b.Len() < size; n++ {
		fmt.Fprintf(&b, "%6d→%s\n", n, codeLine(rng))
		starts = append(starts, b.Len())
	}
	return &corpus{text: b.String(), starts: starts}
}

// newLogCorpus writes service log lines with rising timestamps, up to at
// least size bytes.
func newLogCorpus(rng *source, base time.Time, size int) *corpus {
	var b strings.Builder
	b.Grow(size + 4096)
	starts := []int{0}
	at := base
	for b.Len() < size {
		at = at.Add(time.Duration(rng.between(1, 900)) * time.Millisecond)
		b.WriteString(at.Format("2006-01-02T15:04:05.000Z07:00"))
		b.WriteByte(' ')
		b.WriteString(logLine(rng))
		b.WriteByte('\n')
		starts = append(starts, b.Len())
	}
	return &corpus{text: b.String(), starts: starts}
}

var codeLines = []string{
	"",
	"// Append writes rec to the active segment and fsyncs it before returning.",
	"func (j *Journal) Append(rec Record) error {",
	"\tj.mu.Lock()",
	"\tdefer j.mu.Unlock()",
	"\tif j.closed {",
	"\t\treturn ErrClosed",
	"\t}",
	"\tbuf, err := rec.MarshalBinary()",
	"\tif err != nil {",
	"\t\treturn fmt.Errorf(\"journal: encoding record %d: %w\", rec.Seq, err)",
	"\t}",
	"\tif _, err := j.f.Write(buf); err != nil {",
	"\t\treturn fmt.Errorf(\"journal: writing %s: %w\", j.f.Name(), err)",
	"\treturn j.f.Sync()",
	"}",
	"type Segment struct {",
	"\tpath  string",
	"\tfirst uint64",
	"\tsize  int64",
	"for _, seg := range segs {",
	"\tif seg.first > want {",
	"\t\tbreak",
	"if err := os.Rename(tmp, path); err != nil {",
	"\treturn syncDir(filepath.Dir(path))",
	"// A torn tail is cut after its bytes are kept in a .broken file.",
	"\tcase errors.Is(err, io.ErrUnexpectedEOF):",
	"\t\treturn nil, &CorruptError{Path: path, Offset: off}",
	"func TestReplayTornTail(t *testing.T) {",
	"\tdir := t.TempDir()",
	"\tif got, want := len(recs), 3; got != want {",
	"\t\tt.Fatalf(\"replayed %d records, want %d\", got, want)",
	"import (",
	"\t\"encoding/binary\"",
	"\t\"hash/crc32\"",
	")",
	"const headerSize = 16",
	"\tcrc := crc32.Checksum(buf[headerSize:], castagnoli)",
	"\tbinary.LittleEndian.PutUint32(buf[4:], crc)",
}

func codeLine(rng *source) string { return pick(rng, codeLines) }

var logLines = []string{
	"INFO  journal: segment rotated first=%d size=%d",
	"DEBUG store: fsync %s took %dms",
	"INFO  api: POST /v1/sessions/%d 201 %dms",
	"WARN  store: slow fsync on %s: %dms",
	"INFO  compactor: merged %d segments into seg-%06d.wal",
	"DEBUG recovery: scanned %d records, %d rolled back",
	"ERROR api: GET /v1/sessions/%d: context deadline exceeded after %dms",
	"INFO  soak: iteration %d ok (%d kills so far)",
}

func logLine(rng *source) string {
	tmpl := pick(rng, logLines)
	switch strings.Count(tmpl, "%") {
	case 2:
		if strings.Contains(tmpl, "%s") {
			return fmt.Sprintf(tmpl, pick(rng, []string{"seg-000017.wal", "catalog.db", "sessions/", ".txn/"}), rng.between(1, 400))
		}
		return fmt.Sprintf(tmpl, rng.between(1, 99999), rng.between(1, 5000))
	}
	return tmpl
}
