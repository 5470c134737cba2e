//go:build !amd64 || purego

package logscan

var haveStopsAVX2 = false

func scanStringAVX2(b []byte) (int, bool) { panic("logscan: scanStringAVX2 without amd64") }
