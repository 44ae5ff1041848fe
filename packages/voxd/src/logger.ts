/**
 * voxd's log: pino JSON lines in VOX_HOME/logs/voxd.log, rotated by size
 * (rotating-file-stream, in-process: no transport worker to pay for).
 * Secrets are redacted by path; request bodies are never logged.
 */
import { mkdirSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { createStream } from 'rotating-file-stream';

export interface LoggerOptions {
  dir: string;
  level?: string;
  /** Rotate after this size. Default 5 MB, 5 files kept. */
  size?: string;
  maxFiles?: number;
}

export function createLogger(options: LoggerOptions): Logger {
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  const stream = createStream('voxd.log', { path: options.dir, size: options.size ?? '5M', maxFiles: options.maxFiles ?? 5 });
  return pino(
    {
      level: options.level ?? 'info',
      base: { pid: process.pid },
      redact: { paths: ['req.headers.authorization', 'apiKey', '*.apiKey', 'token', '*.token'], censor: '[redacted]' },
    },
    stream,
  );
}
