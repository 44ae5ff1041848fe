/**
 * The key chord `vox setup` offers for the vox mod's `/vox-stop` (plugin/
 * hooks/vox-mod.tsx): one binding in Claude Code's `keybindings.json`
 * (`~/.claude/`, or `$CLAUDE_CONFIG_DIR`), `"ctrl+x v": "command:vox-stop"`
 * in the `Chat` context, the only context where Claude Code 2.1.332 accepts a
 * `command:` binding. Claude Code reads the file again when it changes.
 *
 * Design notes:
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

export type KeyAction = 'add' | 'keep' | 'taken' | 'remove' | 'absent';

export interface KeyPlan {
  path: string;
  action: KeyAction;
  /** The chord vox's binding is on (`keep`), or the action already on vox's chord (`taken`). */
  detail?: string;
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

/** The chord of every Chat binding to `/vox-stop`. */
function voxChords(blocks: Block[]): string[] {
  return blocks.flatMap((b) =>
    b.context === 'Chat' && isObject(b.bindings)
      ? Object.entries(b.bindings)
          .filter(([, action]) => action === STOP_ACTION)
          .map(([chord]) => chord)
      : [],
  );
}

/** What setup would do to the file, without doing it. */
export function planKeybinding(path: string, o: { remove: boolean }): KeyPlan {
  const { settings } = readSettings(path);
  const blocks = blocksOf(settings, path);
  const mine = voxChords(blocks);
  if (o.remove) return { path, action: mine.length ? 'remove' : 'absent' };
  if (mine.length) return { path, action: 'keep', detail: mine[0] };
  for (const b of blocks) {
    const action = b.context === 'Chat' && isObject(b.bindings) ? b.bindings[STOP_CHORD] : undefined;
    if (action !== undefined) return { path, action: 'taken', detail: String(action) };
  }
  return { path, action: 'add' };
}

/** Does what the plan says; returns the backup's path when a file was there. */
export function applyKeybinding(plan: KeyPlan): string | undefined {
  if (plan.action !== 'add' && plan.action !== 'remove') return undefined;
  const { settings, indent, exists } = readSettings(plan.path);
  const blocks = blocksOf(settings, plan.path);
  let next: Block[];
  if (plan.action === 'add') {
    const chat = blocks.find((b) => b.context === 'Chat' && isObject(b.bindings));
    next = chat
      ? blocks.map((b) =>
          b === chat ? { ...b, bindings: { ...(b.bindings as object), [STOP_CHORD]: STOP_ACTION } } : b,
        )
      : [...blocks, { context: 'Chat', bindings: { [STOP_CHORD]: STOP_ACTION } }];
  } else {
    next = blocks.flatMap((b) => {
      if (b.context !== 'Chat' || !isObject(b.bindings)) return [b];
      const kept = Object.fromEntries(Object.entries(b.bindings).filter(([, action]) => action !== STOP_ACTION));
      return Object.keys(kept).length ? [{ ...b, bindings: kept }] : [];
    });
    const rest = Object.keys(settings).filter((k) => k !== 'bindings' && k !== '$schema' && k !== '$docs');
    if (next.length === 0 && rest.length === 0) return removeFile(plan.path, '{ "bindings": [] }\n');
  }
  const backup = exists ? backupFile(plan.path) : undefined;
  writeSettings(plan.path, { ...settings, bindings: next }, indent);
  return backup;
}
