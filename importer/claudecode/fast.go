package claudecode

import (
	"bytes"

	"github.com/graft-project/graft/session/logscan"
)

// The fast path of Map (issue 25): a transcript line and its message
// content are read with logscan.Decoder instead of encoding/json's
// reflection, which validates every line before decoding it and so reads
// it twice. Each function below fills exactly what json.Unmarshal would,
// or says false and the caller decodes the bytes with json.Unmarshal
// again from a zero value: a syntax or type error, a key that is escaped,
// not ASCII, repeated or in another case than the field's, invalid UTF-8
// or a lone surrogate in a string that is built, a number that is not a
// plain integer, deep nesting (logscan.Decoder says which). Raw values
// (json.RawMessage) are the line's own bytes, as encoding/json copies
// them; the ones that outlive the line (a tool's input) are copied.

var lineKeys = []string{"type", "version", "subtype", "uuid", "cwd", "timestamp", "isMeta", "isCompactSummary", "isSidechain",
	"message", "content", "level", "summary", "operation", "attachment", "toolUseResult", "compactMetadata", "gitBranch", "permissionMode", "origin",
	"planContent"}

// fastLine is json.Unmarshal(data, ln) for ln zero, or false.
func fastLine(d *logscan.Decoder, data []byte, ln *line) bool {
	d.Reset(data)
	d.WS()
	var seen logscan.FieldSet
	ok := d.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return seen.First(0) && d.StringField(&ln.Type)
		case "version":
			return seen.First(1) && d.StringField(&ln.Version)
		case "subtype":
			return seen.First(2) && d.StringField(&ln.Subtype)
		case "uuid":
			return seen.First(3) && d.StringField(&ln.UUID)
		case "cwd":
			return seen.First(4) && d.StringField(&ln.Cwd)
		case "timestamp":
			return seen.First(5) && d.StringField(&ln.Timestamp)
		case "isMeta":
			return seen.First(6) && d.BoolField(&ln.IsMeta)
		case "isCompactSummary":
			return seen.First(7) && d.BoolField(&ln.IsCompactSummary)
		case "isSidechain":
			return seen.First(8) && d.BoolField(&ln.IsSidechain)
		case "message":
			return seen.First(9) && fastMessage(d, &ln.Message)
		case "content":
			return seen.First(10) && d.RawField((*[]byte)(&ln.Content))
		case "level":
			return seen.First(11) && d.StringField(&ln.Level)
		case "summary":
			return seen.First(12) && d.StringField(&ln.Summary)
		case "operation":
			return seen.First(13) && d.StringField(&ln.Operation)
		case "attachment":
			return seen.First(14) && fastAttachment(d, ln)
		case "toolUseResult":
			return seen.First(15) && d.RawField((*[]byte)(&ln.ToolUseResult))
		case "compactMetadata":
			return seen.First(16) && fastCompactMetadata(d, ln)
		case "gitBranch":
			return seen.First(17) && d.StringField(&ln.GitBranch)
		case "permissionMode":
			return seen.First(18) && d.StringField(&ln.PermissionMode)
		case "origin":
			return seen.First(19) && fastOrigin(d, ln)
		case "planContent":
			return seen.First(20) && d.StringField(&ln.PlanContent)
		}
		return !logscan.FoldsTo(key, lineKeys) && d.SkipValue()
	})
	d.WS()
	return ok && d.AtEnd()
}

var messageKeys = []string{"role", "content"}

func fastMessage(d *logscan.Decoder, dst **message) bool {
	if d.Null() {
		return true
	}
	m := &message{}
	*dst = m
	var seen logscan.FieldSet
	return d.Object(func(key []byte) bool {
		switch string(key) {
		case "role":
			return seen.First(0) && d.StringField(&m.Role)
		case "content":
			return seen.First(1) && d.RawField((*[]byte)(&m.Content))
		}
		return !logscan.FoldsTo(key, messageKeys) && d.SkipValue()
	})
}

