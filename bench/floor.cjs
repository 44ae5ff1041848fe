'use strict';
// The physical floor of a process-per-call Node client of voxd, the second
// baseline of bench/say.mjs and bench/hook.mjs: the least a Node process can
// do to send one request. It finds voxd as vox does (VOX_HOME/voxd.json and
// VOX_HOME/token: a client must learn the port and the token somewhere), POSTs
// the given JSON body to the given route with node:http, waits for the
// answer and exits. With "stdin" it first reads stdin to its end, as a hook
// must read its payload. CommonJS and nothing else loaded, so nothing a real
// client could skip is in it. On a host whose voxd is reached through a
// remote link (docs/remote.md) it uses VOX_HOME/remote.json's socket and
// token instead, as vox does: bench/remote-hook.mjs runs it on both hosts, so
// the difference is the ssh forward's, not vox's.
//   node bench/floor.cjs ROUTE JSON_BODY [stdin]
const { readFileSync } = require('node:fs');
const { request } = require('node:http');

const [route, body, fromStdin] = process.argv.slice(2);
const home = process.env.VOX_HOME;
let at;
let token;
try {
  const state = JSON.parse(readFileSync(`${home}/voxd.json`, 'utf8'));
  at = { host: state.host || '127.0.0.1', port: state.port };
  token = readFileSync(`${home}/token`, 'utf8').trim();
} catch {
  const link = JSON.parse(readFileSync(`${home}/remote.json`, 'utf8'));
  // The host too, as vox's client does (daemon/http.ts connectOptions): else Node 22 and 24 pay ~4 ms for "localhost".
  at = { socketPath: link.socket, host: '127.0.0.1' };
  token = link.token;
}

function post() {
  const req = request(
    {
      ...at,
      method: 'POST',
      path: route,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    },
    (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode !== 202 && res.statusCode !== 200) process.exitCode = 1;
      });
    },
  );
  req.on('error', () => (process.exitCode = 1));
  req.end(body);
}

if (fromStdin === 'stdin') {
  process.stdin.on('data', () => {});
  process.stdin.on('end', post);
} else {
  post();
}
