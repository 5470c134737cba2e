package gemini

import (
	"bytes"
	"encoding/json"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/genai"
	"github.com/graft-project/graft/session/logscan"
)

// The fast path of Map (issue 25), as in packages claudecode and codex: a
// record, a message's content, a tool call's result and a
// functionResponse's response are read with logscan.Decoder instead of
// encoding/json's reflection. Each function below fills exactly what
// json.Unmarshal would into a zero value, or says false and the caller
// decodes the bytes with encoding/json as before: a syntax or type error,
// a key that is escaped, not ASCII, repeated or in another case than the
// field's, invalid UTF-8 or a lone surrogate in a built string, a number
// that is not a plain integer, deep nesting. Raw values are the line's own
// bytes; the ones that outlive the line (a tool call's args) are copied.

// recordKeys is what Map reads of a record's keys besides the record: the
// tests of its dispatch (a key with a string or object value) and, for a
// record of no known shape, its keys (in the line's bytes).
type recordKeys struct {
	rewindTo, id, set, sessionID, projectHash bool
	names                                     [][]byte
}

// is reports what Map's is(k, first) does of the keys json.Unmarshal
// would have put in a map.
func (k *recordKeys) is(key string, first byte) bool {
	switch {
	case key == "$rewindTo" && first == '"':
		return k.rewindTo
	case key == "id" && first == '"':
		return k.id
	case key == "$set" && first == '{':
		return k.set
	case key == "sessionId" && first == '"':
		return k.sessionID
	case key == "projectHash" && first == '"':
		return k.projectHash
	}
	panic("gemini: recordKeys.is(" + key + ")")
}

// stringField reads a string or null into dst; isString says which.
func stringField(d *logscan.Decoder, dst *string, isString *bool) bool {
	*isString = !d.PeekNull()
	return d.StringField(dst)
}

var recordFields = []string{"id", "timestamp", "type", "content", "displayContent", "thoughts", "toolCalls", "tokens", "model",
	"$set", "$rewindTo", "sessionId", "projectHash", "startTime", "lastUpdated", "kind", "messages"}

// fastRecord is json.Unmarshal(data, rec) for rec zero, with the keys Map
// tests, or false.
func fastRecord(d *logscan.Decoder, data []byte, rec *record, k *recordKeys) bool {
	var seen logscan.FieldSet
	return d.WholeObject(data, func(key []byte) bool {
		k.names = append(k.names, key)
		return recordField(d, key, rec, k, &seen)
	}) && uniqueNames(k.names)
}

// recordField reads the value of key into rec (a record of the file or of
// a $set list).
func recordField(d *logscan.Decoder, key []byte, rec *record, k *recordKeys, seen *logscan.FieldSet) bool {
	var isString bool
	switch string(key) {
	case "id":
		ok := seen.First(0) && stringField(d, &rec.ID, &isString)
		k.id = isString
		return ok
	case "timestamp":
		return seen.First(1) && d.StringField(&rec.Timestamp)
	case "type":
		return seen.First(2) && d.StringField(&rec.Type)
	case "content":
		return seen.First(3) && d.RawField((*[]byte)(&rec.Content))
	case "displayContent":
		return seen.First(4) && d.RawField((*[]byte)(&rec.DisplayContent))
	case "thoughts":
		return seen.First(5) && fastThoughts(d, &rec.Thoughts)
	case "toolCalls":
		return seen.First(6) && fastToolCalls(d, &rec.ToolCalls)
	case "tokens":
		return seen.First(7) && fastTokens(d, &rec.Tokens)
	case "model":
		return seen.First(8) && d.StringField(&rec.Model)
	case "$set":
		if !seen.First(9) || !d.RawField((*[]byte)(&rec.Set)) {
			return false
		}
		k.set = rec.Set[0] == '{'
		return true
	case "$rewindTo":
		if !seen.First(10) || !d.StringPtrField(&rec.RewindTo) {
			return false
		}
		k.rewindTo = rec.RewindTo != nil
		return true
	case "sessionId":
		ok := seen.First(11) && stringField(d, &rec.SessionID, &isString)
		k.sessionID = isString
		return ok
	case "projectHash":
		ok := seen.First(12) && stringField(d, &rec.ProjectHash, &isString)
		k.projectHash = isString
		return ok
	case "startTime":
		return seen.First(13) && d.StringField(&rec.StartTime)
	case "lastUpdated":
		return seen.First(14) && d.StringField(&rec.LastUpdated)
	case "kind":
		return seen.First(15) && d.StringField(&rec.Kind)
	case "messages":
		return seen.First(16) && d.RawField((*[]byte)(&rec.Messages))
	}
	return !logscan.FoldsTo(key, recordFields) && d.SkipValue()
}

