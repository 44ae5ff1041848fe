'use strict';
// bench/floor.cjs for a host with a remote link (docs/remote.md): the least a
// Node process can do to send one request through the link. It finds voxd as
// vox does (VOX_HOME/voxd.json and token, else VOX_HOME/remote.json's socket
// and token), POSTs the JSON body to the route, waits for the answer, exits.
// bench/remote-hook.mjs runs it on both hosts: the difference is the ssh
// forward's, not vox's.
//   node bench/remote-floor.cjs ROUTE JSON_BODY [stdin]
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
    { ...at, method: 'POST', path: route, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
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
