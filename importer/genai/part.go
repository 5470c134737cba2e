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
	var seen logscan.FieldSet
	return d.Object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.First(0) && d.StringField(id)
		case "name":
			return seen.First(1) && d.StringField(name)
		case "args":
			if !seen.First(2) || !d.RawField((*[]byte)(args)) {
				return false
			}
			*args = bytes.Clone(*args)
			return true
		}
		return !logscan.FoldsTo(key, callKeys) && d.SkipValue()
	})
}

// Response reads a functionResponse's object into its id, name and
// response (raw), or false.
func Response(d *logscan.Decoder, id, name *string, response *json.RawMessage) bool {
	var seen logscan.FieldSet
	return d.Object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.First(0) && d.StringField(id)
		case "name":
			return seen.First(1) && d.StringField(name)
		case "response":
			return seen.First(2) && d.RawField((*[]byte)(response))
		}
		return !logscan.FoldsTo(key, responseKeys) && d.SkipValue()
	})
}