// uniqueNames reports whether no key is there twice (a key of no field,
// repeated, would be one key of the map Map reads).
func uniqueNames(names [][]byte) bool {
	for i := range names {
		for j := range i {
			if bytes.Equal(names[i], names[j]) {
				return false
			}
		}
	}
	return true
}

var thoughtFields = []string{"subject", "description"}

func fastThoughts(d *logscan.Decoder, dst *[]thought) bool {
	if d.Null() {
		return true
	}
	return importer.List(d, dst, func(t *thought) bool {
		var seen logscan.FieldSet
		return d.Object(func(key []byte) bool {
			switch string(key) {
			case "subject":
				return seen.First(0) && d.StringField(&t.Subject)
			case "description":
				return seen.First(1) && d.StringField(&t.Description)
			}
			return !logscan.FoldsTo(key, thoughtFields) && d.SkipValue()
		})
	})
}

var toolCallFields = []string{"id", "name", "args", "result", "status", "resultDisplay"}

// fastToolCalls reads a record's toolCalls; their args are copied (a tool
// call's input outlives the line).
func fastToolCalls(d *logscan.Decoder, dst *[]toolCall) bool {
	if d.Null() {
		return true
	}
	return importer.List(d, dst, func(c *toolCall) bool {
		var seen logscan.FieldSet
		return d.Object(func(key []byte) bool {
			switch string(key) {
			case "id":
				return seen.First(0) && d.StringField(&c.ID)
			case "name":
				return seen.First(1) && d.StringField(&c.Name)
			case "args":
				if !seen.First(2) || !d.RawField((*[]byte)(&c.Args)) {
					return false
				}
				c.Args = bytes.Clone(c.Args)
				return true
			case "result":
				return seen.First(3) && d.RawField((*[]byte)(&c.Result))
			case "status":
				return seen.First(4) && d.StringField(&c.Status)
			case "resultDisplay":
				return seen.First(5) && d.RawField((*[]byte)(&c.ResultDisplay))
			}
			return !logscan.FoldsTo(key, toolCallFields) && d.SkipValue()
		})
	})
}

var tokenFields = []string{"input", "output", "cached", "thoughts", "tool", "total"}

func fastTokens(d *logscan.Decoder, dst **Tokens) bool {
	if d.Null() {
		return true
	}
	t := &Tokens{}
	*dst = t
	var seen logscan.FieldSet
	return d.Object(func(key []byte) bool {
		switch string(key) {
		case "input":
			return seen.First(0) && d.Int64Field(&t.Input)
		case "output":
			return seen.First(1) && d.Int64Field(&t.Output)
		case "cached":
			return seen.First(2) && d.Int64Field(&t.Cached)
		case "thoughts":
			return seen.First(3) && d.Int64Field(&t.Thoughts)
		case "tool":
			return seen.First(4) && d.Int64Field(&t.Tool)
		case "total":
			return seen.First(5) && d.Int64Field(&t.Total)
		}
		return !logscan.FoldsTo(key, tokenFields) && d.SkipValue()
	})
}

// setField is one key of a $set and its value.
type setField struct {
	key string
	raw json.RawMessage
}

