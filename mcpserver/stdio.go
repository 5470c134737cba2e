package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport is the transport "graft mcp" serves over: newline-delimited
// JSON-RPC read from In and written to Out, like the SDK's IOTransport, with
// one difference. The SDK's reader ends the session (and "graft mcp" exits)
// at the first line it cannot decode; here every line is checked first, a
// malformed one is answered with a JSON-RPC error and dropped, and the
// server keeps serving the next. Well-formed lines reach the SDK unchanged.
//
// A line is answered here, and never reaches the SDK, when it is:
//
//	-32700 parse error       not valid UTF-8; not one JSON value (a
//	                         truncated line, two values on a line); longer
//	                         than MaxLineBytes
//	-32600 invalid request   a batch (an array; graft's clients send one
//	                         message per line, and the MCP revision 2025-06-18
//	                         dropped batches); not an object; an id that is
//	                         not a string, a number or null (or a number out
//	                         of range); anything the SDK's own message decoder
//	                         refuses ("jsonrpc" not "2.0", a method that is not
//	                         a string, a response without id, an error member
//	                         that is not an error object, nesting deeper than
//	                         it reads)
//
// The error carries the message's id when it can be read (a string or a
// number), else null, as JSON-RPC 2.0 says. Blank lines are skipped.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// Logger receives one line per malformed message; nil discards them.
	Logger *slog.Logger
	// MaxLineBytes bounds one line; 0 means mcp.DefaultMaxLineLength (16 MiB).
	// A longer line is read through without being held, and answered with
	// a parse error.
	MaxLineBytes int
}

// Connect starts the line filter and returns the SDK's connection over its
// output.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	limit := t.MaxLineBytes
	if limit <= 0 {
		limit = mcp.DefaultMaxLineLength
	}
	log := t.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	pr, pw := io.Pipe()
	out := &lineWriter{w: t.Out}
	go filterLines(t.In, pw, out, limit, log)
	// The filter bounds every line it passes on: the SDK's own cap is off.
	return (&mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// lineWriter serialises the SDK's writes and the filter's error answers:
// each Write is one whole message and its newline. Close leaves Out open.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lineWriter) Close() error { return nil }

// filterLines copies the well-formed lines of in to pw and answers the
// others on out, until in ends (pw is then closed: the SDK sees EOF) or
// either side fails.
func filterLines(in io.Reader, pw *io.PipeWriter, out *lineWriter, limit int, log *slog.Logger) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, size, readErr := readLine(r, limit)
		var err error
		switch {
		case size > limit:
			err = answer(out, log, nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: a line of %d bytes, longer than the %d this server reads", size, limit), nil)
		case len(bytes.TrimSpace(line)) > 0:
			msg, code, problem, id := checkLine(line)
			if problem != "" {
				err = answer(out, log, id, code, problem, line)
			} else if _, werr := pw.Write(append(msg, '\n')); werr != nil {
				return // the SDK closed its end: the session is over
			}
		}
		if err != nil {
			pw.CloseWithError(fmt.Errorf("mcpserver: answering a malformed line: %w", err))
			return
		}
		if readErr != nil {
			if errors.Is(readErr, io.EOF) {
				pw.Close()
			} else {
				pw.CloseWithError(fmt.Errorf("mcpserver: reading stdin: %w", readErr))
			}
			return
		}
	}
}

// readLine returns the next line without its newline and its size; a line
// longer than limit is read through but not kept (size > limit, line nil).
// At the end of the input the last line may lack its newline.
func readLine(r *bufio.Reader, limit int) ([]byte, int, error) {
	var line []byte
	size := 0
	for {
		chunk, err := r.ReadSlice('\n')
		content := bytes.TrimSuffix(chunk, []byte("\n")) // only a line's last chunk ends with it
		size += len(content)
		if size <= limit {
			line = append(line, content...)
		} else {
			line = nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, size, err
		}
	}
}

// checkLine decides whether the SDK can take line: msg is the line to pass
// on (trimmed), or problem says why it is answered with code instead; id
// is the message's id as JSON when it can be read.
func checkLine(line []byte) (msg []byte, code int64, problem string, id json.RawMessage) {
	msg = bytes.TrimSpace(line)
	if !utf8.Valid(msg) {
		return nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: the line is not valid UTF-8 (byte %d)", firstInvalidUTF8(msg)), nil
	}
	if !json.Valid(msg) {
		var v json.RawMessage
		err := json.Unmarshal(msg, &v)
		if err == nil {
			err = errors.New("not one JSON value")
		}
		return nil, jsonrpc.CodeParseError, "parse error: " + err.Error(), nil
	}
	switch msg[0] {
	case '[':
		if string(bytes.Join(bytes.Fields(msg), nil)) == "[]" {
			return nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch", nil
		}
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported; send one JSON-RPC message per line", nil
	case '{':
	default:
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message is a JSON object", nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(msg, &members); err != nil {
		return nil, jsonrpc.CodeParseError, "parse error: " + err.Error(), nil
	}
	if raw, ok := members["id"]; ok {
		var why string
		if id, why = readID(raw); why != "" {
			return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + why, nil
		}
	}
	if v, ok := members["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return nil, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`, id
	}
	if v, ok := members["method"]; ok && v[0] != '"' {
		return nil, jsonrpc.CodeInvalidRequest, `invalid request: "method" must be a string`, id
	}
	// The SDK's own decoder has the last word: what it refuses here would
	// end the session in its reader.
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error(), id
	}
	return msg, 0, "", nil
}

// readID returns raw as the id to answer with (nil for null), or why it
// is no JSON-RPC id.
func readID(raw json.RawMessage) (json.RawMessage, string) {
	switch raw[0] {
	case 'n':
		return nil, ""
	case '"':
		return raw, ""
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
			return nil, fmt.Sprintf("the id %s is out of range", raw)
		}
		return raw, ""
	}
	return nil, "the id must be a string, a number or null"
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// answer writes the JSON-RPC error for a malformed line and logs it.
func answer(out *lineWriter, log *slog.Logger, id json.RawMessage, code int64, message string, line []byte) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return err
	}
	excerpt := line
	if len(excerpt) > 200 {
		excerpt = excerpt[:200]
	}
	log.Warn("malformed JSON-RPC line answered with an error", "code", code, "error", message, "id", string(id), "line", string(excerpt))
	_, err = out.Write(append(b, '\n'))
	return err
}
