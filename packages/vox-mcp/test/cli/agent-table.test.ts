/** cli/agent-table.ts: every agent of the table is documented, offered by --agent, and maps payloads without throwing. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AGENT_NAMES, AGENT_TABLE, agentList } from '../../src/cli/agent-table.js';
import { HOOK_USAGE } from '../../src/cli/commands/hook.js';
import { command as hooks } from '../../src/cli/commands/hooks.js';

const docs = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../../../docs/${name}`, import.meta.url)), 'utf8');

test('one row per agent, Claude Code first (the default), names unique', () => {
  assert.equal(AGENT_NAMES[0], 'claude');
  assert.equal(new Set(AGENT_NAMES).size, AGENT_NAMES.length);
  assert.equal(agentList(), 'claude (the default), codex, gemini, copilot, opencode or qwen');
});

test('every agent but Claude Code has its section in docs/agents.md; the help of vox hook and vox hooks names it', () => {
  const agents = docs('agents.md');
  for (const a of AGENT_TABLE.slice(1)) {
    assert.match(agents, new RegExp(`^## ${a.title}$`, 'm'), `docs/agents.md has no "## ${a.title}"`);
    assert.ok(hooks.spec.usage.includes(a.name), `vox hooks --help names ${a.name}`);
    assert.ok(hooks.spec.usage.includes(a.writes.split(' ')[0]!), `vox hooks --help says what ${a.name} writes`);
  }
  assert.match(docs('claude-code.md'), /^# /m);
  for (const name of AGENT_NAMES) assert.ok(HOOK_USAGE.includes(name), `vox hook --help names ${name}`);
});

test('an adapter maps any payload without throwing, to an event name', () => {
  for (const a of AGENT_TABLE)
    for (const event of ['Stop', 'PermissionRequest', 'Nonsense', ''])
      assert.equal(typeof a.toEvent(event, { session_id: 42, cwd: null }).event, 'string', `${a.name} ${event}`);
});

test("only Claude Code's hooks answer by voice and read --user/--project/--local, --type, --server", () => {
  for (const a of AGENT_TABLE) {
    assert.equal(a.answersByVoice, a.name === 'claude', a.name);
    assert.deepEqual([...a.options], a.name === 'claude' ? ['scope', 'type', 'server'] : [], a.name);
  }
});