// fastSet reads a $set's object as json.Unmarshal reads it into a map
// (every key once), or false.
func fastSet(d *logscan.Decoder, raw []byte, fields *[]setField) bool {
	ok := d.WholeObject(raw, func(key []byte) bool {
		for _, f := range *fields {
			if f.key == string(key) {
				return false // a repeated key: the map keeps the last
			}
		}
		v, ok := d.RawValue()
		*fields = append(*fields, setField{key: string(key), raw: v})
		return ok
	})
	return ok
}

var mimeFields = []string{"mimeType"}
var fileFields = []string{"mimeType", "fileUri"}

// fastPart reads one part; a functionCall's args are copied.
func fastPart(d *logscan.Decoder, p *part) bool {
	var seen logscan.FieldSet
	return d.Object(func(key []byte) bool {
		switch string(key) {
		case "text":
			return seen.First(0) && d.StringPtrField(&p.Text)
		case "thought":
			return seen.First(1) && d.BoolField(&p.Thought)
		case "functionCall":
			return seen.First(2) && importer.Nullable(d, &p.FunctionCall, func(c *functionCall) bool {
				return genai.Call(d, &c.ID, &c.Name, &c.Args)
			})
		case "functionResponse":
			return seen.First(3) && importer.Nullable(d, &p.FunctionResponse, func(r *functionResponse) bool {
				return genai.Response(d, &r.ID, &r.Name, &r.Response)
			})
		case "inlineData":
			return seen.First(4) && importer.Nullable(d, &p.InlineData, func(m *inlineData) bool {
				var seen logscan.FieldSet
				return d.Object(func(key []byte) bool {
					if string(key) == "mimeType" {
						return seen.First(0) && d.StringField(&m.MimeType)
					}
					return !logscan.FoldsTo(key, mimeFields) && d.SkipValue()
				})
			})
		case "fileData":
			return seen.First(5) && importer.Nullable(d, &p.FileData, func(f *fileData) bool {
				var seen logscan.FieldSet
				return d.Object(func(key []byte) bool {
					switch string(key) {
					case "mimeType":
						return seen.First(0) && d.StringField(&f.MimeType)
					case "fileUri":
						return seen.First(1) && d.StringField(&f.FileURI)
					}
					return !logscan.FoldsTo(key, fileFields) && d.SkipValue()
				})
			})
		}
		return !logscan.FoldsTo(key, genai.PartKeys) && d.SkipValue()
	})
}

// fastPartList is json.Unmarshal(raw, ps) for raw a list of objects, or
// false.
func fastPartList(d *logscan.Decoder, raw []byte, ps *[]part) bool {
	d.Reset(raw)
	d.WS()
	var out []part
	ok := importer.List(d, &out, func(p *part) bool { return fastPart(d, p) })
	d.WS()
	if !ok || !d.AtEnd() {
		return false
	}
	*ps = out
	return true
}

// fastParts is parts(raw) when it decodes on the fast path, or false.
func fastParts(d *logscan.Decoder, raw []byte, ps *[]part) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		*ps = nil
		return true
	}
	switch raw[0] {
	case '"':
		s, ok := d.WholeString(raw)
		if ok {
			*ps = []part{{Text: &s}}
		}
		return ok
	case '{':
		var p part
		d.Reset(raw)
		if !fastPart(d, &p) || !d.AtEnd() {
			return false
		}
		*ps = []part{p}
		return true
	case '[':
		return fastPartList(d, raw, ps)
	}
	return false
}

// outputErrorFields are the fields result reads of a functionResponse's
// response.
var outputErrorFields = []string{"output", "error"}

type outputError struct {
	Output *string `json:"output"`
	Error  *string `json:"error"`
}

// fastOutputError is json.Unmarshal(raw, r) for r zero, or false.
func fastOutputError(d *logscan.Decoder, raw []byte, r *outputError) bool {
	var seen logscan.FieldSet
	return d.WholeObject(raw, func(key []byte) bool {
		switch string(key) {
		case "output":
			return seen.First(0) && d.StringPtrField(&r.Output)
		case "error":
			return seen.First(1) && d.StringPtrField(&r.Error)
		}
		return !logscan.FoldsTo(key, outputErrorFields) && d.SkipValue()
	})
}
