/**
 * Turns text plus a session's resolved config into the request voxd gets:
 * pronunciations applied, the announce prefix added, the project's voice,
 * rate, engine and priority filled in, and a chime instead of speech when the
 * project set `speak: false`. Shared by `vox say`, `vox hook` and `vox mcp`,
 * so the three speak alike.
 */
import {
  applyPronunciations,
  type ChimeRequest,
  type ChimeSignal,
  type Priority,
  type SpeakRequest,
} from '@vox/protocol';
import type { ResolvedConfig } from './config-schema.js';
import { announceLabel } from './config.js';

export interface SpeechOverrides {
  voice?: string;
  rate?: number;
  volume?: number;
  once?: number;
  dedupKey?: string;
  priority?: Priority;
  maxAgeMs?: number;
  engine?: string;
  model?: string;
  wait?: boolean;
  final?: boolean;
  /** The chime to play when the project is muted (`speak: false`). Default `done`. */
  chime?: ChimeSignal;
  /** The session's idle prompt: said once per wait (SpeakRequest.idlePrompt). */
  idlePrompt?: boolean;
  /** It needs the person (a failure): spoken from a background session too (SpeakRequest.needsPerson). */
  needsPerson?: boolean;
}

export type Delivery = { route: '/v1/speak'; body: SpeakRequest } | { route: '/v1/chime'; body: ChimeRequest };

export function buildDelivery(
  text: string,
  config: ResolvedConfig,
  session: string,
  o: SpeechOverrides = {},
): Delivery {
  const v = config.values;
  const priority = o.priority ?? v.priority;
  if (v.speak === false) {
    const volume = (o.volume ?? v.volume) * 0.5;
    return {
      route: '/v1/chime',
      body: { signal: o.chime ?? 'done', session, priority, volume, ...(o.wait ? { wait: true } : {}) },
    };
  }
  let spoken = applyPronunciations(text, config.pronunciations);
  const label = announceLabel(config);
  if (label) spoken = `${label}: ${spoken}`;
  const engine = o.engine ?? (v.engine !== 'auto' ? v.engine : undefined);
  const body: SpeakRequest = {
    text: spoken,
    session,
    priority,
    once: o.once ?? v.dedup,
    rate: o.rate ?? v.rate,
    volume: o.volume ?? v.volume,
  };
  const voice = o.voice ?? v.voice;
  if (voice !== undefined) body.voice = voice;
  if (engine !== undefined) body.engine = engine;
  const model = o.model ?? v.model;
  if (model !== undefined) body.model = model;
  if (v.maxChars !== undefined) body.maxChars = v.maxChars;
  // Dedup on what the caller said, not on this session's announce prefix or spellings.
  if (o.dedupKey !== undefined) body.dedupKey = o.dedupKey;
  else if (spoken !== text) body.dedupKey = text;
  if (o.maxAgeMs !== undefined) body.maxAgeMs = o.maxAgeMs;
  if (o.wait) body.wait = true;
  if (o.final) body.final = true;
  if (o.idlePrompt) body.idlePrompt = true;
  if (o.needsPerson) body.needsPerson = true;
  return { route: '/v1/speak', body };
}
