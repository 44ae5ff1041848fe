/**
 * The long-running commands end on SIGINT, SIGTERM and SIGHUP, exit 0
 * (cli/context.ts `takeSignals`, docs/cli.md): the real `vox`, each waiting on
 * a voxd that never answers (or, for `logs -f`, on a log that never grows).
 * `say --wait` only stops waiting; that voxd plays on is test/daemon/signals.e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { processContext } from '../../src/cli/context.js';
import { cleanEnv } from '../../../../test/helpers/daemon.js';
import { silentServer, startVox, type SilentServer } from '../../../../test/helpers/signals.js';

const root = mkdtempSync(join(tmpdir(), 'vox-cli-signals-'));
let voxd: SilentServer;
before(async () => {
  voxd = await silentServer();
});
after(async () => {
  await voxd.close();
  rmSync(root, { recursive: true, force: true });
});

const env = () => cleanEnv(join(root, 'home'), { VOXD_URL: voxd.url, VOXD_TOKEN: 'test-token', VOX_NO_AUTOSTART: '1' });

/** Each command, and the request by which the silent voxd knows it is waiting. */
const WAITING: { args: string[]; request: string }[] = [
  { args: ['listen', '--no-prompt'], request: 'POST /v1/listen' },
  // Its first request is GET /v1/status; a signal then ends it too.
  { args: ['status', '--watch'], request: 'GET /v1/status' },
  { args: ['say', '--wait', 'a sentence that voxd never answers'], request: 'POST /v1/speak' },
];

test('copying or spreading the process context takes over no signal (the trap that left vox mcp deaf to them)', () => {
  const before = ['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => process.listenerCount(s));
  const ctx = processContext([]);
  const copies = [{ ...ctx }, Object.defineProperties({}, Object.getOwnPropertyDescriptors(ctx))];
  assert.equal(typeof copies[0]!.takeSignals, 'function');
  assert.deepEqual(
    ['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => process.listenerCount(s)),
    before,
  );
});

describe('long-running commands end on a signal, exit 0', () => {
  for (const { args, request } of WAITING) {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      test(`vox ${args.slice(0, 2).join(' ')}, waiting on voxd: ${signal}`, async () => {
        const seen = voxd.seen.filter((s) => s.startsWith(request)).length;
        const vox = startVox(args, env(), root);
        // The request has arrived: the command took the signals before sending it.
        await waitCount(() => voxd.seen.filter((s) => s.startsWith(request)).length > seen);
        vox.child.kill(signal);
        assert.deepEqual(await vox.exited(), { code: 0, signal: null }, vox.stderr.join('\n'));
      });
    }
  }

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    test(`vox logs -f: ${signal}`, async () => {
      const home = join(root, `logs-${signal}`);
      mkdirSync(join(home, 'logs'), { recursive: true });
      writeFileSync(
        join(home, 'logs', 'voxd.log'),
        `${JSON.stringify({ level: 30, time: Date.now(), pid: 1, msg: 'the only line' })}\n`,
      );
      const vox = startVox(['logs', '-f'], cleanEnv(home), root);
      await vox.line((l) => l.includes('the only line'));
      vox.child.kill(signal);
      assert.deepEqual(await vox.exited(), { code: 0, signal: null }, vox.stderr.join('\n'));
    });
  }

  test('vox say without --wait keeps the default: a signal still ends it (by that signal)', async () => {
    const vox = startVox(['say', 'a sentence that voxd never answers'], env(), root);
    const seen = voxd.seen.length;
    await waitCount(() => voxd.seen.length > seen);
    vox.child.kill('SIGTERM');
    assert.deepEqual(await vox.exited(), { code: null, signal: 'SIGTERM' });
  });
});

async function waitCount(ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > until)
      throw new Error(`the silent voxd saw no such request within ${timeoutMs} ms (seen: ${voxd.seen.join(', ')})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
