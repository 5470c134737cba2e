package genai

import (
	"bytes"
	"encoding/json"

	"github.com/graft-project/graft/session/logscan"
)

// PartKeys are the keys of a part, for logscan.FoldsTo.
var PartKeys = []string{"text", "thought", "functionCall", "functionResponse", "inlineData", "fileData"}

var callKeys = []string{"id", "name", "args"}
var responseKeys = []string{"id", "name", "response"}

// Call reads a functionCall's object into its id, name and args, or
// false. The args are copied: a tool call's input outlives the line.
func Call(d *logscan.Decoder, id, name *string, args *json.RawMessage) bool {
	if !idNameRaw(d, callKeys, id, name, args) {
		return false
	}
	*args = bytes.Clone(*args)
	return true
}

// Response reads a functionResponse's object into its id, name and
// response (raw), or false.
func Response(d *logscan.Decoder, id, name *string, response *json.RawMessage) bool {
	return idNameRaw(d, responseKeys, id, name, response)
}

// idNameRaw reads an object of the keys id, name and keys[2] (a raw value)
// into id, name and raw; a key said twice, or another one that folds to
// one of them, is false: encoding/json, on the caller's slow path, decides
// such an object.
func idNameRaw(d *logscan.Decoder, keys []string, id, name *string, raw *json.RawMessage) bool {
	var seen logscan.FieldSet
	return d.Object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.First(0) && d.StringField(id)
		case "name":
			return seen.First(1) && d.StringField(name)
		case keys[2]:
			return seen.First(2) && d.RawField((*[]byte)(raw))
		}
		return !logscan.FoldsTo(key, keys) && d.SkipValue()
	})
}
