/**
 * The shell gate (hooks/shell-gate.ts) against vox itself: for every gated
 * event and many ways of writing a config (the template, quotes, comments,
 * CRLF, odd YAML, broken files, a parent's and the home's file), the gate run
 * by a real /bin/sh (and bash) must start node whenever vox would say
 * something (resolveConfig and decideHook, as `vox hook` runs them), and must
 * stay silent for the plain ways a project turns an event off.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { decideHook } from '../../src/hooks/policy.js';
import { GATE_KINDS, gatedCommand } from '../../src/hooks/shell-gate.js';
import { resolveConfig } from '../../src/project/config.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const TEMPLATE = readFileSync(join(ROOT, 'config', 'config.md'), 'utf8');
// /bin/sh (dash on Debian), and bash, which Codex, Gemini, Qwen and Copilot run hooks with (for one event of each kind).
const SHELLS = ['/bin/sh', '/bin/bash'].filter((s) => existsSync(s));
const shellsFor = (event: string) => (event === 'Stop' || event === 'SessionStart' ? SHELLS : SHELLS.slice(0, 1));

/** A payload with which each event says something when its project lets it. */
const PAYLOADS: Record<string, Record<string, unknown>> = {
  SessionStart: { source: 'startup' },
  SessionEnd: { reason: 'exit' },
  PreCompact: { trigger: 'auto' },
  SubagentStop: {},
  Stop: { last_assistant_message: 'All done.' },
  StopFailure: { error: 'rate_limit' },
  PermissionRequest: { tool_name: 'Bash' },
  Notification: { notification_type: 'idle_prompt', message: 'waiting' },
};

/** Whether vox would say something for the event in `cwd`: an invalid config says nothing. */
async function speaks(event: string, cwd: string): Promise<boolean> {
  let config;
  try {
    config = await resolveConfig(cwd);
  } catch {
    return false;
  }
  const action = decideHook(event, { ...PAYLOADS[event], cwd }, { notify: config.values.notify, projectName: 'p' });
  return action.kind !== 'none';
}

const NOTIFY = ['off', 'quiet', 'normal', 'chatty', 'continuous'];
const fm = (yaml: string) => `---\n${yaml}\n---\n\n# Notes\n`;

/** [name, file text, plain]: for a plain one the gate must agree with vox exactly; for the rest, only never be silent when vox speaks. */
const CONFIGS: Array<[string, string, boolean]> = [
  ['no notify', fm('rate: 200'), true],
  ['empty front matter', '---\n---\n', true],
  ['no front matter', '# Voice notes\n\nnotify: chatty is only prose here\n', true],
  ['the template as written', TEMPLATE, true],
  ...NOTIFY.flatMap((v): Array<[string, string, boolean]> => [
    [`notify: ${v}`, fm(`notify: ${v}`), true],
    [`notify: "${v}"`, fm(`notify: "${v}"`), true],
    [`notify: '${v}'`, fm(`notify: '${v}'`), true],
    [`notify: ${v} # comment`, fm(`# a comment\nvoice: en-us\nnotify: ${v}  # comment chatty off`), true],
    [`notify: ${v}, tab`, fm(`notify:\t${v}`), true],
    [`notify: ${v}, CRLF`, fm(`rate: 200\nnotify: ${v}\nspeak: true`).replace(/\n/g, '\r\n'), true],
    [`template with notify: ${v}`, TEMPLATE.replace('# notify: normal', `notify: ${v}`), true],
    [`notify : ${v}`, fm(`notify : ${v}`), false],
    [`"notify": ${v}`, fm(`"notify": ${v}`), false],
    [`{notify: ${v}}`, fm(`{notify: ${v}}`), false],
    [`folded ${v}`, fm(`notify: >-\n  ${v}`), false],
    [`anchor ${v}`, fm(`announce: &a ${v}\nnotify: *a`), false],
    [`BOM ${v}`, `\uFEFF${fm(`notify: ${v}`)}`, false],
    [`---yaml ${v}`, `---yaml\nnotify: ${v}\n---\n`, false],
    [`unclosed ${v}`, `---\nnotify: ${v}\n`, false],
    [`no final newline ${v}`, `---\nnotify: ${v}\n---`, false],
    [`duplicate ${v}`, fm(`notify: off\nnotify: ${v}`), false],
    [`indented comment ${v}`, fm(`  # note\nnotify: ${v}`), false],
  ]),
  ['escaped chatty', fm('notify: "ch\\x61tty"'), false],
  ['comment says chatty, value off', fm('notify: off # chatty'), true],
  ['value chatty, comment says off', fm('notify: chatty # off'), true],
  ['notify:chatty (no space)', fm('notify:chatty'), false],
  ['invalid value', fm('notify: loud'), false],
  ['empty file', '', false],
];

