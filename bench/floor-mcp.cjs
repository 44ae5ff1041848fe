'use strict';
// The floor of an MCP stdio server in Node, the second baseline of
// bench/mcp.mjs's start-up figure: it answers each JSON-RPC request line on
// stdin with the answer given for its method in the JSON of argv[2] (vox mcp's
// own answers, captured by the bench), and does nothing else. CommonJS and
// nothing loaded, so nothing a real server could skip is in it.
//   node bench/floor-mcp.cjs '{"initialize": {...}, "tools/list": {...}}'
const answers = JSON.parse(process.argv[2]);
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (msg.id !== undefined)
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: answers[msg.method] })}\n`);
  }
});
