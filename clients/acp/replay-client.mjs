// A real ACP client for evtool's tests, on the official TypeScript SDK:
// spawns `evtool acp replay FILE`, initializes, and then either opens a
// session and sends PROMPTS prompts (mode "prompt"), answering every
// permission request with its first option, or loads the recorded session
// SESSION (mode "load"). It prints what it received as one JSON object:
// {"updates": [SessionNotification...], "permissions":
// [RequestPermissionRequest...], "results": [PromptResponse...],
// "initMs": N, "loadSession": bool}.
//
// usage: node replay-client.mjs EVTOOL FILE prompt PROMPTS [evtool flags...]
//        node replay-client.mjs EVTOOL FILE load SESSION [evtool flags...]
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [evtool, file, mode, arg, ...flags] = process.argv.slice(2);
const child = spawn(evtool, ["acp", "replay", ...flags, file], { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

// With EVTOOL_CLIENT_SUMMARY=1 no update is kept, only their count.
const summary = process.env.EVTOOL_CLIENT_SUMMARY === "1";
const got = { updates: [], permissions: [], results: [], updateCount: 0, initMs: 0, loadSession: false };
const app = acp
  .client({ name: "evtool-test-client" })
  .onNotification(acp.methods.client.session.update, (ctx) => {
    got.updateCount++;
    if (!summary) got.updates.push(ctx.params);
  })
  .onRequest(acp.methods.client.session.requestPermission, (ctx) => {
    got.permissions.push(ctx.params);
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
  if (mode === "load") {
    await ctx.request(acp.methods.agent.session.load, { sessionId: arg, cwd: "/", mcpServers: [] });
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
