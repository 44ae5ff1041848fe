/**
 * Runs in its own process: `require('speaker')` aborts the whole process when
 * there is no sound card (SIGABRT, uncatchable), so voxd never loads it itself.
 * argv: `--probe` to check the device, or `<sampleRate>` to play s16le mono
 * PCM read from stdin. Exit 0 when the audio has drained.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const arg = process.argv[2] ?? '--probe';
const sampleRate = arg === '--probe' ? 22050 : Number(arg);

let Speaker: new (opts: object) => NodeJS.WritableStream & { on(ev: string, fn: (...a: unknown[]) => void): unknown };
try {
  Speaker = require('speaker');
} catch (err) {
  process.stderr.write(
    `the optional "speaker" module is not installed or failed to load: ${(err as Error).message.split('\n')[0]}\n`,
  );
  process.exit(3);
}

const speaker = new Speaker({ channels: 1, bitDepth: 16, sampleRate, signed: true });
speaker.on('error', (err) => {
  process.stderr.write(`speaker: ${(err as Error).message}\n`);
  process.exit(4);
});
speaker.on('close', () => process.exit(0));
if (arg === '--probe') {
  speaker.end(Buffer.alloc(441 * 2));
} else {
  process.stdin.pipe(speaker);
}
