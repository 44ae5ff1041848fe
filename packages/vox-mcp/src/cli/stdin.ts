/**
 * Reading stdin with a bound: Claude Code does not always close a hook's
 * stdin, and `vox say` must never block on a terminal.
 */
import type { Readable } from 'node:stream';

export interface ReadOptions {
  /** Give up if nothing arrives within this many ms. */
  firstByteMs: number;
  /** Stop once data has started and nothing more arrives for this many ms. */
  idleMs: number;
  /** Stop after this many bytes. */
  maxBytes: number;
  /** Stop as soon as the bytes read so far parse as JSON (hook payloads). */
  untilJson?: boolean;
  /** Stop after this many ms in all, for a writer that trickles without ever finishing. Default: no bound. */
  totalMs?: number;
}

export function readStdin(stdin: Readable, options: ReadOptions): Promise<string> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout;
    const cap = options.totalMs === undefined ? undefined : setTimeout(() => finish(), options.totalMs);
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(cap);
      stdin.off('data', onData);
      stdin.off('end', finish);
      stdin.off('error', finish);
      stdin.pause();
      // An open pipe would keep the process alive.
      (stdin as Readable & { unref?: () => void }).unref?.();
      if (typeof (stdin as { destroy?: () => void }).destroy === 'function' && stdin !== process.stdin) stdin.destroy();
      resolve(Buffer.concat(parts).toString('utf8'));
    };
    const arm = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(finish, ms);
    };
    const onData = (d: Buffer | string) => {
      const b = typeof d === 'string' ? Buffer.from(d) : d;
      parts.push(b);
      size += b.length;
      if (size >= options.maxBytes) return finish();
      if (options.untilJson) {
        try {
          JSON.parse(Buffer.concat(parts).toString('utf8'));
          return finish();
        } catch {
          // incomplete: keep reading
        }
      }
      arm(options.idleMs);
    };
    arm(options.firstByteMs);
    stdin.on('data', onData);
    stdin.once('end', finish);
    stdin.once('error', finish);
    stdin.resume();
  });
}
