package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/vfs"
)

func TestEndsAt(t *testing.T) {
	long := `{"seq":2,"type":"tool/result","source":{"kind":"tool"},"tool":{"name":"Read","output":"` + strings.Repeat("x", 200<<10) + `"}}` + "\n"
	first := `{"seq":1,"type":"user/message","source":{"kind":"user"},"text":"hi"}` + "\n"
	reordered := `{"type":"user/message","seq":2,"source":{"kind":"user"},"text":"b"}` + "\n"
	for _, tc := range []struct {
		name    string
		content string
		after   ScanResult
		want    bool
		wantErr error
	}{
		{"as scanned", first, ScanResult{End: int64(len(first)), LastSeq: 1}, true, nil},
		{"empty log", "", ScanResult{}, true, nil},
		{"a last line of 200 KiB", first + long, ScanResult{End: int64(len(first + long)), LastSeq: 2}, true, nil},
		{"fields in another order", first + reordered, ScanResult{End: int64(len(first + reordered)), LastSeq: 2}, true, nil},
		{"grew since the scan", first + reordered, ScanResult{End: int64(len(first)), LastSeq: 1}, false, nil},
		{"a torn tail seen by the scan", first + `{"se`, ScanResult{End: int64(len(first)), LastSeq: 1, Torn: &Torn{Offset: int64(len(first)), Bytes: 4}}, false, nil},
		{"same size, another last seq", first, ScanResult{End: int64(len(first)), LastSeq: 7}, false, ErrChanged},
		{"a line appended, the scan saw the first", first + reordered, ScanResult{End: int64(len(first + reordered)), LastSeq: 1}, false, ErrChanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := vfs.Default.OpenAppend(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := endsAt(vfs.Default, f, path, tc.after)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("endsAt = %v, %v; want %v", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("endsAt = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
