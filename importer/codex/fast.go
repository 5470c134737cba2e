package codex

import (
	"bytes"
	"encoding/json"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session/logscan"
)

// The fast path of Map (issue 25), as in package claudecode: a rollout
// line, its payload and a tool's output are read with logscan.Decoder
// instead of encoding/json's reflection. Each function below fills exactly
// what json.Unmarshal would into a zero value, or says false and the
// caller decodes the bytes with json.Unmarshal: a syntax or type error, a
// key that is escaped, not ASCII, repeated or in another case than the
// field's, invalid UTF-8 or a lone surrogate in a built string, a number
// that is not a plain integer, deep nesting. Raw values are the line's own
// bytes; the ones that outlive the line (a tool's input) are copied.

var rolloutKeys = []string{"timestamp", "type", "payload"}

// fastRolloutLine is json.Unmarshal(data, rl) for rl zero, or false.
func fastRolloutLine(d *logscan.Decoder, data []byte, rl *rolloutLine) bool {
	var seen logscan.FieldSet
	return d.WholeObject(data, func(key []byte) bool {
		switch string(key) {
		case "timestamp":
			return seen.First(0) && d.StringField(&rl.Timestamp)
		case "type":
			return seen.First(1) && d.StringField(&rl.Type)
		case "payload":
			return seen.First(2) && d.RawField((*[]byte)(&rl.Payload))
		}
		return !logscan.FoldsTo(key, rolloutKeys) && d.SkipValue()
	})
}

var itemKeys = []string{"type", "role", "content", "summary", "name", "arguments", "input", "call_id", "id", "output", "action", "author"}

// fastItem is json.Unmarshal(payload, it) for it zero, or false. Its
// action is copied (a shell call's input).
func fastItem(d *logscan.Decoder, payload []byte, it *item) bool {
	var seen logscan.FieldSet
	ok := d.WholeObject(payload, func(key []byte) bool {
		switch string(key) {
		case "type":
			return seen.First(0) && d.StringField(&it.Type)
		case "role":
			return seen.First(1) && d.StringField(&it.Role)
		case "content":
			return seen.First(2) && d.RawField((*[]byte)(&it.Content))
		case "summary":
			return seen.First(3) && fastTextParts(d, &it.Summary)
		case "name":
			return seen.First(4) && d.StringField(&it.Name)
		case "arguments":
			return seen.First(5) && d.RawField((*[]byte)(&it.Arguments))
		case "input":
			return seen.First(6) && d.RawField((*[]byte)(&it.Input))
		case "call_id":
			return seen.First(7) && d.StringField(&it.CallID)
		case "id":
			return seen.First(8) && d.StringField(&it.ID)
		case "output":
			return seen.First(9) && d.RawField((*[]byte)(&it.Output))
		case "action":
			return seen.First(10) && d.RawField((*[]byte)(&it.Action))
		case "author":
			return seen.First(11) && d.StringField(&it.Author)
		}
		return !logscan.FoldsTo(key, itemKeys) && d.SkipValue()
	})
	if ok {
		it.Action = bytes.Clone(it.Action)
	}
	return ok
}

var textPartKeys = []string{"type", "text"}

// fastTextParts reads a list of {type, text} objects, or null (nil).
func fastTextParts(d *logscan.Decoder, dst *[]textPart) bool {
	if d.Null() {
		*dst = nil
		return true
	}
	return importer.List(d, dst, func(p *textPart) bool {
		var seen logscan.FieldSet
		return d.Object(func(key []byte) bool {
			switch string(key) {
			case "type":
				return seen.First(0) && d.StringField(&p.Type)
			case "text":
				return seen.First(1) && d.StringField(&p.Text)
			}
			return !logscan.FoldsTo(key, textPartKeys) && d.SkipValue()
		})
	})
}

// fastTextPartList is json.Unmarshal(raw, parts) for raw a list, or false.
func fastTextPartList(d *logscan.Decoder, raw []byte, parts *[]textPart) bool {
	d.Reset(raw)
	d.WS()
	if d.PeekNull() {
		return false
	}
	ok := fastTextParts(d, parts)
	d.WS()
	return ok && d.AtEnd()
}

// eventFields are the fields of an event_msg payload that classify and
// eventMsg read.
type eventFields struct {
	Type, ItemType, Reason string
	Message                json.RawMessage
}

var eventKeys = []string{"type", "item", "message", "reason"}

// fastEvent reads an event_msg payload: ok only when json.Unmarshal into
// classify's struct and into eventMsg's would both succeed, with these
// values.
func fastEvent(d *logscan.Decoder, payload []byte, ev *eventFields) bool {
	var seen logscan.FieldSet
	return d.WholeObject(payload, func(key []byte) bool {
		switch string(key) {
		case "type":
			return seen.First(0) && d.StringField(&ev.Type)
		case "item":
			if !seen.First(1) {
				return false
			}
			if d.Null() {
				return true
			}
			var iseen logscan.FieldSet
			return d.Object(func(key []byte) bool {
				if string(key) == "type" {
					return iseen.First(0) && d.StringField(&ev.ItemType)
				}
				return !logscan.FoldsTo(key, typeKeys) && d.SkipValue()
			})
		case "message":
			return seen.First(2) && d.RawField((*[]byte)(&ev.Message))
		case "reason":
			return seen.First(3) && d.StringField(&ev.Reason)
		}
		return !logscan.FoldsTo(key, eventKeys) && d.SkipValue()
	})
}

var typeKeys = []string{"type"}

// shellFields is what shellOutput reads of a shell tool's JSON output.
type shellFields struct {
	Output   *string
	Metadata *struct{ ExitCode *int }
}

var shellKeys = []string{"output", "metadata"}
var metadataKeys = []string{"exit_code"}

// fastShell is json.Unmarshal of shellOutput's struct, or false.
func fastShell(d *logscan.Decoder, data []byte, o *shellFields) bool {
	var seen logscan.FieldSet
	return d.WholeObject(data, func(key []byte) bool {
		switch string(key) {
		case "output":
			if !seen.First(0) {
				return false
			}
			if d.Null() {
				return true
			}
			s, ok := d.StringValue()
			o.Output = &s
			return ok
		case "metadata":
			if !seen.First(1) {
				return false
			}
			if d.Null() {
				return true
			}
			o.Metadata = &struct{ ExitCode *int }{}
			var mseen logscan.FieldSet
			return d.Object(func(key []byte) bool {
				if string(key) == "exit_code" {
					if !mseen.First(0) {
						return false
					}
					if d.Null() {
						return true
					}
					var n int
					ok := d.IntField(&n)
					o.Metadata.ExitCode = &n
					return ok
				}
				return !logscan.FoldsTo(key, metadataKeys) && d.SkipValue()
			})
		}
		return !logscan.FoldsTo(key, shellKeys) && d.SkipValue()
	})
}
