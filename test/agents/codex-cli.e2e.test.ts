/**
 * Codex CLI, for real: `vox hooks install --agent codex` into an isolated
 * CODEX_HOME (hooks.json and [mcp_servers.vox] in config.toml), then the
 * pinned Codex (`codex exec`, test/helpers/agent-clis.ts) runs offline against
 * the Responses API stand-in (test/helpers/responses-api.ts) with a real voxd
 * (file sink). The model asks twice to run a command outside the sandbox
 * (two PermissionRequest hooks), then answers: what voxd was asked to say is
 * read back from its history. Then Codex interactive in tmux, without the
 * bypass: its hook review, "Trust all and continue", a turn whose Stop is
 * heard, and uninstall after Codex rewrote config.toml with its trust. And
 * the install rules on the user's own files:
 * comments kept, idempotent, a backup, uninstall gives back the same bytes, a
 * malformed file is left alone.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { heard, historyInOrder } from '../helpers/hook-expectations.js';
import { removeDir, startDaemon, tempDir, vox, waitFor, writeConfig, type Daemon } from '../helpers/daemon.js';
import { needTool } from '../helpers/tools.js';
import { CODEX, codexSkip, runCli } from '../helpers/agent-clis.js';
import { callOutputs, startResponsesApi, toolNames, type ResponsesStandIn } from '../helpers/responses-api.js';

const REPLY = 'All tests pass. I fixed the parser and added a regression test.';
const HELLO = 'Hello from the trusted hooks. Nothing else to do.';

/** The text of the last user message in a Responses request. */
const lastUserText = (req: { input: Array<Record<string, unknown>> }): string => {
  const last = [...req.input].reverse().find((i) => i.type === 'message' && i.role === 'user');
  return JSON.stringify(last?.content ?? '');
};
const ESCALATE = {
  cmd: 'touch /etc/vox-codex-test',
  sandbox_permissions: 'require_escalated',
  justification: 'May I write to /etc?',
};

/** config.toml as a user has it: comments, a provider (here the stand-in), another MCP server. */
function userConfig(apiUrl: string): string {
  return [
    '# my Codex settings',
    'model = "stand-in"',
    'model_provider = "standin"  # the loopback stand-in',
    '',
    '[model_providers.standin]',
    'name = "stand-in"',
    `base_url = "${apiUrl}"`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '# another server of mine',
    '[mcp_servers.other]',
    'command = "other-mcp"',
    '',
  ].join('\n');
}

