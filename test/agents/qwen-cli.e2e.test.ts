/**
 * Qwen Code, for real: `vox hooks install --agent qwen` into an isolated HOME
 * (~/.qwen/settings.json: hooks and mcpServers.vox, beside the user's own
 * settings and hook), then the pinned Qwen Code (test/helpers/agent-clis.ts)
 * runs offline against the Responses API stand-in (test/helpers/responses-api.ts,
 * `--auth-type openai-responses` with OPENAI_BASE_URL) with a real voxd
 * (file sink); what voxd was asked to say is read back from its history.
 *
 * - `qwen mcp list` connects to the vox mcp install wrote.
 * - `qwen -p`: the model calls the shell, which headless Qwen declines
 *   without asking (no PermissionRequest fires), then answers: only the
 *   summary is heard, labelled by the session id.
 * - Interactive in tmux: the shell's confirmation fires PermissionRequest, an
 *   important ask naming the tool as the dialog does (Shell); the same ask
 *   again within the session is deduped; each reply is its own summary.
 * - `vox hooks uninstall --agent qwen` gives back the user's settings.json
 *   byte for byte.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { heard, historyInOrder } from '../helpers/hook-expectations.js';
import { removeDir, startDaemon, tempDir, vox, waitFor, writeConfig, type Daemon } from '../helpers/daemon.js';
import { qwenArgv, qwenSkip, runQwen } from '../helpers/agent-clis.js';
import {
  startResponsesApi,
  type ResponsesRequest,
  type ResponsesStandIn,
  type Turn,
} from '../helpers/responses-api.js';
import { needTool } from '../helpers/tools.js';

const DENIED = 'The shell was not allowed here. Nothing changed.';
const reply = (n: string): string => `Made file ${n}. Nothing else changed.`;

/**
 * The user's settings before install, as Qwen keeps them: its `$version` (Qwen adds it to a file
 * without one), no update checks or usage statistics (no network), and a Stop hook of the user's own.
 */
const USER_SETTINGS = `${JSON.stringify(
  {
    general: { enableAutoUpdate: false },
    privacy: { usageStatisticsEnabled: false },
    hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] },
    $version: 4,
  },
  null,
  2,
)}\n`;

/** TOUCH <name> in the user's last message: run the shell; its output: the reply; else nothing to do. */
function model(project: string) {
  return (req: ResponsesRequest, n: number): Turn => {
    const last = req.input.at(-1) ?? {};
    if (last.type === 'function_call_output') {
      if (/declined|not allowed|denied/i.test(JSON.stringify(last.output))) return { text: DENIED };
      const made = [...JSON.stringify(req.input).matchAll(/made-(\w+)/g)].at(-1)?.[1] ?? '?';
      return { text: reply(made) };
    }
    const said = JSON.stringify(req.input.filter((i) => i.role === 'user').at(-1) ?? {});
    const m = /TOUCH (\w+)/.exec(said);
    if (!m) return { text: 'Nothing to do.' };
    const command = `touch ${join(project, `made-${m[1]}`)}`;
    return {
      calls: [{ call_id: `call_${n}`, name: 'run_shell_command', arguments: { command, description: 'Make' } }],
    };
  };
}

