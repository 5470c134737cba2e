// Package genai reads the Google GenAI "parts" that Gemini CLI and Qwen
// Code both store in their session files (packages gemini and qwen): a
// message's content is a list of parts, each one of text (thought true
// when it is the model's thinking), functionCall {id, name, args},
// functionResponse {id, name, response}, or the media, inlineData and
// fileData. It owns no file.
//
// It is the fast path (issue 25) of those objects: Call and Response fill
// exactly what json.Unmarshal would into a host's zero struct, or say
// false and the host decodes the bytes with encoding/json. They fill the
// fields each host's own types hold, not a type of this package, because
// encoding/json names the host's types in the errors a summary keeps.
//
// ParseShellOutput reads the sections the two hosts' shell tool puts
// around a command's output for the model (Gemini CLI's, and the earlier
// form Qwen Code keeps): the output itself, which the tape quotes, and
// how the command ended, which the Gemini CLI mapping reads (Gemini CLI
// records a command that failed as a call that went well).
package genai
