/**
 * opencode, for real: `vox hooks install --agent opencode` into an isolated
 * HOME (~/.config/opencode: vox's plugin plugin/vox.js, and mcp.vox in
 * opencode.json beside the user's provider), then the pinned opencode
 * (`opencode run`, test/helpers/agent-clis.ts) runs offline against the
 * Responses API stand-in (test/helpers/responses-api.ts, as the user's
 * `@ai-sdk/openai` provider), with a real voxd (file sink); voxd's history
 * says what was said. `opencode run` rejects every permission ask by itself
 * (no one to answer), after the plugin has heard it, and ends the turn.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { heard, historyInOrder } from '../helpers/hook-expectations.js';
import { removeDir, startDaemon, tempDir, vox, waitFor, writeConfig, type Daemon } from '../helpers/daemon.js';
import { OPENCODE, opencodeSkip, runCli } from '../helpers/agent-clis.js';
import {
  startResponsesApi,
  toolNames,
  type ResponsesRequest,
  type ResponsesStandIn,
} from '../helpers/responses-api.js';

const REPLY = 'All tests pass. I fixed the parser and added a regression test.';
const TOUCH = {
  call_id: 'call_1',
  name: 'bash',
  arguments: { command: 'touch /etc/vox-opencode-test', description: 'Write to /etc' },
};
const userText = (req: ResponsesRequest): string =>
  JSON.stringify([...req.input].reverse().find((i) => i.role === 'user')?.content ?? '');

/** opencode.json as a user has it: their provider (here the stand-in). */
const userConfig = (url: string) => ({
  provider: {
    standin: {
      npm: '@ai-sdk/openai',
      name: 'stand-in',
      options: { baseURL: url, apiKey: 'not-a-key' },
      models: { m: { name: 'm' } },
    },
  },
  model: 'standin/m',
  autoupdate: false,
  share: 'disabled',
});

describe('opencode with vox hooks install --agent opencode', { skip: opencodeSkip }, () => {
  let d: Daemon;
  let root: string;
  let api: ResponsesStandIn;
  let env: NodeJS.ProcessEnv;

  const history = () => historyInOrder(d);
  const run = (args: string[]) =>
    runCli(OPENCODE!, ['run', ...args], { cwd: join(root, 'shop'), env, timeoutMs: 100_000 });

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-opencode-e2e-');
    writeConfig(join(root, 'shop'), 'notify: normal');
    api = await startResponsesApi((req) => {
      // The session's title is asked for without tools.
      if (!req.tools?.length) return { text: 'Fixing the parser' };
      if (userText(req).includes('TOUCH')) return { calls: [TOUCH] };
      return { text: REPLY };
    });
    const home = join(root, 'home');
    mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'opencode', 'opencode.json'),
      `${JSON.stringify(userConfig(api.url), null, 2)}\n`,
    );
    // opencode (bun) leaves files in TMPDIR: a TMPDIR of its own, removed with root.
    mkdirSync(join(root, 'tmp'));
    env = {
      ...d.env,
      HOME: home,
      TMPDIR: join(root, 'tmp'),
      VOX_NO_AUTOSTART: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
    };
    const inst = await vox(['hooks', 'install', '--agent', 'opencode'], { env });
    assert.equal(inst.code, 0, inst.stderr);
  });
  after(async () => {
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (root) removeDir(root);
  });

  let session = '';
  test("a reply is spoken once at text priority, labelled by the session; the model was offered vox mcp's tools", async () => {
    await d.idle();
    const before = (await history()).length;
    const r = await run(['Fix the parser.', '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    session = /"sessionID":"(ses_[A-Za-z0-9]+)"/.exec(r.stdout)?.[1] ?? '';
    assert.ok(session, r.stdout);
    const main = api.requests.find((q) => q.body?.tools?.length)!.body!;
    const tools = toolNames(main);
    assert.ok(
      tools.some((t) => /vox/.test(t) && /speak/.test(t)),
      `vox's speak among ${tools.join(', ')}`,
    );
    await waitFor(async () => ((await history()).length > before ? true : undefined), 30_000, 'the hook to reach voxd');
    await d.idle();
    const hs = (await history()).slice(before);
    assert.deepEqual(heard(hs), [[REPLY, 'text', 'spoken']]);
    assert.equal(hs[0]!.session, `shop#${session.slice(16, 22)}`);
  });

  test('a permission ask is important, in the same session; opencode run rejects it and the turn ends', async () => {
    assert.ok(session, 'the first test ran');
    await d.idle();
    const before = (await history()).length;
    const r = await run(['--session', session, 'TOUCH a file']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /permission requested: external_directory/);
    // The plugin's hooks are processes of their own: `opencode run` may end before both reached voxd.
    await waitFor(
      async () => ((await history()).length - before >= 2 ? true : undefined),
      30_000,
      'both hooks to reach voxd',
    );
    await d.idle();
    const hs = (await history()).slice(before);
    // The turn has no text of the model's: its Stop is "<project> is done". The plugin starts both
    // hooks within milliseconds, so voxd may take either first.
    assert.deepEqual(heard(hs).sort(), [
      ['shop is done', 'text', 'spoken'],
      ['shop needs your permission to use external_directory', 'important', 'spoken'],
    ]);
    assert.ok(
      hs.every((h) => h.session === `shop#${session.slice(16, 22)}`),
      JSON.stringify(hs),
    );
  });
});

