/**
 * `vox replay`: a recent utterance played again from the synthesis cache
 * (recall.ts keeps what rendered it; `cacheOnly` never synthesizes).
 * N counts back over the played utterances whose audio can be asked for
 * again (1: the last), of one session when one is named.
 */
import { randomUUID } from 'node:crypto';
import { VoxError } from '../errors.js';
import type { Admission, Admitted } from './admission.js';
import { REPLAY_KEY, type Recall } from './recall.js';

export async function playAgain(
  admission: Admission,
  recall: Recall,
  n: number,
  session?: string,
): Promise<Admitted & { of: string }> {
  const played = recall.replayable(session);
  const r = played[n - 1];
  if (!r?.engine || !r.sentences) {
    const kept = `${played.length} played utterance${played.length === 1 ? ' is' : 's are'} kept${session ? ` for session ${session}` : ''}`;
    throw new VoxError('VOX_ERR_REPLAY_NONE', String(n), kept);
  }
  // Its own duplicate key: asked for, it is never a duplicate. Not prepared again: the sentences as rendered.
  const text = r.sentences.join(' ');
  const admitted = await admission.speech(
    {
      text,
      priority: 'message',
      dedupKey: `${REPLAY_KEY}${randomUUID()}`,
      engine: r.engine,
      ...(r.voice ? { voice: r.voice } : {}),
      ...(r.rate !== undefined ? { rate: r.rate } : {}),
      ...(r.volume !== undefined ? { volume: r.volume } : {}),
      ...(r.model ? { model: r.model } : {}),
    },
    { prepared: { text, sentences: r.sentences }, cacheOnly: true },
  );
  return { ...admitted, of: r.id };
}
