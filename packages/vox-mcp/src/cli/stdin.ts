/**
 * Reading stdin with a bound: Claude Code does not always close a hook's
 * stdin, and `vox say` must never block on a terminal.
 */
import type { Readable } from 'node:stream';
import type { ScanResult } from './json-object-scan.js';

export interface ReadOptions {
  /** Give up if nothing arrives within this many ms. */
  firstByteMs: number;
  /** Stop once data has started and nothing more arrives for this many ms. */
  idleMs: number;
  /** Stop after this many bytes. */
  maxBytes: number;
  /** Stop after this many ms in all, for a writer that trickles without ever finishing. Default: no bound. */
  totalMs?: number;
  /**
   * Sees each chunk as it arrives (only its bytes within maxBytes): `end` keeps
   * that many of its bytes and stops, `refused` stops at once (a hook payload:
   * json-object-scan.ts). Runs once per chunk, so it must take time linear in the chunk.
   */
  scan?: (chunk: Buffer) => ScanResult;
}

/**
 * Why reading stopped: the writer closed (`end`), nothing came (`silent`),
 * nothing more came (`idle`), the time ran out (`total`), maxBytes were read
 * (`max`), or the scan found the end (`complete`) or refused (`refused`).
 */
export type StdinStop = 'end' | 'silent' | 'idle' | 'total' | 'max' | 'complete' | 'refused';

export interface StdinRead {
  bytes: Buffer;
  stop: StdinStop;
  /** The scan's reason, when it refused. */
  refused?: string;
}

/** The text read with these bounds (`vox say`). */
export async function readStdin(stdin: Readable, options: ReadOptions): Promise<string> {
  return (await readBounded(stdin, options)).bytes.toString('utf8');
}

/** Reads until a bound stops it, then lets go of stdin (it never keeps the process alive). */
export function readBounded(stdin: Readable, options: ReadOptions): Promise<StdinRead> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout;
    const cap = options.totalMs === undefined ? undefined : setTimeout(() => finish('total'), options.totalMs);
    const finish = (stop: StdinStop, refused?: string) => {
      clearTimeout(timer);
      clearTimeout(cap);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onEnd);
      stdin.pause();
      // An open pipe would keep the process alive.
      (stdin as Readable & { unref?: () => void }).unref?.();
      if (typeof (stdin as { destroy?: () => void }).destroy === 'function' && stdin !== process.stdin) stdin.destroy();
      resolve({ bytes: Buffer.concat(parts, size), stop, ...(refused === undefined ? {} : { refused }) });
    };
    const onEnd = () => finish('end');
    const arm = (ms: number, stop: StdinStop) => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(stop), ms);
    };
    const onData = (d: Buffer | string) => {
      let b = typeof d === 'string' ? Buffer.from(d) : d;
      if (options.scan) {
        const room = options.maxBytes - size;
        const over = b.length > room;
        if (over) b = b.subarray(0, room);
        const scanned = options.scan(b);
        if (scanned && 'end' in scanned) {
          parts.push(b.subarray(0, scanned.end));
          size += scanned.end;
          return finish('complete');
        }
        if (scanned) return finish('refused', scanned.refused);
        parts.push(b);
        size += b.length;
        if (over || size >= options.maxBytes) return finish('max');
      } else {
        parts.push(b);
        size += b.length;
        if (size >= options.maxBytes) return finish('max');
      }
      arm(options.idleMs, 'idle');
    };
    arm(options.firstByteMs, 'silent');
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.once('error', onEnd);
    stdin.resume();
  });
}