describe('Codex CLI with vox hooks install --agent codex', { skip: codexSkip }, () => {
  let d: Daemon;
  let root: string;
  let api: ResponsesStandIn;

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-codex-e2e-');
    writeConfig(join(root, 'shop'), 'notify: normal');
    api = await startResponsesApi((req) => {
      // Codex's automatic approval review (--approve-for-me) asks for a JSON verdict: deny.
      if (req.text !== undefined)
        return { text: JSON.stringify({ outcome: 'deny', risk_level: 'high', rationale: 'a test' }) };
      if (lastUserText(req).includes('HELLO')) return { text: HELLO };
      const outputs = callOutputs(req);
      if (!outputs.has('call_1')) return { calls: [{ call_id: 'call_1', name: 'exec_command', arguments: ESCALATE }] };
      if (!outputs.has('call_2')) return { calls: [{ call_id: 'call_2', name: 'exec_command', arguments: ESCALATE }] };
      return { text: REPLY };
    });
  });
  after(async () => {
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (root) removeDir(root);
  });

  test('a codex exec session: permission asks are important and deduped, the reply is spoken once, labelled by the session', async () => {
    const home = join(root, 'home');
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, 'config.toml'), userConfig(api.url));
    const env = { ...d.env, HOME: home, CODEX_HOME: codexHome, VOX_NO_AUTOSTART: '1' };
    const inst = await vox(['hooks', 'install', '--agent', 'codex'], { env });
    assert.equal(inst.code, 0, inst.stderr);

    await d.idle();
    const run = await runCli(
      CODEX!,
      ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--approve-for-me', 'Fix the parser.'],
      { cwd: join(root, 'shop'), env, timeoutMs: 120_000 },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), REPLY);
    const session = /^session id: ([0-9a-f-]+)$/m.exec(run.stderr)?.[1];
    assert.ok(session, run.stderr);
    for (const e of ['SessionStart', 'PermissionRequest', 'Stop'])
      assert.match(run.stderr, new RegExp(`hook: ${e} Completed`), `${e} ran`);

    // The MCP server install wrote is a working `vox mcp`: Codex listed its tools to the model.
    const main = api.requests.find((r) => r.body && r.body.text === undefined)!.body!;
    const tools = toolNames(main);
    assert.ok(tools.includes('mcp__vox.speak'), `vox's speak among ${tools.join(', ')}`);

    await d.idle();
    const hs = (await historyInOrder(d)).filter((h) => h.session?.startsWith('shop#'));
    const label = `shop#${session.replace(/-/g, '').slice(0, 6)}`;
    assert.deepEqual(
      heard(hs, true),
      [
        ['shop needs your permission to use Bash', 'important', label, 'spoken'],
        ['shop needs your permission to use Bash', 'important', label, 'deduped'],
        [REPLY, 'text', label, 'spoken'],
      ],
      JSON.stringify(hs),
    );
  });

  test(
    "interactive: trusting the hooks in Codex's review makes them run without the bypass; uninstall keeps the trust Codex wrote",
    { skip: needTool('tmux') },
    async () => {
      const home = join(root, 'home-tui');
      const codexHome = join(home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(join(codexHome, 'config.toml'), userConfig(api.url));
      const env = { ...d.env, HOME: home, CODEX_HOME: codexHome, VOX_NO_AUTOSTART: '1' };
      assert.equal((await vox(['hooks', 'install', '--agent', 'codex'], { env })).code, 0);
      const socket = `vox-codex-${process.pid}`;
      const tmux = (...args: string[]) =>
        spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 });
      const pane = () => tmux('capture-pane', '-p', '-t', 'cx').stdout ?? '';
      const screen = (re: RegExp, what: string) =>
        waitFor(() => (re.test(pane()) ? true : undefined), 60_000, what).catch((err: Error) => {
          throw new Error(
            `${err.message}; tmux has the session: ${tmux('has-session', '-t', 'cx').status === 0}; the screen:\n${pane()}`,
          );
        });
      const envArgs = Object.entries(env).flatMap(([k, v]) => (v === undefined ? [] : ['-e', `${k}=${v}`]));
      try {
        const started = tmux(
          'new-session',
          '-d',
          '-s',
          'cx',
          '-x',
          '150',
          '-y',
          '45',
          '-c',
          join(root, 'shop'),
          ...envArgs,
          CODEX!,
        );
        assert.equal(started.status, 0, started.stderr);
        await screen(/Hooks need review[\s\S]*Trust all and continue/, "Codex's hook review");
        // A key sent before Codex reads its input is lost (seen in CI): press a key at a time until the screen shows it took.
        const press = (done: (now: string) => boolean, key: (now: string) => string, what: string) =>
          waitFor(
            async () => {
              const now = pane();
              if (done(now)) return true;
              tmux('send-keys', '-t', 'cx', key(now));
              await new Promise((r) => setTimeout(r, 700));
              return undefined;
            },
            30_000,
            what,
          ).catch((err: Error) => {
            throw new Error(`${err.message}; the screen:\n${pane()}`);
          });
        await press(
          (now) => /›\s*2\. Trust all/.test(now),
          (now) => (/›\s*3\./.test(now) ? 'Up' : 'Down'),
          '"Trust all" to be selected',
        );
        await press(
          (now) => !/Hooks need review/.test(now),
          () => 'Enter',
          'the review to close',
        );
        await screen(/To get started/, 'the prompt');
        tmux('send-keys', '-t', 'cx', '-l', 'HELLO there');
        await screen(/HELLO there/, 'the prompt typed');
        tmux('send-keys', '-t', 'cx', 'Enter');
        await waitFor(
          async () => ((await historyInOrder(d)).some((h) => h.text === HELLO) ? true : undefined),
          60_000,
          'the Stop summary',
        ).catch((err: Error) => {
          throw new Error(
            `${err.message}; tmux has the session: ${tmux('has-session', '-t', 'cx').status === 0}; the screen:\n${pane()}`,
          );
        });
        tmux('send-keys', '-t', 'cx', '-l', '/quit');
        spawnSync('sleep', ['0.3']);
        tmux('send-keys', '-t', 'cx', 'Enter');
        await waitFor(
          () => (tmux('has-session', '-t', 'cx').status !== 0 ? true : undefined),
          10_000,
          'codex to exit',
        ).catch(() => {});
      } finally {
        tmux('kill-server');
      }
      const trusted = readFileSync(join(codexHome, 'config.toml'), 'utf8');
      assert.match(
        trusted,
        /\[hooks\.state\."[^"]*hooks\.json:stop:0:0"\]\ntrusted_hash = "sha256:[0-9a-f]{64}"/,
        'Codex wrote its trust',
      );
      const gone = await vox(['hooks', 'uninstall', '--agent', 'codex'], { env });
      assert.equal(gone.code, 0, gone.stderr);
      const after = readFileSync(join(codexHome, 'config.toml'), 'utf8');
      assert.doesNotMatch(after, /mcp_servers\.vox|# vox:/);
      assert.match(after, /hooks\.json:stop:0:0/, "Codex's own tables stay");
      assert.ok(after.startsWith(userConfig(api.url).trimEnd()), 'the user text stays');
    },
  );
});

