/**
 * OpenAI text to speech (`POST /v1/audio/speech`), streamed as raw PCM
 * (`response_format: "pcm"`: 24 kHz s16le mono), so playback starts on the
 * first bytes.
 *
 * The default model is `tts-1`: the lowest latency, and notifications are
 * short. `gpt-4o-mini-tts` sounds better; ask for it with `model`. Neither
 * performs bracketed tags, so they are stripped before the text is sent.
 * Rate maps to `speed` (175 wpm = 1.0, clamped to 0.25–4). OpenAI has no
 * volume parameter, so volume is applied to the samples.
 */
import { engineKey, type Voice } from '@vox/protocol';
import type { KeySource } from '../access/keys.js';
import type { Engine, Readiness, Synthesis, SynthesisRequest } from './engine.js';
import {
  clientFrom,
  CloudError,
  NORMAL_RATE_WPM,
  pcmChunks,
  type CloudSynthesisRequest,
  type HttpClient,
  type HttpClientOptions,
} from './http.js';

export const OPENAI_MODELS = ['tts-1', 'gpt-4o-mini-tts'] as const;
export const OPENAI_DEFAULT_MODEL = 'tts-1';
export const OPENAI_VOICES = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'fable',
  'onyx',
  'nova',
  'sage',
  'shimmer',
  'verse',
] as const;
export const OPENAI_DEFAULT_VOICE = 'alloy';
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const OPENAI_SAMPLE_RATE = 24_000;
export const OPENAI_KEY_NAME = engineKey('openai');

export interface OpenAIEngineOptions {
  keys: KeySource;
  /** Read for OPENAI_BASE_URL. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Client options (timeouts, retries), or a client to share. */
  http?: HttpClientOptions | HttpClient;
}

/** wpm → OpenAI `speed`: 175 wpm is 1.0, clamped to 0.25–4. */
export function rateToSpeed(wpm: number | undefined): number {
  if (wpm === undefined || !Number.isFinite(wpm) || wpm <= 0) return 1;
  return Math.round(Math.min(4, Math.max(0.25, wpm / NORMAL_RATE_WPM)) * 100) / 100;
}

export class OpenAIEngine implements Engine {
  readonly name = 'openai';
  readonly baseUrl: string;
  #keys: KeySource;
  #http: HttpClient;
  #ownsHttp: boolean;

  constructor(options: OpenAIEngineOptions) {
    this.#keys = options.keys;
    this.baseUrl = ((options.env ?? process.env).OPENAI_BASE_URL || OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
    const { client, owned } = clientFrom(options.http);
    this.#http = client;
    this.#ownsHttp = owned;
  }

  async ready(): Promise<Readiness> {
    return this.#keys.get(OPENAI_KEY_NAME)
      ? { ready: true }
      : { ready: false, reason: `${OPENAI_KEY_NAME} is not set (environment or VOX_HOME/keys.env)` };
  }

  async voices(): Promise<Voice[]> {
    return OPENAI_VOICES.map((id) => ({
      id,
      name: id[0]!.toUpperCase() + id.slice(1),
      languages: ['en'],
      engine: this.name,
    }));
  }

  understandsTags(_model?: string): boolean {
    return false;
  }

  cacheParams(request: SynthesisRequest): Record<string, string | number | undefined> {
    return {
      endpoint: this.baseUrl,
      model: request.model ?? OPENAI_DEFAULT_MODEL,
      voice: request.voice ?? OPENAI_DEFAULT_VOICE,
      speed: rateToSpeed(request.rate),
      format: `pcm_${OPENAI_SAMPLE_RATE}`,
    };
  }

  async synthesize(request: CloudSynthesisRequest): Promise<Synthesis> {
    const key = request.apiKey ?? this.#keys.get(OPENAI_KEY_NAME);
    const hint = request.apiKey ? 'check the apiKey sent with the request' : `check ${OPENAI_KEY_NAME}`;
    if (!key) throw new CloudError('auth', `no API key (set ${OPENAI_KEY_NAME})`);
    const res = await this.#http.request({
      method: 'POST',
      url: `${this.baseUrl}/audio/speech`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'audio/pcm' },
      body: JSON.stringify({
        model: request.model ?? OPENAI_DEFAULT_MODEL,
        input: request.text,
        voice: request.voice ?? OPENAI_DEFAULT_VOICE,
        response_format: 'pcm',
        speed: rateToSpeed(request.rate),
      }),
      signal: request.signal,
      secrets: [key],
      authHint: hint,
    });
    return {
      format: { sampleRate: OPENAI_SAMPLE_RATE, channels: 1, bitDepth: 16 },
      chunks: pcmChunks(res.body, request.volume ?? 1),
    };
  }

  async close(): Promise<void> {
    if (this.#ownsHttp) await this.#http.close();
  }
}