describe('Qwen Code with vox hooks install --agent qwen', { skip: qwenSkip }, () => {
  let d: Daemon;
  let root: string;
  let project: string;
  let settings: string;
  let api: ResponsesStandIn;
  let env: NodeJS.ProcessEnv;

  const history = () => historyInOrder(d);

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-qwen-e2e-');
    project = join(root, 'shop');
    writeConfig(project, 'notify: normal');
    api = await startResponsesApi(model(project));
    const home = join(root, 'home');
    mkdirSync(join(home, '.qwen'), { recursive: true });
    mkdirSync(join(home, 'tmp'));
    settings = join(home, '.qwen', 'settings.json');
    writeFileSync(settings, USER_SETTINGS);
    env = {
      ...d.env,
      HOME: home,
      // Qwen's temporary files in a TMPDIR of its own, removed with root.
      TMPDIR: join(home, 'tmp'),
      VOX_NO_AUTOSTART: '1',
      OPENAI_API_KEY: 'not-a-key',
      OPENAI_BASE_URL: api.url,
      OPENAI_MODEL: 'qwen3-coder-plus',
    };
    delete env.QWEN_HOME;
    const inst = await vox(['hooks', 'install', '--agent', 'qwen'], { env });
    assert.equal(inst.code, 0, inst.stderr);
    assert.match(inst.stdout, /Installed vox's entries in .*\.qwen\/settings\.json/);
  });
  after(async () => {
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (root) removeDir(root);
  });

  test('the MCP server install wrote is a working vox mcp: qwen mcp list connects to it', async () => {
    const r = await runQwen(['mcp', 'list'], { cwd: project, env, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    // eslint-disable-next-line no-control-regex
    const out = (r.stdout + r.stderr).replace(/\x1b\[[0-9;]*m/g, '');
    assert.match(out, /✓ vox: .* mcp \(stdio\) - Connected/);
  });

  test('qwen -p: the shell is declined without an ask; the reply is spoken once, labelled by the session', async () => {
    await d.idle();
    const before = (await history()).length;
    const run = await runQwen(['--auth-type', 'openai-responses', '-o', 'json', 'TOUCH headless'], {
      cwd: project,
      env,
      timeoutMs: 120_000,
    });
    assert.equal(run.code, 0, run.stderr);
    const messages = JSON.parse(run.stdout) as Array<{ type: string; session_id?: string; result?: string }>;
    assert.equal(messages.at(-1)?.result, DENIED, run.stdout.slice(-2000));
    assert.ok(!existsSync(join(project, 'made-headless')));
    await d.idle();
    const hs = (await history()).slice(before);
    assert.deepEqual(heard(hs), [[DENIED, 'text', 'spoken']]);
    const session = messages.find((m) => m.session_id)!.session_id!;
    assert.equal(hs[0]!.session, `shop#${session.replace(/-/g, '').slice(0, 6)}`);
  });

  test(
    'interactive: a confirmation is an important ask naming Shell, the same ask again is deduped, each reply is spoken',
    {
      // Flaky: Qwen 0.24.4 fills its prompt box with a suggestion ("Nothing to do.") that the test's "Enter again"
      // sends, over and over (2 of the last 3 full runs, on a quiet machine too). Run it with VOX_QWEN_INTERACTIVE=1
      // until the test presses Enter only while its own text is in the box.
      skip:
        needTool('tmux') ||
        (process.env.VOX_QWEN_INTERACTIVE !== '1' &&
          'flaky: Qwen pre-fills its prompt box with a suggestion the test re-sends; VOX_QWEN_INTERACTIVE=1 runs it'),
    },
    async () => {
      const socket = `vox-qwen-${process.pid}`;
      const tmux = (...args: string[]) =>
        spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 });
      const pane = () => tmux('capture-pane', '-p', '-t', 'qw').stdout ?? '';
      const failed = (err: Error) => {
        throw new Error(
          `${err.message}; tmux has the session: ${tmux('has-session', '-t', 'qw').status === 0}; the screen:\n${pane()}`,
        );
      };
      const type = (text: string) => {
        tmux('send-keys', '-t', 'qw', '-l', text);
        // Typed text and Enter apart: the prompt takes a burst as a paste.
        spawnSync('sleep', ['0.3']);
        tmux('send-keys', '-t', 'qw', 'Enter');
      };
      const screen = (re: RegExp, what: string) =>
        waitFor(() => (re.test(pane()) ? true : undefined), 60_000, what).catch(failed);
      // An Enter taken as part of a paste is lost: Enter again, a second apart, until the screen shows the answer.
      const submit = (text: string, until: RegExp, what: string) => {
        type(text);
        return waitFor(
          async () => {
            if (until.test(pane())) return true;
            await new Promise((r) => setTimeout(r, 1000));
            if (until.test(pane())) return true;
            tmux('send-keys', '-t', 'qw', 'Enter');
            return undefined;
          },
          60_000,
          what,
        ).catch(failed);
      };
      await d.idle();
      const before = (await history()).length;
      const envArgs = Object.entries(env).flatMap(([k, v]) => (v === undefined ? [] : ['-e', `${k}=${v}`]));
      // Without CI in its environment, as a user's terminal; the pane keeps Qwen's last words and exit code.
      const ciVars = Object.keys(process.env).filter(
        (k) => k === 'CI' || k === 'CONTINUOUS_INTEGRATION' || k.startsWith('CI_'),
      );
      const qwen = [...qwenArgv(), '--auth-type', 'openai-responses', '--approval-mode', 'default'];
      const cmd = ['env', ...ciVars.flatMap((k) => ['-u', k]), 'sh', '-c', '"$@"; echo "qwen exited: $?"; sleep 60'];
      try {
        const started = tmux(
          'new-session',
          '-d',
          '-s',
          'qw',
          '-x',
          '150',
          '-y',
          '45',
          '-c',
          project,
          ...envArgs,
          ...cmd,
          'sh',
          ...qwen,
        );
        assert.equal(started.status, 0, started.stderr);
        await screen(/Type your message/, 'the prompt');
        for (const n of ['one', 'two']) {
          await submit(`TOUCH ${n}`, /Allow execution/, `the confirmation for ${n}`);
          tmux('send-keys', '-t', 'qw', 'Enter'); // 1. Yes, allow once
          await waitFor(() => (existsSync(join(project, `made-${n}`)) ? true : undefined), 60_000, `made-${n}`).catch(
            failed,
          );
          await waitFor(
            async () => ((await history()).some((h) => h.text === reply(n)) ? true : undefined),
            60_000,
            `the summary of ${n}`,
          ).catch(async (err: Error) =>
            failed(new Error(`${err.message}; voxd heard ${JSON.stringify(await history())}`)),
          );
        }
        type('/quit');
        await screen(/qwen exited: 0/, 'qwen to exit');
      } finally {
        tmux('kill-server');
      }
      await d.idle();
      const hs = (await history()).slice(before);
      assert.deepEqual(heard(hs), [
        ['shop needs your permission to use Shell', 'important', 'spoken'],
        [reply('one'), 'text', 'spoken'],
        ['shop needs your permission to use Shell', 'important', 'deduped'],
        [reply('two'), 'text', 'spoken'],
      ]);
      const labels = new Set(hs.map((h) => h.session));
      assert.equal(labels.size, 1, JSON.stringify(hs));
      assert.match([...labels][0]!, /^shop#[0-9a-f]{6}$/);
    },
  );

  test('vox hooks uninstall --agent qwen gives back the settings.json of before install, byte for byte', async () => {
    const installed = readFileSync(settings, 'utf8');
    assert.match(installed, /hook --agent qwen Stop/);
    assert.match(installed, /"command": "true"/);
    const r = await vox(['hooks', 'uninstall', '--agent', 'qwen'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(settings, 'utf8'), USER_SETTINGS);
    assert.equal(readFileSync(`${settings}.vox-backup`, 'utf8'), installed);
  });
});
