/**
 * voxd's log: pino JSON lines in VOX_HOME/logs/voxd.log, rotated by size
 * (rotating-file-stream, in-process: no transport worker to pay for), through
 * a LogStream that bounds what waits for the disk (log-stream.ts).
 * Secrets are redacted by path; request bodies are never logged.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type * as Rfs from 'rotating-file-stream';
import { LogStream } from './log-stream.js';

// Its CommonJS build: there its `zlib` (for compressed rotations, which voxd does not ask for) can be a
// stand-in (lazy-requires.ts); the ES build's import of zlib loaded it, 1 MB of private memory, 3 MB of RSS.
const { createStream } = createRequire(import.meta.url)('rotating-file-stream') as typeof Rfs;

export interface LoggerOptions {
  dir: string;
  level?: string;
  /** Rotate after this size. Default 5 MB, 5 files kept. */
  size?: string;
  maxFiles?: number;
  /** Bytes of log lines that may wait for the disk before new lines are dropped (and counted). Default 1 MiB. */
  buffer?: number;
}

export function createLogger(options: LoggerOptions): Logger {
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  const file = createStream('voxd.log', {
    path: options.dir,
    size: options.size ?? '5M',
    maxFiles: options.maxFiles ?? 5,
  });
  const stream = new LogStream(file, { limit: options.buffer, base: { pid: process.pid } });
  return pino(
    {
      level: options.level ?? 'info',
      base: { pid: process.pid },
      redact: { paths: ['req.headers.authorization', 'apiKey', '*.apiKey', 'token', '*.token'], censor: '[redacted]' },
    },
    stream,
  );
}

const PINO_LEVELS = { fatal: 60, error: 50, warn: 40, info: 30 } as const;

/**
 * Append one pino-shaped line to voxd.log synchronously. For what voxd says
 * while it starts or just before it exits: pino's stream writes later, and
 * process.exit would drop the line. Never throws.
 */
export function appendStartupLog(dir: string, level: keyof typeof PINO_LEVELS, msg: string, extra: object = {}): void {
  try {
    appendFileSync(
      join(dir, 'voxd.log'),
      `${JSON.stringify({ level: PINO_LEVELS[level], time: Date.now(), pid: process.pid, ...extra, msg })}\n`,
      { mode: 0o600 },
    );
  } catch {
    // The log is best effort here; stderr carries the message too.
  }
}
