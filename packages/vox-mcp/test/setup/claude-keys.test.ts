/**
 * The chord `vox setup` binds to the vox mod's /vox-stop in Claude Code's
 * keybindings.json (src/setup/claude-keys.ts): added beside the user's
 * bindings, idempotent, backed up, never over a chord of the user's, removed
 * with the block and the file it leaves empty.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  applyKeybinding,
  keybindingsPath,
  planKeybinding,
  STOP_ACTION,
  STOP_CHORD,
} from '../../src/setup/claude-keys.js';
import { SettingsError } from '../../src/hooks/settings-file.js';

const tmp = mkdtempSync(join(tmpdir(), 'vox-keys-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const file = (text?: string) => {
  const dir = join(tmp, `k${n++}`);
  mkdirSync(dir);
  const path = join(dir, 'keybindings.json');
  if (text !== undefined) writeFileSync(path, text);
  return path;
};
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe("the /vox-stop chord in Claude Code's keybindings.json", () => {
  test('where: CLAUDE_CONFIG_DIR, else ~/.claude', () => {
    assert.equal(keybindingsPath({ HOME: '/h' }, '/x'), '/h/.claude/keybindings.json');
    assert.equal(keybindingsPath({ HOME: '/h', CLAUDE_CONFIG_DIR: '/c' }, '/x'), '/c/keybindings.json');
  });

  test('a missing file gets one Chat block; a second run keeps it; --remove takes the file it made', () => {
    const path = file();
    const plan = planKeybinding(path, { remove: false });
    assert.equal(plan.action, 'add');
    assert.equal(applyKeybinding(plan), undefined, 'nothing to back up');
    assert.deepEqual(read(path), { bindings: [{ context: 'Chat', bindings: { [STOP_CHORD]: STOP_ACTION } }] });
    const text = readFileSync(path, 'utf8');
    assert.deepEqual(planKeybinding(path, { remove: false }), { path, action: 'keep', detail: STOP_CHORD });
    assert.equal(applyKeybinding(planKeybinding(path, { remove: false })), undefined);
    assert.equal(readFileSync(path, 'utf8'), text, 'byte for byte');
    const removal = planKeybinding(path, { remove: true });
    assert.equal(removal.action, 'remove');
    applyKeybinding(removal);
    assert.equal(existsSync(path), false);
    assert.equal(planKeybinding(path, { remove: true }).action, 'absent');
  });

  test("beside the user's bindings, backed up; removed again to exactly theirs", () => {
    const theirs = {
      $schema: 'https://example.invalid/keybindings.json',
      bindings: [
        { context: 'Global', bindings: { 'ctrl+t': 'app:toggleTodos' } },
        { context: 'Chat', bindings: { 'ctrl+e': 'chat:externalEditor' } },
      ],
    };
    const path = file(`${JSON.stringify(theirs, null, 2)}\n`);
    const backup = applyKeybinding(planKeybinding(path, { remove: false }));
    assert.equal(backup, `${path}.vox-backup`);
    assert.deepEqual(read(backup!), theirs);
    assert.deepEqual(read(path).bindings[1].bindings, {
      'ctrl+e': 'chat:externalEditor',
      [STOP_CHORD]: STOP_ACTION,
    });
    applyKeybinding(planKeybinding(path, { remove: true }));
    assert.deepEqual(read(path), theirs);
  });

  test("a chord the user moved it to is kept; vox's chord bound to something else is left alone", () => {
    const moved = file(JSON.stringify({ bindings: [{ context: 'Chat', bindings: { 'ctrl+g s': STOP_ACTION } }] }));
    assert.deepEqual(planKeybinding(moved, { remove: false }), { path: moved, action: 'keep', detail: 'ctrl+g s' });
    const taken = file(JSON.stringify({ bindings: [{ context: 'Chat', bindings: { [STOP_CHORD]: 'chat:undo' } }] }));
    const plan = planKeybinding(taken, { remove: false });
    assert.deepEqual(plan, { path: taken, action: 'taken', detail: 'chat:undo' });
    const before = readFileSync(taken, 'utf8');
    applyKeybinding(plan);
    assert.equal(readFileSync(taken, 'utf8'), before);
  });

  test('a file that is not JSON, or whose bindings are no array, is reported and never written', () => {
    for (const text of ['{"bindings": [', '{"bindings": {}}', '[]']) {
      const path = file(text);
      assert.throws(() => planKeybinding(path, { remove: false }), SettingsError);
      assert.equal(readFileSync(path, 'utf8'), text);
    }
  });
});
