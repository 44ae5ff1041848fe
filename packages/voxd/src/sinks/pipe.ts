/** Writing PCM into a player child's stdin without ever waiting on a pipe that is gone. */
import type { Writable } from 'node:stream';

/**
 * Write `chunk`, waiting for `drain` when the pipe is full. Resolves false when
 * the child is gone (its stdin closed or errored, or `exited` settled) or the
 * signal aborted: a player that dies before the first chunk must not leave the
 * play loop waiting for a `drain` that never comes.
 */
export async function writeTo(
  stdin: Writable,
  chunk: Buffer,
  exited: Promise<unknown>,
  signal: AbortSignal,
): Promise<boolean> {
  if (signal.aborted || stdin.destroyed || !stdin.writable) return false;
  if (stdin.write(chunk)) return true;
  let cleanup = () => {};
  const drained = new Promise<boolean>((resolve) => {
    const onDrain = () => resolve(true);
    const onGone = () => resolve(false);
    cleanup = () => {
      stdin.off('drain', onDrain);
      stdin.off('close', onGone);
      stdin.off('error', onGone);
      signal.removeEventListener('abort', onGone);
    };
    stdin.once('drain', onDrain);
    stdin.once('close', onGone);
    stdin.once('error', onGone);
    signal.addEventListener('abort', onGone, { once: true });
  });
  try {
    return await Promise.race([
      drained,
      exited.then(
        () => false,
        () => false,
      ),
    ]);
  } finally {
    cleanup();
  }
}
