package importer

import (
	"errors"
	"strings"
	"testing"
)

// recMapper is lineMapper whose records start with "{": its Recognizer.
type recMapper struct {
	lineMapper
	host, file string
}

func (m *recMapper) Recognize(line []byte) bool { return strings.HasPrefix(string(line), "{") }
func (m *recMapper) Describe() (host, file string) {
	if m.host == "" {
		return "Test", "a test transcript"
	}
	return m.host, m.file
}

// angleMapper is another host's: its records start with "<".
type angleMapper struct{ recMapper }

func (m *angleMapper) Format() string                { return "angle" }
func (m *angleMapper) Recognize(line []byte) bool    { return strings.HasPrefix(string(line), "<") }
func (m *angleMapper) Describe() (host, file string) { return "Angle", "an angle log" }

func TestFirstImportOfAnotherFormatIsRefused(t *testing.T) {
	f := newFixture(t)
	f.write("<a>\n<b>\n")
	_, err := Run(Options{Store: f.st, Home: f.home, ID: "s", Source: f.src, Others: []Other{{"lines", &lineMapper{}}, {"angle", &angleMapper{}}}}, &recMapper{})
	if !errors.Is(err, ErrNotTranscript) {
		t.Fatalf("err = %v, want ErrNotTranscript", err)
	}
	var nt *NotTranscriptError
	if !errors.As(err, &nt) || nt.Lines != 2 || !nt.Whole || nt.LooksLike != "angle" {
		t.Fatalf("error %#v", nt)
	}
	want := f.src + " holds no Test record in its 2 lines; it reads as an angle log: graft import angle " + f.src
	if !strings.Contains(err.Error(), want) {
		t.Errorf("message %q lacks %q", err, want)
	}
	if ok, _ := f.st.Exists("s"); ok {
		t.Error("session created")
	}
	if _, err := LoadCursor(f.st.FS, f.home, "s"); !errors.Is(err, ErrNoCursor) {
		t.Errorf("cursor: %v", err)
	}
}

// A record among the first lines is enough; one past them is not looked
// at.
func TestFirstImportLooksAtTheFirstRecords(t *testing.T) {
	f := newFixture(t)
	f.write(strings.Repeat("junk\n", SniffLines-1) + "{a}\n")
	if _, err := Run(Options{Store: f.st, Home: f.home, ID: "s", Source: f.src}, &recMapper{}); err != nil {
		t.Fatal(err)
	}
	f.write(strings.Repeat("junk\n", SniffLines) + "{a}\n")
	_, err := Run(Options{Store: f.st, Home: f.home, ID: "t", Source: f.src}, &recMapper{})
	if !errors.Is(err, ErrNotTranscript) || !strings.Contains(err.Error(), "in its first 64 lines") {
		t.Fatalf("err = %v", err)
	}
	// The lines that end within the first MiB are the other bound: 52
	// lines of 20,000 bytes, then a record that ends past it.
	long := strings.Repeat("j", 20000) + "\n"
	f.write(strings.Repeat(long, SniffBytes/len(long)) + "{" + strings.Repeat("a", 10000) + "}\n")
	_, err = Run(Options{Store: f.st, Home: f.home, ID: "u", Source: f.src}, &recMapper{})
	if !errors.Is(err, ErrNotTranscript) || !strings.Contains(err.Error(), "in its first 52 lines") {
		t.Fatalf("err = %v", err)
	}
}

// A resumed import is not checked: the cursor says the file was accepted.
func TestResumedImportIsNotChecked(t *testing.T) {
	f := newFixture(t)
	f.write("{a}\n")
	if _, err := Run(Options{Store: f.st, Home: f.home, ID: "s", Source: f.src}, &recMapper{}); err != nil {
		t.Fatal(err)
	}
	f.appendSrc("junk\njunk\n")
	sum, err := Run(Options{Store: f.st, Home: f.home, ID: "s", Source: f.src}, &recMapper{})
	if err != nil || sum.Appended != 2 {
		t.Fatalf("resumed run: %+v, %v", sum, err)
	}
}

// A mapper that tells no records (no Recognizer) is never refused, and
// neither are files with no complete line yet.
func TestFirstImportWithoutARecognizerOrALine(t *testing.T) {
	f := newFixture(t)
	f.write("junk\n")
	f.mustRun("s")
	for k, content := range []string{"", "junk", "\n\n"} {
		f.write(content)
		id := "t" + string(rune('a'+k))
		if _, err := Run(Options{Store: f.st, Home: f.home, ID: id, Source: f.src}, &recMapper{}); err != nil {
			t.Errorf("%q: %v", content, err)
		}
	}
}

// A first import of a file with no record yet (empty, or a line
// still being written) keeps no cursor: it read nothing to accept, so the
// run after it, when the file has grown lines, is a first import and is
// checked (found by FuzzClaudeCodeImportResumes: a cursor at offset 0 let
// any file in unread).
func TestAFileWithNoRecordAtItsFirstImportIsCheckedWhenItGrows(t *testing.T) {
	for k, first := range []string{"", "half"} {
		f := newFixture(t)
		id := "s" + string(rune('a'+k))
		f.write(first)
		if _, err := Run(Options{Store: f.st, Home: f.home, ID: id, Source: f.src}, &recMapper{}); err != nil {
			t.Fatalf("%q: %v", first, err)
		}
		if _, err := LoadCursor(f.st.FS, f.home, id); !errors.Is(err, ErrNoCursor) {
			t.Errorf("%q: a cursor after a run that read no record: %v", first, err)
		}
		f.appendSrc("\njunk\n")
		if _, err := Run(Options{Store: f.st, Home: f.home, ID: id, Source: f.src}, &recMapper{}); !errors.Is(err, ErrNotTranscript) {
			t.Errorf("%q, then a line of no record: err = %v, want ErrNotTranscript", first, err)
		}
		f.appendSrc("{a}\n")
		if _, err := Run(Options{Store: f.st, Home: f.home, ID: id, Source: f.src}, &recMapper{}); err != nil {
			t.Errorf("%q, then a record: %v", first, err)
		}
		if _, err := LoadCursor(f.st.FS, f.home, id); err != nil {
			t.Errorf("%q: no cursor after a run that read a record: %v", first, err)
		}
	}
}
