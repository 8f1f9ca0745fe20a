/**
 * Run by tests/integration/test_ts_client.py against a real `flowmem serve` (FLOWMEM_URL, FLOWMEM_KEY): add,
 * search, a chat turn, an update's history, forget, and error answers. It prints what it saw as one JSON line;
 * the Python test checks it. Compiling it is a check too: each field read here must exist in the generated types.
 */
import { createFlowmemClient, FlowmemError, unwrap, type ErrorResponse } from "../src/index.js";

const baseUrl = process.env.FLOWMEM_URL ?? "";
const flowmem = createFlowmemClient({ baseUrl, apiKey: process.env.FLOWMEM_KEY });
const scope = { user_id: "alice", workspace_id: "wa" };

const added = await unwrap(flowmem.POST("/v1/memories", { body: { text: "I moved to Turin in March", ...scope } }));
const memoryId = added.actions[0]?.memory_id ?? "";
const found = await unwrap(
  flowmem.POST("/v1/search", { body: { query: "where do I live?", explain: true, top_k: 3, ...scope } }),
);
const turn = await unwrap(
  flowmem.POST("/v1/context", { body: { message: "where do I live?", session_id: "s1", ...scope } }),
);
await unwrap(
  flowmem.PATCH("/v1/memories/{memory_id}", {
    params: { path: { memory_id: memoryId } },
    body: { content: "I moved to Turin in April", workspace_id: "wa" },
  }),
);
const history = await unwrap(
  flowmem.GET("/v1/memories/{memory_id}/history", {
    params: { path: { memory_id: memoryId }, query: { workspace_id: "wa" } },
  }),
);

// Errors: the body typed as ErrorResponse, the status on the response.
const errors: Record<string, { status: number; type: string; where: string[] }> = {};
function record(name: string, status: number, body: ErrorResponse): void {
  errors[name] = { status, type: body.error.type, where: body.error.problems.map((p) => p.where) };
}
const bad = await flowmem.POST("/v1/search", { body: { query: "q", top_k: 0, ...scope } });
if (bad.error) record("top_k_0", bad.response.status, bad.error);
const empty = await flowmem.POST("/v1/memories", { body: { text: " ", ...scope } });
if (empty.error) record("empty_text", empty.response.status, empty.error);
const outside = await flowmem.GET("/v1/memories", { params: { query: { user_id: "alice", workspace_id: "wb" } } });
if (outside.error) record("other_workspace", outside.response.status, outside.error);
const keyless = createFlowmemClient({ baseUrl });
const refused = await keyless.GET("/v1/memories", { params: { query: { user_id: "alice", workspace_id: "wa" } } });
if (refused.error) record("no_key", refused.response.status, refused.error);
try {
  await unwrap(flowmem.GET("/v1/memories/{memory_id}", { params: { path: { memory_id: "nope" }, query: scope } }));
} catch (caught) {
  if (caught instanceof FlowmemError) record("thrown_not_found", caught.status, caught.body);
}

const dryRun = await unwrap(
  flowmem.DELETE("/v1/users/{user_id}", {
    params: { path: { user_id: "alice" }, query: { workspace_id: "wa", dry_run: true } },
  }),
);
const forgotten = await unwrap(
  flowmem.DELETE("/v1/users/{user_id}", { params: { path: { user_id: "alice" }, query: { workspace_id: "wa" } } }),
);
const after = await unwrap(flowmem.GET("/v1/memories", { params: { query: { user_id: "alice", workspace_id: "wa" } } }));

console.log(
  JSON.stringify({
    added: { actions: added.actions.map((a) => a.action), memory_id: memoryId },
    search: {
      contents: found.memories.map((m) => m.content),
      final: found.memories.map((m) => m.scores.final ?? null),
      spans: found.explain?.trace?.spans.map((s) => s.op) ?? [],
    },
    context: {
      window: turn.chat_history.map((m) => m.content),
      roles: turn.messages.map((m) => m.role),
      recalled: turn.memories.map((m) => m.content),
    },
    history: history.events.map((e) => [e.event, e.old?.content ?? null, e.new?.content ?? null]),
    errors,
    forget: { dry_run: dryRun.memories, erased: forgotten.memories, sessions: forgotten.sessions, left: after.total },
  }),
);
