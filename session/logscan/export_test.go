package logscan

// The seams of the external tests: what they call of the string scan, and
// the knob that forces its portable path.

// StringEnd is stringEnd: the end of the JSON string body at data[i].
func StringEnd(data []byte, i int) (end int, escaped bool, ok bool) { return stringEnd(data, i) }

// ScanStringAVX2 is the assembly scan; it panics without AVX2.
func ScanStringAVX2(b []byte) (int, bool) { return scanStringAVX2(b) }

// HaveStopsAVX2 reports whether the string scan uses the AVX2 assembly.
func HaveStopsAVX2() bool { return haveStopsAVX2 }

// WithPortable runs f with the AVX2 scan off (the portable eight-byte
// loop, what other platforms and -tags purego run), then restores it.
func WithPortable(f func()) {
	saved := haveStopsAVX2
	haveStopsAVX2 = false
	defer func() { haveStopsAVX2 = saved }()
	f()
}