var attachmentKeys = []string{"type", "filename", "snippet", "planFilePath", "prompt", "commandMode"}

func fastAttachment(d *logscan.Decoder, ln *line) bool {
	if d.Null() {
		return true
	}
	a := &attachment{}
	ln.Attachment = a
	var seen logscan.FieldSet
	return d.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return seen.First(0) && d.StringField(&a.Type)
		case "filename":
			return seen.First(1) && d.StringField(&a.Filename)
		case "snippet":
			return seen.First(2) && d.StringField(&a.Snippet)
		case "planFilePath":
			return seen.First(3) && d.StringField(&a.PlanFilePath)
		case "prompt":
			var p string // content blocks: the slow path (promptText)
			ok := seen.First(4) && d.StringField(&p)
			a.Prompt = promptText(p)
			return ok
		case "commandMode":
			return seen.First(5) && d.StringField(&a.CommandMode)
		}
		return !logscan.FoldsTo(key, attachmentKeys) && d.SkipValue()
	})
}

var kindKeys = []string{"kind"}

func fastOrigin(d *logscan.Decoder, ln *line) bool {
	if d.Null() {
		return true
	}
	ln.Origin = &struct {
		Kind string `json:"kind"`
	}{}
	var seen logscan.FieldSet
	return d.Object(func(key []byte) bool {
		if string(key) == "kind" {
			return seen.First(0) && d.StringField(&ln.Origin.Kind)
		}
		return !logscan.FoldsTo(key, kindKeys) && d.SkipValue()
	})
}

var compactKeys = []string{"trigger", "preTokens"}

func fastCompactMetadata(d *logscan.Decoder, ln *line) bool {
	if d.Null() {
		return true
	}
	ln.CompactMetadata = &struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"preTokens"`
	}{}
	cm := ln.CompactMetadata
	var seen logscan.FieldSet
	return d.Object(func(key []byte) bool {
		switch string(key) {
		case "trigger":
			return seen.First(0) && d.StringField(&cm.Trigger)
		case "preTokens":
			return seen.First(1) && d.Int64Field(&cm.PreTokens)
		}
		return !logscan.FoldsTo(key, compactKeys) && d.SkipValue()
	})
}

var blockKeys = []string{"type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "is_error"}

// fastBlocks is json.Unmarshal(raw, blocks) for a list of objects, or
// false. A block's input is copied: it outlives the line in its event.
func fastBlocks(d *logscan.Decoder, raw []byte, blocks *[]block) bool {
	d.Reset(raw)
	var out []block
	ok := d.Array(func() bool {
		var b block
		var seen logscan.FieldSet
		if !d.Object(func(key []byte) bool {
			switch string(key) {
			case "type":
				return seen.First(0) && d.StringField(&b.Type)
			case "text":
				return seen.First(1) && d.StringField(&b.Text)
			case "thinking":
				return seen.First(2) && d.StringField(&b.Thinking)
			case "id":
				return seen.First(3) && d.StringField(&b.ID)
			case "name":
				return seen.First(4) && d.StringField(&b.Name)
			case "input":
				if !seen.First(5) || !d.RawField((*[]byte)(&b.Input)) {
					return false
				}
				b.Input = bytes.Clone(b.Input)
				return true
			case "tool_use_id":
				return seen.First(6) && d.StringField(&b.ToolUseID)
			case "content":
				return seen.First(7) && d.RawField((*[]byte)(&b.Content))
			case "is_error":
				return seen.First(8) && d.BoolField(&b.IsError)
			}
			return !logscan.FoldsTo(key, blockKeys) && d.SkipValue()
		}) {
			return false
		}
		out = append(out, b)
		return true
	})
	if !ok || !d.AtEnd() {
		return false
	}
	if out == nil {
		out = []block{} // encoding/json makes an empty, non-nil slice of []
	}
	*blocks = out
	return true
}
