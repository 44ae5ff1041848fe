/**
 * `vox logs [-f] [-n N] [--json]`: voxd's log, VOX_HOME/logs/voxd.log.
 *
 * Design notes:
 * - voxd writes pino JSON lines and rotates the file by size with
 *   rotating-file-stream: `voxd.log` is renamed to `YYYYMMDD-HHMM-NN-voxd.log`
 *   and a new `voxd.log` is started. So the last N lines may span the current
 *   file and the newest rotated ones, and following must notice the rename.
 * - Following polls (stat every 250 ms) instead of fs.watch: it behaves the same
 *   on every platform and file system, sees a rename as a new inode, and drains
 *   the old file before switching, so no line is lost or printed twice.
 * - Human output is `time level msg key=value...`, with the fields that tell
 *   requests apart first (id, session, priority, status, outcome, reason,
 *   engine, err). `--json` prints the lines exactly as voxd wrote them.
 *   voxd redacts secrets before writing; nothing here adds any.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { homePaths, printable, printableJson, voxHome } from '@vox/protocol';
import { EXIT, type CliContext } from '../context.js';
import { defineCommand } from '../command.js';

export const LOGS_USAGE = `Usage: vox logs [-f] [-n N] [--json]

Prints the last lines of voxd's log (VOX_HOME/logs/voxd.log, and the newest
rotated files when it holds fewer), one event a line:
  2026-11-30 12:00:01.234 INFO  utterance settled id=88e176c0 session=shop#3c07f0 outcome=played

Options:
  -n, --lines N    how many lines (default 50; 0 with -f shows only new ones)
  -f, --follow     keep printing new lines as voxd writes them, across
                   log rotation (Ctrl-C to stop)
  --json           print the raw JSON lines as voxd wrote them
  -h, --help       show this help

Times are local. Exit codes: 0 ok (also when there is no log yet); 2 bad usage.
`;

export const LOG_FILE = 'voxd.log';
/** rotating-file-stream's names for rotated files: `YYYYMMDD-HHMM-NN-voxd.log`. */
const ROTATED = /^(\d{8}-\d{4})-(\d+)-voxd\.log$/;

/** Rotated log files in `dir`, oldest first. */
export function rotatedFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, m: ROTATED.exec(name) }))
    .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => (a.m[1]! < b.m[1]! ? -1 : a.m[1]! > b.m[1]! ? 1 : Number(a.m[2]) - Number(b.m[2])))
    .map((x) => join(dir, x.name));
}

const BLOCK = 64 * 1024;

/**
 * The last `n` lines of the first `end` bytes of a file, reading backwards.
 * A last line without its newline counts unless `completeOnly`.
 */
export function lastLines(path: string, n: number, options: { end?: number; completeOnly?: boolean } = {}): string[] {
  if (n <= 0) return [];
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  try {
    let pos = options.end ?? fstatSync(fd).size;
    const blocks: Buffer[] = [];
    let newlines = 0;
    while (pos > 0 && newlines <= n) {
      const size = Math.min(BLOCK, pos);
      pos -= size;
      const buf = Buffer.alloc(size);
      readSync(fd, buf, 0, size, pos);
      for (const b of buf) if (b === 10) newlines++;
      blocks.push(buf);
    }
    let text = Buffer.concat(blocks.reverse()).toString('utf8');
    if (options.completeOnly) {
      const cut = text.lastIndexOf('\n');
      text = cut < 0 ? '' : text.slice(0, cut + 1);
    }
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    // The first piece may be the end of a line cut by the block boundary.
    if (pos > 0) lines.shift();
    return lines.slice(-n);
  } finally {
    closeSync(fd);
  }
}

/** The last `n` lines across the current log (up to `end`) and the newest rotated files. */
export function tailLog(dir: string, n: number, end?: number, completeOnly = false): string[] {
  const lines = lastLines(join(dir, LOG_FILE), n, { ...(end !== undefined ? { end } : {}), completeOnly });
  const older = rotatedFiles(dir);
  while (lines.length < n && older.length) {
    lines.unshift(...lastLines(older.pop()!, n - lines.length));
  }
  return lines;
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields shown first, in this order. */
const KEY_FIELDS = ['id', 'session', 'priority', 'status', 'outcome', 'reason', 'engine', 'err'];
/** pino's own fields, shown elsewhere in the line or not at all. */
const SKIP = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'reqId', 'v']);

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Local time as `YYYY-MM-DD HH:MM:SS.mmm`. */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

