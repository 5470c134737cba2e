// Package logscan reads JSON-lines logs fast: the machinery under
// session's scans that knows nothing of the event schema. session owns
// Event and its fast decoder (session/decode.go), written with the
// primitives of this package's Decoder, and hands a Pipeline a Schema
// that decodes one line; everything here works for any schema.
//
// # Files
//
//	decoder.go         Decoder: the JSON primitives a schema's fast path reads a line with
//	                   (objects, arrays, strings, integers, raw values, interned strings,
//	                   a failed tool output's head); each reads exactly what encoding/json
//	                   would, or says false and leaves the line to the schema's fallback
//	strings.go         the string scan: where a string ends, its escapes, the head of a text
//	stops_amd64.s      the AVX2 string scan, 64 bytes a block (stops_amd64.go declares it;
//	stops_other.go     other platforms and -tags purego use the portable loop)
//	pipeline.go        Pipeline: the read-ahead of session.ScanFold and ScanFoldSums — one
//	                   reader goroutine cutting batches of lines, decoder goroutines, the
//	                   caller taking decoded batches in order; line sums (XXH3-128)
//	longline.go        a line longer than a batch decoded as it is read, never held whole
//	fields.go          StringFields: named string fields of a JSON object (a tool input)
//
// # Contract
//
// A schema's fast path is exact or declines: every primitive gives up
// (reports false) on anything encoding/json would decode differently or
// refuse, and the schema then decodes the line with encoding/json, which
// decides and words any error. A Pipeline hands out exactly what
// Schema.Decode makes of each line, in order, with the line's offset,
// number, length and sum, and says how the reader stopped: at the end, at
// a torn tail (bytes after the last '\n'), or on a read error.
//
// # Tests
//
// The tests of this package cover the string scan (the AVX2 scan against
// its byte-by-byte contract, and against the portable loop) and
// StringFields (FuzzStringFields). The decoder and the pipeline are
// tested through session's scan API, where encoding/json is the oracle:
// session/decode_test.go, scanfold_test.go, longline_test.go,
// fastpath_test.go and the fuzz targets FuzzScan, FuzzDecodeLine and
// FuzzScanFoldSumsLongLine. export_test.go holds the knob that forces
// the portable scan (WithPortable); a Pipeline counts its long lines in
// plain fields, read by the tests once it has stopped (LongLines).
package logscan
