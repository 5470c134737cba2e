//go:build !amd64 || purego

package session

var haveStopsAVX2 = false

func scanStringAVX2(b []byte) (int, bool) { panic("session: scanStringAVX2 without amd64") }
