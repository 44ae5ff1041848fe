'use strict';
// The memory floor of a session's MCP server in Node (bench/mcp.mjs's PSS
// figure): a stdio JSON-RPC server that answers initialize and tools/list,
// and answers each tools/call after one node:http request to voxd
// (GET /v1/health, the port from VOX_HOME/voxd.json), so that it holds what
// any server that talks to voxd over HTTP must: Node, its stdin stream and
// node:http. Nothing else is loaded; no trim, no flags.
//   VOX_HOME=... node bench/floor-mcp-http.cjs
const { readFileSync } = require('node:fs');
const http = require('node:http');

const reply = (id, result) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
const results = {
  initialize: {
    protocolVersion: '2025-06-18',
    capabilities: { tools: {} },
    serverInfo: { name: 'floor', version: '0' },
  },
  'tools/list': { tools: [{ name: 'speak', description: 'floor', inputSchema: { type: 'object' } }] },
};
function call(id) {
  const { port } = JSON.parse(readFileSync(`${process.env.VOX_HOME}/voxd.json`, 'utf8'));
  http.get({ host: '127.0.0.1', port, path: '/v1/health' }, (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (d) => (body += d));
    res.on('end', () => reply(id, { content: [{ type: 'text', text: `${res.statusCode} ${body.length}` }] }));
  });
}
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (msg.id === undefined) continue;
    if (msg.method === 'tools/call') call(msg.id);
    else reply(msg.id, results[msg.method] ?? {});
  }
});
