// An independent MCP client for graft's black-box test: the TypeScript SDK
// starts the built binary ("graft mcp") over stdio and drives every tool.
// Usage: node client.mjs <graft-binary> <home>
// Prints one JSON object with what each step returned; the Go test
// (mcpserver/blackbox_test.go) asserts on it. Exits non-zero on any
// failure it did not expect, naming the step.
import { execFileSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [graft, home] = process.argv.slice(2);
if (!graft || !home) {
  console.error("usage: node client.mjs <graft-binary> <home>");
  process.exit(2);
}

const transport = new StdioClientTransport({
  command: graft,
  args: ["--home", home, "mcp"],
  stderr: "pipe",
});
let serverLog = "";
transport.stderr?.on("data", (chunk) => {
  serverLog += chunk.toString();
});
const client = new Client({ name: "graft-blackbox-node", version: "1.0.0" });

// call returns the tool's structured output, or {isError, text} for a tool
// error. A protocol error throws and fails the script.
async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  const text = (res.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");
  if (res.isError) {
    return { isError: true, text };
  }
  if (!res.structuredContent) {
    throw new Error(`${name}: a successful result without structuredContent: ${text}`);
  }
  return res.structuredContent;
}

const out = {};
let step = "connect";
try {
  await client.connect(transport);
  out.server = client.getServerVersion();

  step = "listTools";
  const { tools } = await client.listTools();
  out.tools = tools.map((t) => ({
    name: t.name,
    annotations: t.annotations,
    hasOutputSchema: Boolean(t.outputSchema),
    description: t.description,
  }));

  step = "status before";
  out.statusBefore = await call("graft_status", {});

  step = "prepare";
  const rv = await call("graft_prepare", { source: "s" });
  out.prepare = rv;

  step = "commit";
  out.commit = await call("graft_commit", { preparedId: rv.preparedId, tapeHash: rv.tapeHash });

  step = "recall";
  out.recall = await call("graft_recall", { session: "s", seq: 1 });

  step = "status after commit";
  out.statusAfter = await call("graft_status", {});

  step = "revert";
  out.revert = await call("graft_revert", { target: out.commit.targetId });

  step = "unknown preparedId";
  out.unknownPrepared = await call("graft_commit", { preparedId: "prep-does-not-exist", tapeHash: rv.tapeHash });

  step = "drift";
  const drift = await call("graft_prepare", { source: "d" });
  // A human message arrives between review and commit, written by the CLI
  // while the server runs (the server holds no database open).
  execFileSync(graft, ["--home", home, "append", "d"], {
    input: JSON.stringify({ type: "user/message", source: { kind: "user" }, text: "Wait: do the PDF export first." }) + "\n",
  });
  out.drift = await call("graft_commit", { preparedId: drift.preparedId, tapeHash: drift.tapeHash });
} catch (err) {
  out.failed = { step, error: String(err?.stack ?? err) };
} finally {
  await client.close();
}
out.serverLog = serverLog;
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(out.failed ? 1 : 0);
