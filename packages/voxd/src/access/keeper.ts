/**
 * Keeping voxd's own files in VOX_HOME true while it runs. A client trusts
 * what it finds there: a deleted or spoiled voxd.json hides a live voxd (each
 * call then starts one more voxd that loses the lock), a spoiled token makes
 * every call a 401. voxd looks at each file whenever VOX_HOME changes (and
 * every few seconds: fs.watch misses some events, some file systems send
 * none) and restores it.
 */
import { watch, type FSWatcher } from 'node:fs';

export interface KeptFile {
  /** The file's name in the directory. */
  name: string;
  /** Undefined when the file is as voxd wrote it; else what is wrong, for the log. */
  problem(): string | undefined;
  /** Write it again (moving aside whatever cannot be written over); returns a note for the log, if any. */
  restore(): string | undefined;
}

/** How often each file is looked at without a change event. */
const CHECK_MS = 2000;
/** At most one warning a minute per file, however often a hostile writer spoils it. */
const WARN_EVERY_MS = 60_000;

let current: { stop(): void } | undefined;

export function keepFiles(dir: string, files: KeptFile[], warn: (msg: string) => void): void {
  current?.stop();
  const lastWarn = new Map<string, number>();
  let pending: NodeJS.Timeout | undefined;
  const say = (file: KeptFile, msg: string) => {
    if (Date.now() - (lastWarn.get(file.name) ?? 0) < WARN_EVERY_MS) return;
    lastWarn.set(file.name, Date.now());
    warn(msg);
  };
  const check = () => {
    pending = undefined;
    for (const file of files) {
      const problem = file.problem();
      if (!problem) continue;
      try {
        const note = file.restore();
        say(file, `${file.name} ${problem}; voxd wrote it again${note ? ` (${note})` : ''}`);
      } catch (err) {
        say(file, `${file.name} ${problem}, and voxd cannot write it again: ${(err as Error).message}`);
      }
    }
  };
  const names = new Set(files.map((f) => f.name));
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, { persistent: false }, (_event, name) => {
      // A burst of events is one check, soon after.
      if (name === null || names.has(String(name))) pending ??= setTimeout(check, 50).unref();
    });
    watcher.on('error', () => watcher?.close());
  } catch {
    // no watching here: the timer alone
  }
  const timer = setInterval(check, CHECK_MS).unref();
  current = {
    stop() {
      clearInterval(timer);
      if (pending) clearTimeout(pending);
      watcher?.close();
      current = undefined;
    },
  };
}

/** Stop keeping (at shutdown, before voxd removes voxd.json). */
export function stopKeeping(): void {
  current?.stop();
}
