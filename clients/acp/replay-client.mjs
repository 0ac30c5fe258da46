// A real ACP client for evtool's tests: spawns `evtool acp replay FILE`,
// initializes, opens a session, sends PROMPTS prompts, answers every
// permission request with its first option, and prints what it received
// as one JSON object: {"updates": [SessionNotification...], "permissions":
// [RequestPermissionRequest...], "stopReasons": [...]}.
//
// usage: node replay-client.mjs EVTOOL FILE PROMPTS [extra evtool flags...]
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [evtool, file, prompts, ...flags] = process.argv.slice(2);
const child = spawn(evtool, ["acp", "replay", ...flags, file], { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const got = { updates: [], permissions: [], stopReasons: [] };
const app = acp
  .client({ name: "evtool-test-client" })
  .onNotification(acp.methods.client.session.update, (ctx) => {
    got.updates.push(ctx.params);
  })
  .onRequest(acp.methods.client.session.requestPermission, (ctx) => {
    got.permissions.push(ctx.params);
    return { outcome: { outcome: "selected", optionId: ctx.params.options[0].optionId } };
  });

await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  if (init.protocolVersion !== acp.PROTOCOL_VERSION) throw new Error(`protocol ${init.protocolVersion}`);
  const session = await ctx.request(acp.methods.agent.session.new, { cwd: "/", mcpServers: [] });
  for (let i = 0; i < Number(prompts); i++) {
    const res = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: `prompt ${i + 1}` }],
    });
    got.stopReasons.push(res.stopReason);
  }
});
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));
process.stdout.write(JSON.stringify(got) + "\n");
