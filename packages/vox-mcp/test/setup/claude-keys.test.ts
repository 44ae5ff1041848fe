/**
 * The chords `vox setup` binds to the vox mod's /vox-stop and /vox-talk in
 * Claude Code's keybindings.json (src/setup/claude-keys.ts): added beside the
 * user's bindings, idempotent, backed up, never over a chord of the user's,
 * removed with the block and the file it leaves empty.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  applyKeybinding,
  applyKeybindings,
  keybindingsPath,
  planKeybinding,
  STOP_ACTION,
  STOP_CHORD,
  STOP_KEY,
  TALK_ACTION,
  TALK_CHORD,
  TALK_KEY,
  VOX_KEYS,
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
    assert.deepEqual(planKeybinding(path, { remove: false }), {
      path,
      action: 'keep',
      detail: STOP_CHORD,
      key: STOP_KEY,
    });
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
    assert.deepEqual(planKeybinding(moved, { remove: false }), {
      path: moved,
      action: 'keep',
      detail: 'ctrl+g s',
      key: STOP_KEY,
    });
    const taken = file(JSON.stringify({ bindings: [{ context: 'Chat', bindings: { [STOP_CHORD]: 'chat:undo' } }] }));
    const plan = planKeybinding(taken, { remove: false });
    assert.deepEqual(plan, { path: taken, action: 'taken', detail: 'chat:undo', key: STOP_KEY });
    const before = readFileSync(taken, 'utf8');
    applyKeybinding(plan);
    assert.equal(readFileSync(taken, 'utf8'), before);
  });

  test('both chords, as setup plans them, in one write: the backup is the file as the user had it; --remove restores it', () => {
    const theirs = { bindings: [{ context: 'Chat', bindings: { 'ctrl+e': 'chat:externalEditor' } }] };
    const path = file(`${JSON.stringify(theirs, null, 2)}\n`);
    const plans = VOX_KEYS.map((k) => planKeybinding(path, { remove: false }, k));
    assert.deepEqual(
      plans.map((p) => [p.action, p.key.action]),
      [
        ['add', STOP_ACTION],
        ['add', TALK_ACTION],
      ],
    );
    assert.equal(applyKeybindings(plans), `${path}.vox-backup`);
    assert.deepEqual(read(`${path}.vox-backup`), theirs);
    assert.deepEqual(read(path).bindings[0].bindings, {
      'ctrl+e': 'chat:externalEditor',
      [STOP_CHORD]: STOP_ACTION,
      [TALK_CHORD]: TALK_ACTION,
    });
    const text = readFileSync(path, 'utf8');
    const again = VOX_KEYS.map((k) => planKeybinding(path, { remove: false }, k));
    assert.deepEqual(
      again.map((p) => [p.action, p.detail]),
      [
        ['keep', STOP_CHORD],
        ['keep', TALK_CHORD],
      ],
    );
    assert.equal(applyKeybindings(again), undefined);
    assert.equal(readFileSync(path, 'utf8'), text, 'byte for byte');
    applyKeybindings(VOX_KEYS.map((k) => planKeybinding(path, { remove: true }, k)));
    assert.deepEqual(read(path), theirs);
  });

  test("the talk chord on a chord of the user's is not bound; the stop chord still is; a file vox made goes at --remove", () => {
    const path = file(JSON.stringify({ bindings: [{ context: 'Chat', bindings: { [TALK_CHORD]: 'chat:undo' } }] }));
    const plans = VOX_KEYS.map((k) => planKeybinding(path, { remove: false }, k));
    assert.deepEqual(
      plans.map((p) => [p.action, p.detail]),
      [
        ['add', undefined],
        ['taken', 'chat:undo'],
      ],
    );
    applyKeybindings(plans);
    assert.deepEqual(read(path).bindings[0].bindings, { [TALK_CHORD]: 'chat:undo', [STOP_CHORD]: STOP_ACTION });
    assert.equal(planKeybinding(path, { remove: true }, TALK_KEY).action, 'absent');

    const fresh = file();
    applyKeybindings(VOX_KEYS.map((k) => planKeybinding(fresh, { remove: false }, k)));
    applyKeybindings(VOX_KEYS.map((k) => planKeybinding(fresh, { remove: true }, k)));
    assert.equal(existsSync(fresh), false);
  });

  test('a file that is not JSON, or whose bindings are no array, is reported and never written', () => {
    for (const text of ['{"bindings": [', '{"bindings": {}}', '[]']) {
      const path = file(text);
      assert.throws(() => planKeybinding(path, { remove: false }), SettingsError);
      assert.equal(readFileSync(path, 'utf8'), text);
    }
  });
});
