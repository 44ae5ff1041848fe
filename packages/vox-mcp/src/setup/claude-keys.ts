/**
 * The key chords `vox setup` offers for the vox mod's commands (plugin/
 * hooks/vox-mod.tsx): bindings in Claude Code's `keybindings.json`
 * (`~/.claude/`, or `$CLAUDE_CONFIG_DIR`), `"ctrl+x v": "command:vox-stop"`
 * and `"ctrl+x t": "command:vox-talk"` in the `Chat` context, the only
 * context where Claude Code 2.1.332 accepts a `command:` binding. Claude Code
 * reads the file again when it changes.
 *
 * Design notes:
 * - Each binding is planned alone (VoxKey), and the plans of one run are
 *   applied in one write, so the backup is the file as the user had it.
 * - vox's binding is known by its action, `command:vox-stop`, whatever chord
 *   it is on: a user who moved it to another chord keeps theirs, and setup
 *   leaves it (idempotent). `--remove` takes out every binding of that action
 *   and the Chat block it leaves empty; a file left with nothing is the file
 *   vox created, and goes.
 * - A chord the user already bound to something else is theirs: setup binds
 *   nothing and says so.
 * - Every change backs the file up first (`keybindings.json.vox-backup`), as
 *   `vox hooks` does for other agents' settings; a file that is not a JSON
 *   object with a `bindings` array is reported and never written.
 */
import { join } from 'node:path';
import {
  backupFile,
  isObject,
  readSettings,
  removeFile,
  SettingsError,
  writeSettings,
  type Settings,
} from '../hooks/settings-file.js';

export const STOP_CHORD = 'ctrl+x v';
export const STOP_ACTION = 'command:vox-stop';
export const TALK_CHORD = 'ctrl+x t';
export const TALK_ACTION = 'command:vox-talk';

/** One of the mod's commands and the chord setup offers for it. */
export interface VoxKey {
  chord: string;
  action: string;
  /** The slash command, for setup's lines. */
  command: string;
  /** What it does, in a few words. */
  does: string;
}

export const STOP_KEY: VoxKey = {
  chord: STOP_CHORD,
  action: STOP_ACTION,
  command: '/vox-stop',
  does: "it stops the session's speech",
};
export const TALK_KEY: VoxKey = {
  chord: TALK_CHORD,
  action: TALK_ACTION,
  command: '/vox-talk',
  does: 'push-to-talk, your words as the prompt',
};
/** Every chord `vox setup` binds, in the order it says them. */
export const VOX_KEYS: readonly VoxKey[] = [STOP_KEY, TALK_KEY];

export type KeyAction = 'add' | 'keep' | 'taken' | 'remove' | 'absent';

export interface KeyPlan {
  path: string;
  action: KeyAction;
  /** The chord vox's binding is on (`keep`), or the action already on vox's chord (`taken`). */
  detail?: string;
  /** Which binding. */
  key: VoxKey;
}

/** `keybindings.json` of the user's Claude Code. */
export function keybindingsPath(env: NodeJS.ProcessEnv, home: string): string {
  return join(env.CLAUDE_CONFIG_DIR || join(env.HOME || home, '.claude'), 'keybindings.json');
}

interface Block {
  context?: unknown;
  bindings?: unknown;
}

function blocksOf(settings: Settings, path: string): Block[] {
  if (settings.bindings === undefined) return [];
  if (!Array.isArray(settings.bindings))
    throw new SettingsError(`"bindings" in ${path} is not an array; vox left it unchanged.`);
  return settings.bindings as Block[];
}

/** The chord of every Chat binding to `action`. */
function voxChords(blocks: Block[], action: string): string[] {
  return blocks.flatMap((b) =>
    b.context === 'Chat' && isObject(b.bindings)
      ? Object.entries(b.bindings)
          .filter(([, bound]) => bound === action)
          .map(([chord]) => chord)
      : [],
  );
}

/** What setup would do to the file for one binding, without doing it. */
export function planKeybinding(path: string, o: { remove: boolean }, key: VoxKey = STOP_KEY): KeyPlan {
  const { settings } = readSettings(path);
  const blocks = blocksOf(settings, path);
  const mine = voxChords(blocks, key.action);
  const plan = (p: Omit<KeyPlan, 'path' | 'key'>): KeyPlan => ({ path, ...p, key });
  if (o.remove) return plan({ action: mine.length ? 'remove' : 'absent' });
  if (mine.length) return plan({ action: 'keep', detail: mine[0] });
  for (const b of blocks) {
    const action = b.context === 'Chat' && isObject(b.bindings) ? b.bindings[key.chord] : undefined;
    if (action !== undefined) return plan({ action: 'taken', detail: String(action) });
  }
  return plan({ action: 'add' });
}

/** One plan's change to the blocks. */
function changed(blocks: Block[], plan: KeyPlan): Block[] {
  const { chord, action } = plan.key;
  if (plan.action === 'add') {
    const chat = blocks.find((b) => b.context === 'Chat' && isObject(b.bindings));
    return chat
      ? blocks.map((b) => (b === chat ? { ...b, bindings: { ...(b.bindings as object), [chord]: action } } : b))
      : [...blocks, { context: 'Chat', bindings: { [chord]: action } }];
  }
  if (plan.action !== 'remove') return blocks;
  return blocks.flatMap((b) => {
    if (b.context !== 'Chat' || !isObject(b.bindings)) return [b];
    const kept = Object.fromEntries(Object.entries(b.bindings).filter(([, bound]) => bound !== action));
    return Object.keys(kept).length ? [{ ...b, bindings: kept }] : [];
  });
}

/** Does what the plans for one file say, in one write; returns the backup's path when a file was there. */
export function applyKeybindings(plans: readonly KeyPlan[]): string | undefined {
  const todo = plans.filter((p) => p.action === 'add' || p.action === 'remove');
  if (!todo.length) return undefined;
  const path = todo[0]!.path;
  const { settings, indent, exists } = readSettings(path);
  const next = todo.reduce(changed, blocksOf(settings, path));
  if (todo.every((p) => p.action === 'remove')) {
    const rest = Object.keys(settings).filter((k) => k !== 'bindings' && k !== '$schema' && k !== '$docs');
    if (next.length === 0 && rest.length === 0) return removeFile(path, '{ "bindings": [] }\n');
  }
  const backup = exists ? backupFile(path) : undefined;
  writeSettings(path, { ...settings, bindings: next }, indent);
  return backup;
}

/** Does what one plan says; returns the backup's path when a file was there. */
export function applyKeybinding(plan: KeyPlan): string | undefined {
  return applyKeybindings([plan]);
}