describe("vox hooks install --agent opencode on the user's files", () => {
  test("a plugin of its own and the server beside the user's; idempotent, backed up, uninstall gives back the same", async () => {
    const home = tempDir('vox-opencode-home-');
    try {
      const dir = join(home, 'xdg', 'opencode');
      mkdirSync(dir, { recursive: true });
      const text = `${JSON.stringify({ ...userConfig('http://127.0.0.1:9/v1'), mcp: { github: { type: 'local', command: ['gh-mcp'] } } }, null, 4)}\n`;
      writeFileSync(join(dir, 'opencode.json'), text);
      const env = { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), VOX_NO_AUTOSTART: '1' };
      const first = JSON.parse((await vox(['hooks', 'install', '--agent', 'opencode', '--json'], { env })).stdout);
      assert.deepEqual([first.hooks.changed, first.config.changed], [true, true]);
      assert.equal(readFileSync(first.config.backup, 'utf8'), text);
      assert.match(
        readFileSync(join(dir, 'plugin', 'vox.js'), 'utf8'),
        /^\/\/ vox: written by "vox hooks install --agent opencode"/,
      );
      const config = JSON.parse(readFileSync(join(dir, 'opencode.json'), 'utf8'));
      assert.deepEqual(config.mcp.github, { type: 'local', command: ['gh-mcp'] });
      assert.equal(config.mcp.vox.command.at(-1), 'mcp');
      const again = JSON.parse((await vox(['hooks', 'install', '--agent', 'opencode', '--json'], { env })).stdout);
      assert.deepEqual([again.hooks.changed, again.config.changed], [false, false]);
      assert.equal((await vox(['hooks', 'uninstall', '--agent', 'opencode'], { env })).code, 0);
      assert.equal(existsSync(join(dir, 'plugin', 'vox.js')), false);
      assert.equal(readFileSync(join(dir, 'opencode.json'), 'utf8'), text);
      // A vox.js that is not vox's, or only an opencode.jsonc: errors, files untouched.
      writeFileSync(join(dir, 'plugin', 'vox.js'), 'export const Mine = async () => ({});\n');
      const bad = await vox(['hooks', 'install', '--agent', 'opencode'], { env });
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /is not vox's plugin/);
      assert.equal(readFileSync(join(dir, 'plugin', 'vox.js'), 'utf8'), 'export const Mine = async () => ({});\n');
    } finally {
      removeDir(home);
    }
  });
});
