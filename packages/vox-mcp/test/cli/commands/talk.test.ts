/**
 * `vox talk` prints nothing another program wrote with its control characters
 * raw: the labels and messages voxd sends back are escaped (printable), so a
 * label cannot retitle the window or clear the screen. voxd is a stand-in on
 * 127.0.0.1 that answers what a voxd before the label check could.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from '../../../src/cli/commands/talk.js';
import type { CliContext } from '../../../src/cli/context.js';

const EVIL = 'evil\x1b]0;pwned\x07\x1b[2J\u202e#1';
const SHOWN = 'evil\\x1b]0;pwned\\x07\\x1b[2J\\u202e#1';

test('vox talk escapes the control characters of the labels and messages voxd sends back', async () => {
  const home = mkdtempSync(join(tmpdir(), 'vox-talk-'));
  let talks = 0;
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) =>
      res
        .writeHead(status, { 'content-type': 'application/json', 'x-voxd-version': '0.1.0' })
        .end(JSON.stringify(body));
    req.resume().on('end', () => {
      if (req.url === '/v1/stop') return send(200, { stopped: 0 });
      // The first talk is refused with the live labels, the next ones delivered.
      if (talks++ === 0)
        return send(404, {
          code: 'VOX_ERR_TALK_UNKNOWN_SESSION',
          message: `No session to talk to: no live session "docs"; live sessions: api#1, ${EVIL}.`,
          statusCode: 404,
        });
      // The third is for a session whose vox mcp reports its channel gate closed.
      send(200, { delivered: EVIL, channel: { open: talks !== 3, reason: `listed ${EVIL}` } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const runTalk = async (argv: string[]) => {
    let out = '';
    let err = '';
    const stdout = new PassThrough().setEncoding('utf8');
    const stderr = new PassThrough().setEncoding('utf8');
    stdout.on('data', (d: string) => (out += d));
    stderr.on('data', (d: string) => (err += d));
    const ctx: CliContext = {
      argv,
      env: { VOX_HOME: home, VOXD_URL: url, VOXD_TOKEN: 'token', VOX_NO_AUTOSTART: '1' },
      cwd: home,
      stdin: new PassThrough(),
      stdout,
      stderr,
      takeSignals: () => new AbortController().signal,
    };
    const code = await run(ctx);
    return { code, out, err };
  };
  try {
    const refused = await runTalk(['docs', 'hello']);
    assert.equal(refused.code, 4);
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f\u202e]/.test(refused.err), JSON.stringify(refused.err));
    assert.ok(refused.err.includes(`live sessions: api#1, ${SHOWN}.`), refused.err);
    const sent = await runTalk(['docs', 'hello']);
    assert.equal(sent.code, 0, sent.err);
    assert.equal(sent.out, `delivered to ${SHOWN}\n`);
    assert.ok(sent.err.includes(`listed ${SHOWN}`), sent.err);
    const closed = await runTalk(['docs', 'hello']);
    assert.equal(closed.code, 8, closed.err);
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f\u202e]/.test(closed.err), JSON.stringify(closed.err));
    assert.ok(closed.err.includes(`${SHOWN} will not show this now: listed ${SHOWN}`), closed.err);
    const json = await runTalk(['--json', 'docs', 'hello']);
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f\u202e]/.test(json.out), JSON.stringify(json.out));
    assert.deepEqual(JSON.parse(json.out), { delivered: EVIL, channel: { open: true, reason: `listed ${EVIL}` } });
  } finally {
    await new Promise((r) => server.close(r));
    rmSync(home, { recursive: true, force: true });
  }
});
