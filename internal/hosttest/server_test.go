package hosttest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestModelServerWithoutHosts checks the fake's answers that the hosts'
// own runs do not exercise, with a plain HTTP client.
func TestModelServerWithoutHosts(t *testing.T) {
	srv := NewModelServer(t)
	srv.SetReply("PLAIN")
	srv.SetInputTokens(1234)
	post := func(c *http.Client, path, body string, header map[string]string) (int, string) {
		t.Helper()
		return postTo(t, c, srv.URL+path, body, header)
	}
	c := http.DefaultClient

	code, body := post(c, "/v1/messages", `{"model":"m","stream":false,"messages":[{"role":"system","content":"x"},{"role":"user","content":"hi"}]}`, nil)
	var msg struct {
		Content []struct{ Text string } `json:"content"`
		Usage   struct {
			InputTokens int `json:"input_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &msg); code != 200 || err != nil || len(msg.Content) != 1 || msg.Content[0].Text != "PLAIN" || msg.Usage.InputTokens != 1234 {
		t.Errorf("non-stream message: %d %s (%v)", code, body, err)
	}

	compact := `{"stream":true,"messages":[{"role":"user","content":"hi"},{"role":"user","content":"CRITICAL: … Your task is to ` + ClaudeCompactMarker + `, paying close attention"}]}`
	code, body = post(c, "/v1/messages?beta=true", compact, nil)
	if code != 200 || !strings.Contains(body, "event: message_stop") || !strings.Contains(body, `\u003csummary\u003e`+DefaultSummary) {
		t.Errorf("streamed compaction reply: %d %s", code, body)
	}

	code, body = post(c, "/v1/responses", `{"input":[]}`, map[string]string{"x-codex-turn-metadata": `{"request_kind":"compaction"}`})
	if code != 200 || !strings.Contains(body, "event: response.completed") || !strings.Contains(body, DefaultSummary) {
		t.Errorf("codex compaction reply: %d %s", code, body)
	}

	if code, body = post(c, "/v1/messages/count_tokens", `{}`, nil); code != 200 || !strings.Contains(body, "1234") {
		t.Errorf("count_tokens: %d %s", code, body)
	}
	if code, _ = post(c, "/v1/other", `not json`, nil); code != http.StatusNotFound {
		t.Errorf("an unknown path: %d", code)
	}

	// A plain-HTTP request for another host, sent through the server as a
	// proxy, is refused.
	proxy, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	pc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	resp, err := pc.Post("http://elsewhere.invalid/v1/messages", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a proxied request for another host: %d", resp.StatusCode)
	}

	reqs := srv.Requests()
	kinds := []bool{reqs[0].IsCompaction(), reqs[1].IsClaudeCompaction(), reqs[2].IsCodexCompaction()}
	if len(reqs) != 6 || kinds[0] || !kinds[1] || !kinds[2] || !reqs[0].Contains("hi") || reqs[0].Contains("PLAIN") {
		t.Errorf("recorded requests:\n%s", srv.Describe())
	}
	if f := srv.Foreign(); len(f) != 1 || f[0].Host != "elsewhere.invalid" || f[0].IsModel() {
		t.Errorf("foreign requests: %v", f)
	}
	if o := srv.Others(); len(o) != 2 {
		t.Errorf("others:\n%s", srv.Describe())
	}
}

// TestModelServerFunctionCall checks a Responses reply that is a
// function_call, and the request helpers that read tools and outputs.
func TestModelServerFunctionCall(t *testing.T) {
	srv := NewModelServer(t)
	srv.SetReplyFunc(func(r Request) Reply {
		if len(r.CodexFunctionOutputs()) == 0 {
			return Reply{Call: &FunctionCall{Name: "exec_command", Arguments: `{"cmd":"true"}`}}
		}
		return Reply{Text: "AFTER"}
	})
	post := func(body string) string {
		t.Helper()
		_, b := postTo(t, http.DefaultClient, srv.URL+"/v1/responses", body, map[string]string{"Content-Type": "application/json"})
		return b
	}
	body := post(`{"tools":[{"type":"function","name":"exec_command"},{"type":"web_search"}],"input":[]}`)
	var done, completed struct {
		Item     map[string]any `json:"item"`
		Response struct {
			Output []map[string]any `json:"output"`
		} `json:"response"`
	}
	for _, ev := range strings.Split(body, "\n\n") {
		data, ok := strings.CutPrefix(ev[strings.Index(ev, "\n")+1:], "data: ")
		switch {
		case !ok:
		case strings.HasPrefix(ev, "event: response.output_item.done\n"):
			if err := json.Unmarshal([]byte(data), &done); err != nil {
				t.Fatalf("output_item.done: %v\n%s", err, data)
			}
		case strings.HasPrefix(ev, "event: response.completed\n"):
			if err := json.Unmarshal([]byte(data), &completed); err != nil {
				t.Fatalf("response.completed: %v\n%s", err, data)
			}
		}
	}
	it := done.Item
	if it["type"] != "function_call" || it["name"] != "exec_command" || it["arguments"] != `{"cmd":"true"}` || it["call_id"] != "call_hosttest_1" {
		t.Errorf("output_item.done item %v\n%s", it, body)
	}
	if len(completed.Response.Output) != 1 || completed.Response.Output[0]["call_id"] != "call_hosttest_1" {
		t.Errorf("response.completed output %v", completed.Response.Output)
	}
	if !strings.Contains(post(`{"input":[{"type":"function_call_output","call_id":"call_hosttest_1","output":"done"}]}`), "AFTER") {
		t.Error("the request with the output did not get the text")
	}
	reqs := srv.Requests()
	if got := reqs[0].CodexTools(); len(got) != 2 || got[0] != "exec_command" || got[1] != "web_search" {
		t.Errorf("CodexTools: %v", got)
	}
	if got := reqs[1].CodexFunctionOutputs(); string(got["call_hosttest_1"]) != `"done"` {
		t.Errorf("CodexFunctionOutputs: %v", got)
	}
}

// postTo POSTs body to url with c and header, and returns the status and
// the body of the answer.
func postTo(t testing.TB, c *http.Client, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// A Reply's Call is a Messages tool_use block too (streamed: the input as
// one input_json_delta; else the input object), and ClaudeTools names
// the tools a Messages request offers.
func TestModelServerClaudeToolUse(t *testing.T) {
	srv := NewModelServer(t)
	srv.SetReplyFunc(func(r Request) Reply {
		if got := r.ClaudeTools(); len(got) != 2 || got[0] != "Bash" || got[1] != "TaskCreate" {
			t.Errorf("ClaudeTools = %q", got)
		}
		return Reply{Call: &FunctionCall{Name: "TaskCreate", Arguments: `{"subject":"Write the parser"}`, CallID: "toolu_1"}}
	})
	req := `{"model":"m","stream":%s,"tools":[{"name":"Bash"},{"name":"TaskCreate"}],"messages":[{"role":"user","content":"hi"}]}`
	code, body := postTo(t, http.DefaultClient, srv.URL+"/v1/messages", strings.Replace(req, "%s", "false", 1), nil)
	var msg struct {
		Content []struct {
			Type, ID, Name string
			Input          map[string]string
		} `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal([]byte(body), &msg); code != 200 || err != nil || len(msg.Content) != 1 || msg.Content[0].Type != "tool_use" ||
		msg.Content[0].ID != "toolu_1" || msg.Content[0].Name != "TaskCreate" || msg.Content[0].Input["subject"] != "Write the parser" || msg.StopReason != "tool_use" {
		t.Errorf("non-stream tool_use: %d %s (%v)", code, body, err)
	}
	code, body = postTo(t, http.DefaultClient, srv.URL+"/v1/messages", strings.Replace(req, "%s", "true", 1), nil)
	for _, want := range []string{`"type":"tool_use"`, `"name":"TaskCreate"`, `"partial_json":"{\"subject\":\"Write the parser\"}"`, `"stop_reason":"tool_use"`, "event: message_stop"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("streamed tool_use lacks %s: %d %s", want, code, body)
		}
	}
}
