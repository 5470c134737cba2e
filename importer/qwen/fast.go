package qwen

import (
	"encoding/json"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/genai"
	"github.com/graft-project/graft/session/logscan"
)

// The fast path of Map (issue 25), as in packages claudecode and codex: a
// record and a functionResponse's response are read with logscan.Decoder
// instead of encoding/json's reflection. Each function below fills
// exactly what json.Unmarshal would into a zero value, or says false and
// the caller decodes the bytes with encoding/json as before: a syntax or
// type error, a key that is escaped, not ASCII, repeated or in another
// case than the field's, invalid UTF-8 or a lone surrogate in a built
// string, a number that is not a plain integer, deep nesting. Raw values
// are the line's own bytes; the ones that outlive the line (a
// functionCall's args, package genai) are copied.

var recordFields = []string{"uuid", "type", "subtype", "provenance", "timestamp", "cwd", "version", "model", "entrypoint",
	"message", "systemPayload", "toolCallResult", "parentUuid"}

// fastRecord is json.Unmarshal(data, r) for r zero, or false.
func fastRecord(d *logscan.Decoder, data []byte, r *record) bool {
	var seen logscan.FieldSet
	return d.WholeObject(data, func(key []byte) bool {
		switch string(key) {
		case "uuid":
			return seen.First(0) && d.StringField(&r.UUID)
		case "type":
			return seen.First(1) && d.StringField(&r.Type)
		case "subtype":
			return seen.First(2) && d.StringField(&r.Subtype)
		case "provenance":
			return seen.First(3) && d.StringPtrField(&r.Provenance)
		case "timestamp":
			return seen.First(4) && d.StringField(&r.Timestamp)
		case "cwd":
			return seen.First(5) && d.StringField(&r.Cwd)
		case "version":
			return seen.First(6) && d.StringField(&r.Version)
		case "model":
			return seen.First(7) && d.StringField(&r.Model)
		case "entrypoint":
			return seen.First(8) && d.StringField(&r.Entrypoint)
		case "message":
			return seen.First(9) && fastContent(d, &r.Message)
		case "systemPayload":
			return seen.First(10) && d.RawField((*[]byte)(&r.SystemPayload))
		case "toolCallResult":
			return seen.First(11) && fastToolCallResult(d, r)
		case "parentUuid":
			return seen.First(12) && d.StringField(&r.ParentUUID)
		}
		return !logscan.FoldsTo(key, recordFields) && d.SkipValue()
	})
}

var toolCallResultFields = []string{"callId", "status"}

func fastToolCallResult(d *logscan.Decoder, r *record) bool {
	if d.Null() {
		r.ToolCallResult = nil
		return true
	}
	r.ToolCallResult = &struct {
		CallID string `json:"callId"`
		Status string `json:"status"`
	}{}
	tr := r.ToolCallResult
	var seen logscan.FieldSet
	return d.Object(func(key []byte) bool {
		switch string(key) {
		case "callId":
			return seen.First(0) && d.StringField(&tr.CallID)
		case "status":
			return seen.First(1) && d.StringField(&tr.Status)
		}
		return !logscan.FoldsTo(key, toolCallResultFields) && d.SkipValue()
	})
}

var contentFields = []string{"role", "parts"}

func fastContent(d *logscan.Decoder, dst **content) bool {
	return importer.Nullable(d, dst, func(c *content) bool {
		var seen logscan.FieldSet
		return d.Object(func(key []byte) bool {
			switch string(key) {
			case "role":
				return seen.First(0) && d.StringField(&c.Role)
			case "parts":
				return seen.First(1) && fastParts(d, &c.Parts)
			}
			return !logscan.FoldsTo(key, contentFields) && d.SkipValue()
		})
	})
}

func fastParts(d *logscan.Decoder, dst *[]part) bool {
	if d.Null() {
		*dst = nil
		return true
	}
	return importer.List(d, dst, func(p *part) bool { return fastPart(d, p) })
}

// fastPart reads one part; a functionCall's args are copied (a tool
// call's input outlives the line).
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
			return seen.First(3) && importer.Nullable(d, &p.FunctionResponse, func(r *functionResult) bool {
				return genai.Response(d, &r.ID, &r.Name, &r.Response)
			})
		case "inlineData":
			return seen.First(4) && d.RawField((*[]byte)(&p.InlineData))
		case "fileData":
			return seen.First(5) && d.RawField((*[]byte)(&p.FileData))
		}
		return !logscan.FoldsTo(key, genai.PartKeys) && d.SkipValue()
	})
}

var outputErrorFields = []string{"output", "error"}

// fastOutputError is json.Unmarshal(raw, resp) of responseOutput's
// struct for resp zero, or false.
func fastOutputError(d *logscan.Decoder, raw []byte, output, errv *json.RawMessage) bool {
	var seen logscan.FieldSet
	return d.WholeObject(raw, func(key []byte) bool {
		switch string(key) {
		case "output":
			return seen.First(0) && d.RawField((*[]byte)(output))
		case "error":
			return seen.First(1) && d.RawField((*[]byte)(errv))
		}
		return !logscan.FoldsTo(key, outputErrorFields) && d.SkipValue()
	})
}