describe('the shell gate before a hook command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vox-shell-gate-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, 'home');
  mkdirSync(home);
  let n = 0;
  /** What the gated command starts, run by `shell` in `cwd`: true when it reached "node" (here echo). */
  const started = (shell: string, event: string, cwd: string, env: NodeJS.ProcessEnv = { HOME: home }): boolean => {
    const r = spawnSync(shell, ['-c', gatedCommand(event, `echo NODE ${event}`)], {
      cwd,
      env: { PATH: '/usr/bin:/bin', ...env },
      encoding: 'utf8',
      input: JSON.stringify({ cwd }),
      timeout: 10_000,
    });
    assert.equal(r.status, 0, `${shell} ${event} in ${cwd}: ${r.stderr}`);
    // bash reads ~/.bashrc when its stdin is a socket (node's pipes are): only sh's stderr is the gate's alone.
    if (shell !== '/bin/bash') assert.equal(r.stderr, '', `${shell} ${event} in ${cwd}`);
    assert.ok(r.stdout === '' || r.stdout === `NODE ${event}\n`, r.stdout);
    return r.stdout !== '';
  };
  const project = (text: string): string => {
    const p = join(dir, `p${n++}`, 'src');
    mkdirSync(join(p, '..', '.vox'), { recursive: true });
    writeFileSync(join(p, '..', '.vox', 'config.md'), text);
    mkdirSync(p);
    return p;
  };

  test('never silent where vox speaks; silent where a plain config says nothing', async () => {
    for (const [name, text, plain] of CONFIGS) {
      const cwd = project(text);
      for (const event of Object.keys(GATE_KINDS)) {
        const truth = await speaks(event, cwd);
        for (const shell of shellsFor(event)) {
          const gate = started(shell, event, cwd);
          if (truth) assert.ok(gate, `${shell}: ${event} speaks with "${name}" but the gate stayed shut`);
          else if (plain) assert.equal(gate, false, `${shell}: ${event} is silent with "${name}" but node started`);
        }
      }
    }
  });

  test("the nearest file wins, and with none the home's file may open the gate but never shut it", async () => {
    const outer = join(dir, 'outer');
    mkdirSync(join(outer, '.vox'), { recursive: true });
    writeFileSync(join(outer, '.vox', 'config.md'), fm('notify: chatty'));
    const inner = join(outer, 'inner', 'deep');
    mkdirSync(join(outer, 'inner', '.vox'), { recursive: true });
    mkdirSync(inner);
    writeFileSync(join(outer, 'inner', '.vox', 'config.md'), fm('notify: off'));
    for (const shell of SHELLS) {
      assert.equal(started(shell, 'SessionStart', outer), true);
      assert.equal(started(shell, 'SessionStart', join(outer, 'inner')), false);
      assert.equal(started(shell, 'Stop', inner), false);
    }
    // No file on the way up: the defaults (Stop speaks, SessionStart does not) ...
    const bare = join(dir, 'bare');
    mkdirSync(bare);
    const loudHome = join(dir, 'loud-home');
    const offHome = join(dir, 'off-home');
    for (const [h, v] of [
      [loudHome, 'chatty'],
      [offHome, 'off'],
    ] as const) {
      mkdirSync(join(h, '.vox'), { recursive: true });
      writeFileSync(join(h, '.vox', 'config.md'), fm(`notify: ${v}`));
    }
    for (const shell of SHELLS) {
      assert.equal(started(shell, 'Stop', bare), true);
      assert.equal(started(shell, 'SessionStart', bare), false);
      assert.equal(started(shell, 'SessionStart', bare, {}), false, 'no HOME');
      // ... and a home's file that speaks opens it; one that is off never shuts a gate the defaults open.
      assert.equal(started(shell, 'SessionStart', bare, { HOME: loudHome }), true);
      assert.equal(started(shell, 'Stop', bare, { HOME: offHome }), true);
    }
  });

  test('an unreadable config starts node', { skip: process.getuid?.() === 0 ? 'root reads any file' : false }, () => {
    const cwd = project(fm('notify: off'));
    spawnSync('chmod', ['000', join(cwd, '..', '.vox', 'config.md')]);
    for (const shell of SHELLS) assert.equal(started(shell, 'Stop', cwd), true);
  });

  test('events that are not gated run the command alone', () => {
    assert.equal(gatedCommand('Elicitation', 'vox hook Elicitation'), 'vox hook Elicitation');
    assert.equal(gatedCommand('PreToolUse', 'vox hook PreToolUse'), 'vox hook PreToolUse');
    assert.ok(!gatedCommand('Stop', 'x').includes('${'), 'no ${ (Claude Code substitutes it in plugin commands)');
    assert.ok(!/\$(GEMINI_|CLAUDE_PROJECT_DIR|QWEN_)/.test(gatedCommand('Stop', 'x')));
  });
});

