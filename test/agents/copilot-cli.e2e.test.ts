/**
 * GitHub Copilot CLI, for real: `vox hooks install --agent copilot` into an
 * isolated HOME (~/.copilot/hooks/vox.json and mcpServers.vox in
 * mcp-config.json), then the pinned Copilot CLI (`copilot -p`,
 * test/helpers/agent-clis.ts) runs offline in its bring-your-own-provider
 * mode (COPILOT_PROVIDER_BASE_URL: no GitHub login) against the Responses API
 * stand-in (test/helpers/responses-api.ts), with a real voxd (file sink). The
 * model runs a shell command twice (Copilot asks permission; with -p no one
 * answers, so it is denied), then answers; voxd's history says what was said.
 * And the install rules on the user's own files.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { heard, historyInOrder } from '../helpers/hook-expectations.js';
import { removeDir, startDaemon, tempDir, vox, writeConfig, type Daemon } from '../helpers/daemon.js';
import { COPILOT_CLI, copilotSkip, runCli } from '../helpers/agent-clis.js';
import { callOutputs, startResponsesApi, toolNames, type ResponsesStandIn } from '../helpers/responses-api.js';

const REPLY = 'All tests pass. I fixed the parser and added a regression test.';
const SHELL = { command: 'touch /etc/vox-copilot-test', description: 'Write to /etc' };

describe('Copilot CLI with vox hooks install --agent copilot', { skip: copilotSkip }, () => {
  let d: Daemon;
  let root: string;
  let api: ResponsesStandIn;

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-copilot-e2e-');
    writeConfig(join(root, 'shop'), 'notify: normal');
    api = await startResponsesApi((req) => {
      const outputs = callOutputs(req);
      if (!outputs.has('call_1')) return { calls: [{ call_id: 'call_1', name: 'bash', arguments: SHELL }] };
      if (!outputs.has('call_2')) return { calls: [{ call_id: 'call_2', name: 'bash', arguments: SHELL }] };
      return { text: REPLY };
    });
  });
  after(async () => {
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (root) removeDir(root);
  });

  test('a copilot -p session: permission asks are important and deduped, the reply is spoken once, labelled by the session', async () => {
    const home = join(root, 'home');
    mkdirSync(join(home, 'tmp'), { recursive: true });
    const env = {
      ...d.env,
      HOME: home,
      // Copilot leaves its node-compile-cache in TMPDIR: one of its own, removed with root.
      TMPDIR: join(home, 'tmp'),
      VOX_NO_AUTOSTART: '1',
      COPILOT_PROVIDER_BASE_URL: api.url,
      COPILOT_PROVIDER_WIRE_API: 'responses',
      COPILOT_MODEL: 'gpt-5.4',
      COPILOT_AUTO_UPDATE: 'false',
    };
    const inst = await vox(['hooks', 'install', '--agent', 'copilot'], { env });
    assert.equal(inst.code, 0, inst.stderr);

    await d.idle();
    const run = await runCli(COPILOT_CLI!, ['-p', 'Fix the parser.', '--no-auto-update'], {
      cwd: join(root, 'shop'),
      env,
      timeoutMs: 120_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(REPLY.replace(/\./g, '\\.')));
    const session = /--resume=([0-9a-f-]+)/.exec(run.stderr + run.stdout)?.[1];
    assert.ok(session, run.stderr);

    // The MCP server install wrote is a working `vox mcp`: Copilot listed its tools to the model.
    const tools = toolNames(api.requests[0]!.body!);
    assert.ok(
      tools.some((t) => /vox/.test(t) && /speak/.test(t)),
      `vox's speak among ${tools.join(', ')}`,
    );

    await d.idle();
    const hs = (await historyInOrder(d)).filter((h) => h.session?.startsWith('shop#'));
    const label = `shop#${session.replace(/-/g, '').slice(0, 6)}`;
    assert.deepEqual(
      heard(hs, true),
      [
        ['shop needs your permission to use bash', 'important', label, 'spoken'],
        ['shop needs your permission to use bash', 'important', label, 'deduped'],
        [REPLY, 'text', label, 'spoken'],
      ],
      JSON.stringify(hs),
    );
  });
});

describe('vox hook --agent copilot agentStop: the reply from the transcript', () => {
  async function stop(root: string, transcript: string | undefined): Promise<{ text: string; session: string }> {
    const payload = {
      sessionId: '9a8b7c6d-1111-2222-3333-444455556666',
      cwd: join(root, 'shop'),
      stopReason: 'end_turn',
      stop_hook_active: false,
      ...(transcript ? { transcriptPath: transcript } : {}),
    };
    const r = await vox(['hook', '--agent', 'copilot', 'agentStop', '--dry-run'], {
      env: { HOME: root, VOX_NO_AUTOSTART: '1' },
      input: JSON.stringify(payload),
    });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout).body as { text: string; session: string };
  }

  test('the turn\'s last assistant.message, from the last 256 KiB only; none, or no file: "<project> is done"', async () => {
    const root = tempDir('vox-copilot-transcript-');
    try {
      writeConfig(join(root, 'shop'), 'notify: normal');
      const event = (type: string, data: Record<string, unknown> = {}) => `${JSON.stringify({ type, data })}\n`;
      const stopped = event('hook.start', { hookType: 'agentStop' });
      const big = join(root, 'big.jsonl');
      // A reply beyond the tail, 300 KiB of other events, the turn (a tool step, then the reply), and this agentStop.
      writeFileSync(
        big,
        event('assistant.message', { content: 'An old reply.' }) +
          event('tool.output', { content: 'x'.repeat(300 * 1024) }) +
          event('user.message', { content: 'go' }) +
          event('assistant.message', { content: '' }) +
          event('assistant.message', { content: 'The new reply. It is the last.' }) +
          event('assistant.turn_end') +
          stopped,
      );
      const body = await stop(root, big);
      assert.deepEqual([body.text, body.session], ['The new reply. It is the last.', 'shop#9a8b7c']);
      // The reply of an earlier turn is not this turn's.
      const earlier = join(root, 'earlier.jsonl');
      writeFileSync(
        earlier,
        event('user.message') +
          event('assistant.message', { content: 'Earlier.' }) +
          stopped +
          event('user.message') +
          stopped,
      );
      assert.equal((await stop(root, earlier)).text, 'shop is done');
      // Copilot has not written the turn's end yet: vox waits for it (at most 5 s) and takes what there is.
      const late = join(root, 'late.jsonl');
      writeFileSync(late, event('user.message'));
      setTimeout(
        () =>
          writeFileSync(
            late,
            event('user.message') + event('assistant.message', { content: 'Written late.' }) + stopped,
          ),
        300,
      );
      assert.equal((await stop(root, late)).text, 'Written late.');
      assert.equal((await stop(root, join(root, 'missing.jsonl'))).text, 'shop is done');
      assert.equal((await stop(root, undefined)).text, 'shop is done');
    } finally {
      removeDir(root);
    }
  });
});

describe("vox hooks install --agent copilot on the user's files", () => {
  test("a hooks file of its own and the server beside the user's; idempotent, backed up, and uninstall gives back the same", async () => {
    const home = tempDir('vox-copilot-home-');
    try {
      const dir = join(home, 'cp');
      mkdirSync(join(dir, 'hooks'), { recursive: true });
      const mine = { mcpServers: { github: { type: 'local', command: 'gh-mcp', args: [], tools: ['*'] } } };
      const text = `${JSON.stringify(mine, null, 4)}\n`;
      writeFileSync(join(dir, 'mcp-config.json'), text);
      const env = { HOME: home, COPILOT_HOME: dir, VOX_NO_AUTOSTART: '1' };
      const first = await vox(['hooks', 'install', '--agent', 'copilot', '--json'], { env });
      assert.equal(first.code, 0, first.stderr);
      const res = JSON.parse(first.stdout);
      assert.deepEqual([res.hooks.changed, res.config.changed], [true, true]);
      assert.equal(readFileSync(res.config.backup, 'utf8'), text);
      const hooks = JSON.parse(readFileSync(join(dir, 'hooks', 'vox.json'), 'utf8'));
      assert.equal(hooks.version, 1);
      assert.deepEqual(Object.keys(hooks.hooks), ['sessionStart', 'sessionEnd', 'agentStop', 'permissionRequest']);
      assert.match(hooks.hooks.agentStop[0].bash, / hook --agent copilot agentStop$/);
      const config = JSON.parse(readFileSync(join(dir, 'mcp-config.json'), 'utf8'));
      assert.deepEqual(config.mcpServers.github, mine.mcpServers.github);
      assert.equal(config.mcpServers.vox.args.at(-1), 'mcp');
      const again = JSON.parse((await vox(['hooks', 'install', '--agent', 'copilot', '--json'], { env })).stdout);
      assert.deepEqual([again.hooks.changed, again.config.changed], [false, false]);
      const gone = await vox(['hooks', 'uninstall', '--agent', 'copilot'], { env });
      assert.equal(gone.code, 0, gone.stderr);
      assert.equal(existsSync(join(dir, 'hooks', 'vox.json')), false);
      assert.equal(readFileSync(join(dir, 'mcp-config.json'), 'utf8'), text);
      // A hooks/vox.json that is not vox's is never overwritten.
      writeFileSync(
        join(dir, 'hooks', 'vox.json'),
        '{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"say done"}]}}',
      );
      const bad = await vox(['hooks', 'install', '--agent', 'copilot'], { env });
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /not vox's/);
    } finally {
      removeDir(home);
    }
  });
});
