#!/usr/bin/env node
// mcp-speak.mjs heard|unheard [--path]: start `vox mcp` from this working copy
// (with --path: the `vox` that PATH finds, as `claude mcp add vox -- vox mcp`
// starts it) with the MCP SDK's real Client over stdio, call the speak tool,
// and check what the model would be told: "heard" wants a normal result,
// "unheard" wants an error result saying that nothing will be heard.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const want = process.argv[2];
const fromPath = process.argv[3] === '--path';
if ((want !== 'heard' && want !== 'unheard') || (process.argv[3] !== undefined && !fromPath)) {
  console.error('usage: mcp-speak.mjs heard|unheard [--path]');
  process.exit(2);
}
const vox = fileURLToPath(new URL('../../packages/vox-mcp/bin/vox.cjs', import.meta.url));
const transport = new StdioClientTransport({
  command: fromPath ? 'vox' : process.execPath,
  args: fromPath ? ['mcp'] : [vox, 'mcp'],
  env: process.env,
  stderr: 'inherit',
});
const client = new Client({ name: 'vox-ci', version: '0' });
const timer = setTimeout(() => {
  console.error('mcp-speak: no answer from vox mcp within 60 s');
  process.exit(1);
}, 60_000);
await client.connect(transport);
const res = await client.callTool({ name: 'speak', arguments: { text: 'Hello from the MCP client.' } });
await client.close();
clearTimeout(timer);
const text = (res.content ?? []).map((c) => c.text ?? '').join(' ');
console.log(`mcp-speak: isError=${res.isError === true}: ${text}`);
const unheard = res.isError === true && /nothing will be heard/i.test(text);
if (want === 'unheard' && !unheard) {
  console.error('mcp-speak: with no audio output, speak must be an error result saying that nothing will be heard');
  process.exit(1);
}
if (want === 'heard' && res.isError) {
  console.error('mcp-speak: speak failed although audio output is available');
  process.exit(1);
}