describe("vox hooks install --agent codex on the user's files", () => {
  test('keeps comments and other entries, is idempotent, keeps a backup, and uninstall gives back the same bytes', async () => {
    const home = tempDir('vox-codex-home-');
    try {
      const codexHome = join(home, '.codex');
      mkdirSync(codexHome);
      const toml = userConfig('http://127.0.0.1:9/v1');
      const hooksJson = `${JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }] } }, null, 4)}\n`;
      writeFileSync(join(codexHome, 'config.toml'), toml);
      writeFileSync(join(codexHome, 'hooks.json'), hooksJson);
      const env = { HOME: home, VOX_NO_AUTOSTART: '1' };
      const first = await vox(['hooks', 'install', '--agent', 'codex', '--json'], { env });
      assert.equal(first.code, 0, first.stderr);
      const res = JSON.parse(first.stdout);
      assert.equal(res.hooks.changed, true);
      assert.equal(res.config.changed, true);
      assert.equal(readFileSync(res.config.backup, 'utf8'), toml, 'config.toml.vox-backup is the file before');
      assert.equal(readFileSync(res.hooks.backup, 'utf8'), hooksJson);
      const text = readFileSync(join(codexHome, 'config.toml'), 'utf8');
      assert.ok(text.startsWith(toml), 'the user text, comments and all, is untouched');
      assert.match(text, /\n\n# vox: begin .*\n\[mcp_servers\.vox\]\ncommand = ".+"\nargs = \[ ".+", "mcp" \]\n$/);
      const hooks = JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8')).hooks;
      assert.equal(hooks.Stop.length, 2);
      assert.equal(hooks.Stop[0].hooks[0].command, 'notify-send done');
      assert.match(hooks.Stop[1].hooks[0].command, / hook --agent codex Stop$/);
      for (const e of ['SessionStart', 'PermissionRequest', 'PreCompact', 'SessionEnd'])
        assert.equal(hooks[e].length, 1, e);

      const again = await vox(['hooks', 'install', '--agent', 'codex', '--json'], { env });
      assert.deepEqual(
        [JSON.parse(again.stdout).hooks.changed, JSON.parse(again.stdout).config.changed],
        [false, false],
      );
      assert.equal(readFileSync(join(codexHome, 'config.toml'), 'utf8'), text);

      const gone = await vox(['hooks', 'uninstall', '--agent', 'codex'], { env });
      assert.equal(gone.code, 0, gone.stderr);
      assert.equal(readFileSync(join(codexHome, 'config.toml'), 'utf8'), toml);
      assert.deepEqual(JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8')), JSON.parse(hooksJson));
      const twice = await vox(['hooks', 'uninstall', '--agent', 'codex', '--json'], { env });
      assert.deepEqual(
        [JSON.parse(twice.stdout).hooks.changed, JSON.parse(twice.stdout).config.changed],
        [false, false],
      );
    } finally {
      removeDir(home);
    }
  });

  test('uninstall after Codex rewrote config.toml (trusting the hooks) keeps what Codex added', async () => {
    const home = tempDir('vox-codex-home-');
    try {
      const codexHome = join(home, '.codex');
      mkdirSync(codexHome);
      const toml = userConfig('http://127.0.0.1:9/v1');
      writeFileSync(join(codexHome, 'config.toml'), toml);
      const env = { HOME: home, VOX_NO_AUTOSTART: '1' };
      assert.equal((await vox(['hooks', 'install', '--agent', 'codex'], { env })).code, 0);
      // What Codex 0.171.0 did to the file when its TUI's "Trust all and continue" was chosen
      // (seen by hand): its own tables straight after vox's lines, and an older install's
      // closing "# vox: end" comment moved to the very end.
      const trust = [
        '',
        '[tui]',
        'screen_reader_detection_done = true',
        '',
        '[hooks.state]',
        '',
        `[hooks.state."${join(codexHome, 'hooks.json')}:stop:0:0"]`,
        'trusted_hash = "sha256:20512513624a20ef2a6396d19f7eb26859d70bea738ae05fe10a923697588697"',
      ].join('\n');
      writeFileSync(
        join(codexHome, 'config.toml'),
        `${readFileSync(join(codexHome, 'config.toml'), 'utf8').trimEnd()}\n${trust}\n# vox: end`,
      );
      const again = await vox(['hooks', 'install', '--agent', 'codex', '--json'], { env });
      assert.equal(JSON.parse(again.stdout).config.changed, false, 'still installed');
      const gone = await vox(['hooks', 'uninstall', '--agent', 'codex'], { env });
      assert.equal(gone.code, 0, gone.stderr);
      assert.equal(readFileSync(join(codexHome, 'config.toml'), 'utf8'), `${toml}${trust}`);
    } finally {
      removeDir(home);
    }
  });

  test('into an empty CODEX_HOME, and out again: nothing left but the backups', async () => {
    const home = tempDir('vox-codex-home-');
    try {
      const codexHome = join(home, 'elsewhere');
      const env = { HOME: home, CODEX_HOME: codexHome, VOX_NO_AUTOSTART: '1' };
      const first = await vox(['hooks', 'install', '--agent', 'codex', '--portable'], { env });
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /trust/);
      assert.match(
        readFileSync(join(codexHome, 'config.toml'), 'utf8'),
        /^# vox: begin .*\n\[mcp_servers\.vox\]\ncommand = "vox"\nargs = \[ "mcp" \]\n$/,
      );
      const gone = await vox(['hooks', 'uninstall', '--agent', 'codex'], { env });
      assert.equal(gone.code, 0, gone.stderr);
      assert.equal(existsSync(join(codexHome, 'config.toml')), false);
      assert.equal(existsSync(join(codexHome, 'hooks.json')), false);
      assert.equal(existsSync(join(codexHome, 'config.toml.vox-backup')), true);
    } finally {
      removeDir(home);
    }
  });

  test('a malformed config.toml or hooks.json, or an inline mcp_servers table, is an error and both files stay as they were', async () => {
    const home = tempDir('vox-codex-home-');
    try {
      const codexHome = join(home, '.codex');
      mkdirSync(codexHome);
      const env = { HOME: home, VOX_NO_AUTOSTART: '1' };
      const cases: Array<[string, string, RegExp]> = [
        ['model = "o3"\n[mcp_servers\n', '{}', /config\.toml is not valid TOML/],
        ['model = "o3"\n', '{ "hooks": ', /hooks\.json is not valid JSON/],
        ['mcp_servers = { other = { command = "x" } }\n', '{}', /cannot add \[mcp_servers\.vox\].*Add by hand/s],
      ];
      for (const [toml, json, error] of cases) {
        writeFileSync(join(codexHome, 'config.toml'), toml);
        writeFileSync(join(codexHome, 'hooks.json'), json);
        const r = await vox(['hooks', 'install', '--agent', 'codex'], { env });
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, error);
        assert.equal(readFileSync(join(codexHome, 'config.toml'), 'utf8'), toml);
        assert.equal(readFileSync(join(codexHome, 'hooks.json'), 'utf8'), json);
      }
      // Claude Code's flags are not silently dropped.
      const scoped = await vox(['hooks', 'install', '--agent', 'codex', '--project'], { env });
      assert.equal(scoped.code, 2);
      assert.match(scoped.stderr, /--project: Claude Code's settings only/);
      // The user's own [mcp_servers.vox] is theirs: kept, and not removed by uninstall.
      const own = 'model = "o3"\n[mcp_servers.vox]\ncommand = "my-vox"\nargs = ["mcp"]\n';
      writeFileSync(join(codexHome, 'config.toml'), own);
      const r = await vox(['hooks', 'install', '--agent', 'codex'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /has its own \[mcp_servers\.vox\]/);
      await vox(['hooks', 'uninstall', '--agent', 'codex'], { env });
      assert.equal(readFileSync(join(codexHome, 'config.toml'), 'utf8'), own);
    } finally {
      removeDir(home);
    }
  });
});