describe("each agent's installed hooks are gated as the vox event its adapter makes", () => {
  test('codex, gemini, copilot and qwen: the command is the gated vox hook of that event', async () => {
    const { agentNamed } = await import('../../src/cli/agent-table.js');
    const { CODEX_EVENTS, addCodexHooks } = await import('../../src/agents/codex-settings.js');
    const { GEMINI_EVENTS, addGemini } = await import('../../src/agents/gemini-settings.js');
    const { QWEN_EVENTS, addQwen } = await import('../../src/agents/qwen-settings.js');
    const { COPILOT_EVENTS, copilotHooks } = await import('../../src/agents/copilot-settings.js');
    const opts = { node: '/n', cli: '/v.cjs' };
    type Groups = Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    const commands: Array<[string, string, string]> = [];
    const add = (agent: string, events: readonly string[], hooks: Groups) => {
      for (const e of events) commands.push([agent, e, hooks[e]!.at(-1)!.hooks[0]!.command]);
    };
    add('codex', CODEX_EVENTS, addCodexHooks({}, opts).settings.hooks as Groups);
    add('gemini', GEMINI_EVENTS, addGemini({}, opts).settings.hooks as Groups);
    add('qwen', QWEN_EVENTS, addQwen({}, opts).settings.hooks as Groups);
    const copilot = copilotHooks(opts).hooks as Record<string, Array<{ bash: string }>>;
    for (const e of COPILOT_EVENTS) commands.push(['copilot', e, copilot[e]![0]!.bash]);
    assert.equal(commands.length, CODEX_EVENTS.length + GEMINI_EVENTS.length + QWEN_EVENTS.length + 4);
    for (const [agent, event, command] of commands) {
      const vox = agentNamed(agent).toEvent(event, {}).event;
      assert.equal(command, gatedCommand(vox, `/n /v.cjs hook --agent ${agent} ${event}`), `${agent} ${event}`);
      assert.ok(Object.hasOwn(GATE_KINDS, vox), `${agent} ${event} (${vox}) is gated`);
    }
  });
});
