// The reference for the differential conformance test (mcp-conformance.test.ts):
// vox's own tools (the same createVoxMcp, so the same names, schemas and tool
// code) served by the official MCP SDK's v2 server package, dual-era through
// its serveStdio. Only the protocol layer differs from `vox mcp`.
import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { INSTRUCTIONS } from '../../../dist/mcp/protocol.js';
import { createVoxMcp } from '../../../dist/mcp/server.js';
import { converseTool, listenTool } from '../../../dist/mcp/tools/listen.js';

// The tools `vox mcp` adds to the built-in ones (commands/mcp.ts), less the hidden hook tool.
const vox = createVoxMcp({
  env: process.env,
  cwd: process.cwd(),
  log: (l) => process.stderr.write(`${l}\n`),
  tools: [listenTool, converseTool],
});
const tools = await vox.listTools();

serveStdio(() => {
  const server = new McpServer(
    { name: 'vox-reference', version: '0.0.0' },
    {
      capabilities: {
        tools: { listChanged: false },
        experimental: { 'claude/channel': {}, 'claude/channel/permission': {} },
      },
      instructions: INSTRUCTIONS,
    },
  );
  for (const t of tools) {
    server.registerTool(
      t.name,
      {
        description: t.description,
        inputSchema: fromJsonSchema(t.inputSchema),
        ...(t.outputSchema ? { outputSchema: fromJsonSchema(t.outputSchema) } : {}),
        annotations: t.annotations,
      },
      (args, ctx) => vox.callTool(t.name, args, ctx.mcpReq.signal),
    );
  }
  return server;
});