function showValue(key: string, value: unknown): string {
  if (key === 'err' && value && typeof value === 'object') {
    const e = value as { message?: unknown; type?: unknown; code?: unknown };
    const text = [e.code, e.message ?? e.type].filter((x) => typeof x === 'string' && x).join(': ');
    return showValue('', text || JSON.stringify(value));
  }
  let s: string;
  if (typeof value === 'string') s = value;
  else {
    try {
      s = JSON.stringify(value) ?? String(value);
    } catch {
      s = String(value);
    }
  }
  if (s.length > 300) s = `${s.slice(0, 297)}...`;
  return typeof value === 'string' && (s === '' || /[\s="]/.test(s)) ? JSON.stringify(s) : s;
}

/** One log line, human-readable. Lines that are not pino JSON come back as they are. */
export function formatLine(line: string): string {
  let rec: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return line;
    rec = parsed as Record<string, unknown>;
  } catch {
    return line;
  }
  const level =
    typeof rec.level === 'number' ? (LEVELS[rec.level] ?? String(rec.level)) : String(rec.level ?? '-').toUpperCase();
  const time = typeof rec.time === 'number' ? formatTime(rec.time) : typeof rec.time === 'string' ? rec.time : '-';
  const parts = [time, level.padEnd(5), typeof rec.msg === 'string' ? rec.msg : ''];
  const keys = [
    ...KEY_FIELDS.filter((k) => k in rec),
    ...Object.keys(rec).filter((k) => !SKIP.has(k) && !KEY_FIELDS.includes(k)),
  ];
  for (const k of keys) {
    if (rec[k] === undefined || rec[k] === null) continue;
    parts.push(`${k}=${showValue(k, rec[k])}`);
  }
  return parts.filter(Boolean).join(' ');
}

export interface FollowOptions {
  /** Byte offset in the current file to start from; default its end. */
  from?: number;
  /** Poll interval in ms. Default 250. */
  intervalMs?: number;
  /** Stops following. */
  signal?: AbortSignal;
}

/**
 * Calls `onLine` with each complete line appended to `path`, across rotation
 * (a rename and a new file) and truncation, until `signal` aborts. Resolves then.
 */
export function follow(path: string, onLine: (line: string) => void, options: FollowOptions = {}): Promise<void> {
  const intervalMs = options.intervalMs ?? 250;
  let fd: number | undefined;
  let ino: number | undefined;
  let pos = 0;
  let partial = '';

  const open = (from: number | undefined): void => {
    try {
      fd = openSync(path, 'r');
    } catch {
      fd = undefined;
      return;
    }
    const st = fstatSync(fd);
    ino = st.ino;
    pos = from === undefined ? st.size : Math.min(from, st.size);
    partial = '';
  };
  const drain = (): void => {
    if (fd === undefined) return;
    const size = fstatSync(fd).size;
    if (size < pos) {
      // Truncated in place: start over.
      pos = 0;
      partial = '';
    }
    while (pos < size) {
      const buf = Buffer.alloc(Math.min(BLOCK, size - pos));
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) break;
      pos += n;
      partial += buf.subarray(0, n).toString('utf8');
      let i;
      while ((i = partial.indexOf('\n')) !== -1) {
        onLine(partial.slice(0, i));
        partial = partial.slice(i + 1);
      }
    }
  };
  const tick = (): void => {
    if (fd === undefined) {
      open(0);
      drain();
      return;
    }
    drain();
    let current: number | undefined;
    try {
      current = statSync(path).ino;
    } catch {
      current = undefined;
    }
    if (current !== ino) {
      // Rotated: the old file is drained above; what voxd writes now is in the new one.
      if (partial) onLine(partial);
      closeSync(fd);
      fd = undefined;
      if (current !== undefined) {
        open(0);
        drain();
      }
    }
  };

  open(options.from);
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      try {
        tick();
      } catch {
        // A file that vanished between calls: the next tick looks again.
      }
    }, intervalMs);
    const stop = () => {
      clearInterval(timer);
      try {
        tick();
      } catch {
        // best effort
      }
      if (fd !== undefined) closeSync(fd);
      resolve();
    };
    if (options.signal?.aborted) stop();
    else options.signal?.addEventListener('abort', stop, { once: true });
  });
}

export const command = defineCommand({
  name: 'logs',
  usage: LOGS_USAGE,
  flags: {
    follow: { type: 'boolean', short: 'f' },
    lines: { type: 'number', short: 'n', integer: true, min: 0 },
    json: { type: 'boolean' },
  },
  async run({ ctx, flags: values }) {
    const n = values.lines ?? 50;
    // `vox logs -f | head`: a closed pipe ends the command quietly instead of crashing it.
    const closed = new AbortController();
    ctx.stdout.on('error', () => closed.abort());
    // Ctrl-C, SIGTERM or SIGHUP ends a follow like a closed pipe, exit 0; taken before the first line is out.
    if (values.follow) ctx.takeSignals?.().addEventListener('abort', () => closed.abort(), { once: true });
    const dir = homePaths(voxHome(ctx.env)).logs;
    const path = join(dir, LOG_FILE);
    const print = (line: string) => {
      if (!closed.signal.aborted)
        ctx.stdout.write(`${values.json ? printableJson(line) : printable(formatLine(line))}\n`);
    };

    let size: number | undefined;
    try {
      size = statSync(path).size;
    } catch {
      size = undefined;
    }
    if (size === undefined && rotatedFiles(dir).length === 0) {
      ctx.stderr.write(
        `vox logs: no log at ${path} yet; voxd writes it once it runs${values.follow ? ' (waiting for it)' : ''}\n`,
      );
      if (!values.follow) return EXIT.OK;
    }
    for (const line of tailLog(dir, n, size, values.follow === true)) print(line);
    if (!values.follow) return EXIT.OK;
    // Start right after the last complete line shown, so nothing is skipped or repeated.
    await follow(path, print, { from: size === undefined ? 0 : completeEnd(path, size), signal: closed.signal });
    return EXIT.OK;
  },
});
export const run = command.run;

/** Byte offset just after the last newline within the first `size` bytes. */
function completeEnd(path: string, size: number): number {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return 0;
  }
  try {
    let pos = size;
    while (pos > 0) {
      const len = Math.min(BLOCK, pos);
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, pos - len);
      const i = buf.lastIndexOf(10);
      if (i !== -1) return pos - len + i + 1;
      pos -= len;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}
