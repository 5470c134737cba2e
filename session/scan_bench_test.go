package session_test

import (
	"bytes"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/session"
)

// The decoder's throughput through the scan API, on logs held in memory
// (a bytes.Reader is an io.ReaderAt and an io.Seeker, as a file is, so
// ScanFoldSums decodes its long lines as it reads them): "small" is the
// bench package's default dataset, short lines only; "seed" is the seed
// preset, whose tool outputs run to MiBs.
var benchLogs = sync.OnceValues(func() (map[string][]byte, error) {
	seed, err := gen.PresetOptions(gen.PresetSeed)
	if err != nil {
		return nil, err
	}
	logs := map[string][]byte{}
	for name, opts := range map[string]gen.Options{"small": {Turns: 20, Events: 4000, Seed: 1}, "seed": seed} {
		var buf bytes.Buffer
		err := gen.Generate(opts, func(ev *session.Event) error {
			line, err := session.Encode(ev)
			buf.Write(line)
			return err
		})
		if err != nil {
			return nil, err
		}
		logs[name] = buf.Bytes()
	}
	return logs, nil
})

func benchLog(b *testing.B, name string) []byte {
	logs, err := benchLogs()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(logs[name])))
	b.ReportAllocs()
	reportCPU(b)
	return logs[name]
}

// reportCPU adds cpu-ns/op: the process's CPU time (user and system, all
// goroutines) per op, which a loaded machine disturbs far less than the
// wall time.
func reportCPU(b *testing.B) {
	start := cpuTime()
	b.Cleanup(func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	})
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkScan(b *testing.B) {
	for _, name := range []string{"small", "seed"} {
		b.Run(name, func(b *testing.B) {
			data := benchLog(b, name)
			for b.Loop() {
				if _, err := session.Scan(bytes.NewReader(data), "x", session.ScanFrom{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkScanFold(b *testing.B) {
	for _, name := range []string{"small", "seed"} {
		b.Run(name, func(b *testing.B) {
			data := benchLog(b, name)
			for b.Loop() {
				if _, err := session.ScanFold(bytes.NewReader(data), "x", session.ScanFrom{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkScanFoldSums(b *testing.B) {
	for _, name := range []string{"small", "seed"} {
		b.Run(name, func(b *testing.B) {
			data := benchLog(b, name)
			for b.Loop() {
				if _, err := session.ScanFoldSums(bytes.NewReader(data), "x", session.ScanFrom{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeLine is the decoder alone, line by line, on one
// goroutine: what Scan and endsAt decode with.
func BenchmarkDecodeLine(b *testing.B) {
	data := benchLog(b, "small")
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for b.Loop() {
		for _, line := range lines {
			if _, err := session.DecodeLine(line); err != nil {
				b.Fatal(err)
			}
		}
	}
}
