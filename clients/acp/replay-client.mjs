// A real ACP client for evtool's tests, on the official TypeScript SDK:
// spawns `evtool acp replay FILE`, initializes, and then either opens a
// session and sends PROMPTS prompts (mode "prompt"), answering every
// permission request with its first option, or loads the recorded session
// SESSION (mode "load"), or opens CANCELS sessions and in each sends a
// prompt and session/cancel right after it (mode "cancel": a permission
// request is answered, with its first option, only once the cancel is
// sent, so a turn that does not end cancelled lost the cancel), or lists
// the sessions for the project /work/project, as an editor builds its
// history, and loads the first one (mode "list"). It prints what it
// received as one JSON object:
// {"updates": [SessionNotification...], "permissions":
// [RequestPermissionRequest...], "results": [PromptResponse...],
// "initMs": N, "loadSession": bool, "listSessions": bool, "listed":
// [SessionInfo...]}.
//
// usage: node replay-client.mjs EVTOOL FILE prompt PROMPTS [evtool flags...]
//        node replay-client.mjs EVTOOL FILE load SESSION [evtool flags...]
//        node replay-client.mjs EVTOOL FILE cancel CANCELS [evtool flags...]
//        node replay-client.mjs EVTOOL FILE list - [evtool flags...]
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [evtool, file, mode, arg, ...flags] = process.argv.slice(2);
const child = spawn(evtool, ["acp", "replay", ...flags, file], { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

// With EVTOOL_CLIENT_SUMMARY=1 no update is kept, only their count.
const summary = process.env.EVTOOL_CLIENT_SUMMARY === "1";
const got = { updates: [], permissions: [], results: [], updateCount: 0, initMs: 0, loadSession: false, listSessions: false, listed: [] };
// In mode cancel: session id → a promise resolved once its cancel is sent.
const cancelSent = new Map();
const sentFor = (id) => {
  if (!cancelSent.has(id)) {
    let resolve;
    const p = new Promise((r) => (resolve = r));
    p.resolve = resolve;
    cancelSent.set(id, p);
  }
  return cancelSent.get(id);
};
const app = acp
  .client({ name: "evtool-test-client" })
  .onNotification(acp.methods.client.session.update, (ctx) => {
    got.updateCount++;
    if (!summary) got.updates.push(ctx.params);
  })
  .onRequest(acp.methods.client.session.requestPermission, async (ctx) => {
    got.permissions.push(ctx.params);
    if (mode === "cancel") await sentFor(ctx.params.sessionId);
    return { outcome: { outcome: "selected", optionId: ctx.params.options[0].optionId } };
  });

await app.connectWith(stream, async (ctx) => {
  const t0 = performance.now();
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  got.initMs = performance.now() - t0;
  if (init.protocolVersion !== acp.PROTOCOL_VERSION) throw new Error(`protocol ${init.protocolVersion}`);
  got.loadSession = init.agentCapabilities?.loadSession === true;
  got.listSessions = init.agentCapabilities?.sessionCapabilities?.list != null;
  if (mode === "load") {
    await ctx.request(acp.methods.agent.session.load, { sessionId: arg, cwd: "/", mcpServers: [] });
    return;
  }
  if (mode === "list") {
    const list = await ctx.request(acp.methods.agent.session.list, { cwd: "/work/project" });
    got.listed = list.sessions;
    if (list.sessions.length === 0) throw new Error("session/list lists no session");
    await ctx.request(acp.methods.agent.session.load, { sessionId: list.sessions[0].sessionId, cwd: "/work/project", mcpServers: [] });
    return;
  }
  if (mode === "cancel") {
    for (let i = 0; i < Number(arg); i++) {
      const session = await ctx.request(acp.methods.agent.session.new, { cwd: "/", mcpServers: [] });
      const res = ctx.request(acp.methods.agent.session.prompt, {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text: `prompt ${i + 1}` }],
      });
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
      sentFor(session.sessionId).resolve();
      got.results.push(await res);
    }
    return;
  }
  const session = await ctx.request(acp.methods.agent.session.new, { cwd: "/", mcpServers: [] });
  for (let i = 0; i < Number(arg); i++) {
    const res = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: `prompt ${i + 1}` }],
    });
    got.results.push(res);
  }
});
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));
process.stdout.write(JSON.stringify(got) + "\n");
