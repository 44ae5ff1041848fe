/**
 * ElevenLabs text to speech over the streaming endpoint
 * (`POST /v1/text-to-speech/{voice_id}/stream?output_format=pcm_22050`),
 * authenticated with the `xi-api-key` header.
 *
 * The default model is `eleven_flash_v2_5` (lowest latency). `eleven_v3` is the
 * one that performs bracketed tags such as `[excited]`, so only for it are
 * tags kept in the text. Voices may be given by id or by name; names are
 * looked up in the account's voices (`GET /v1/voices`, cached) and a built-in
 * list of premade voices that needs no network.
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

export const ELEVENLABS_MODELS = ['eleven_flash_v2_5', 'eleven_v3'] as const;
export const ELEVENLABS_DEFAULT_MODEL = 'eleven_flash_v2_5';
export const ELEVENLABS_TAG_MODELS: ReadonlySet<string> = new Set(['eleven_v3']);
export const ELEVENLABS_DEFAULT_BASE_URL = 'https://api.elevenlabs.io';
export const ELEVENLABS_KEY_NAME = engineKey('elevenlabs');
/** How long the account's voice list is trusted, in ms. */
export const ELEVENLABS_VOICES_TTL_MS = 10 * 60_000;

/** Premade voices, used when the account's list cannot be fetched. */
export const ELEVENLABS_FALLBACK_VOICES: ReadonlyArray<{ id: string; name: string }> = [
  { id: 'JBFqnCBsd6RMkjVDRZzb', name: 'George' },
  { id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel' },
  { id: 'EXAVITQu4vr4xnSDxMaL', name: 'Sarah' },
  { id: 'pNInz6obpgDQGcFmaJgB', name: 'Adam' },
  { id: 'ErXwobaYiN019PkySvjV', name: 'Antoni' },
  { id: 'AZnzlk1XvdvUeBnXmlld', name: 'Domi' },
  { id: 'MF3mGyEYCl7XYWbV9V6O', name: 'Elli' },
  { id: 'TxGEqnHWrfWFTfGW9XjX', name: 'Josh' },
  { id: 'VR6AewLTigWG4xSOukaG', name: 'Arnold' },
  { id: 'yoZ06aMxZJJ28mfd3POQ', name: 'Sam' },
  { id: 'nPczCjzI2devNBz1zQrb', name: 'Brian' },
  { id: 'onwK4e9ZLuTAKqWW03F9', name: 'Daniel' },
];
export const ELEVENLABS_DEFAULT_VOICE = 'JBFqnCBsd6RMkjVDRZzb';

export interface ElevenLabsEngineOptions {
  keys: KeySource;
  /** Read for ELEVENLABS_BASE_URL. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Client options (timeouts, retries), or a client to share. */
  http?: HttpClientOptions | HttpClient;
  /** PCM sample rate asked for: 22050 (default) or 24000. */
  sampleRate?: 22050 | 24000;
}

/** wpm → ElevenLabs `voice_settings.speed`, whose range is 0.7–1.2. */
export function rateToElevenSpeed(wpm: number | undefined): number | undefined {
  if (wpm === undefined || !Number.isFinite(wpm) || wpm <= 0) return undefined;
  return Math.round(Math.min(1.2, Math.max(0.7, wpm / NORMAL_RATE_WPM)) * 100) / 100;
}

interface ApiVoice {
  voice_id?: unknown;
  name?: unknown;
  labels?: { language?: unknown } | null;
  verified_languages?: Array<{ language?: unknown }> | null;
}

export class ElevenLabsEngine implements Engine {
  readonly name = 'elevenlabs';
  readonly baseUrl: string;
  readonly sampleRate: 22050 | 24000;
  #keys: KeySource;
  #http: HttpClient;
  #ownsHttp: boolean;
  #voices: { at: number; ttl: number; list: Voice[] } | undefined;
  #voicesLoading: Promise<Voice[]> | undefined;

  constructor(options: ElevenLabsEngineOptions) {
    this.#keys = options.keys;
    this.baseUrl = ((options.env ?? process.env).ELEVENLABS_BASE_URL || ELEVENLABS_DEFAULT_BASE_URL).replace(
      /\/+$/,
      '',
    );
    this.sampleRate = options.sampleRate ?? 22050;
    const { client, owned } = clientFrom(options.http);
    this.#http = client;
    this.#ownsHttp = owned;
  }

  async ready(): Promise<Readiness> {
    return this.#keys.get(ELEVENLABS_KEY_NAME)
      ? { ready: true }
      : { ready: false, reason: `${ELEVENLABS_KEY_NAME} is not set (environment or VOX_HOME/keys.env)` };
  }

  understandsTags(model?: string): boolean {
    return ELEVENLABS_TAG_MODELS.has(model ?? ELEVENLABS_DEFAULT_MODEL);
  }

  cacheParams(request: SynthesisRequest): Record<string, string | number | undefined> {
    return {
      endpoint: this.baseUrl,
      model: request.model ?? ELEVENLABS_DEFAULT_MODEL,
      voice: request.voice ?? ELEVENLABS_DEFAULT_VOICE,
      speed: rateToElevenSpeed(request.rate),
      format: this.#outputFormat(),
    };
  }

  /** The account's voices (cached), or the built-in list when there is no key or the call fails. */
  voices(signal?: AbortSignal): Promise<Voice[]> {
    const c = this.#voices;
    if (c && Date.now() - c.at < c.ttl) return Promise.resolve(c.list);
    this.#voicesLoading ??= this.#fetchVoices(signal).finally(() => {
      this.#voicesLoading = undefined;
    });
    return this.#voicesLoading;
  }

  async #fetchVoices(signal?: AbortSignal): Promise<Voice[]> {
    const key = this.#keys.get(ELEVENLABS_KEY_NAME);
    const fallback = ELEVENLABS_FALLBACK_VOICES.map((v) => ({ ...v, languages: ['en'], engine: this.name }));
    if (!key) return fallback;
    try {
      const body = await this.#http.json<{ voices?: ApiVoice[] }>({
        method: 'GET',
        url: `${this.baseUrl}/v1/voices`,
        headers: { 'xi-api-key': key },
        signal,
        secrets: [key],
      });
      const list: Voice[] = (body.voices ?? [])
        .filter((v) => typeof v.voice_id === 'string' && typeof v.name === 'string')
        .map((v) => ({
          id: v.voice_id as string,
          name: v.name as string,
          languages: languagesOf(v),
          engine: this.name,
        }));
      this.#voices = { at: Date.now(), ttl: ELEVENLABS_VOICES_TTL_MS, list };
      return list;
    } catch {
      // Retry the account list in a minute; meanwhile the premade voices work.
      this.#voices = { at: Date.now(), ttl: 60_000, list: fallback };
      return fallback;
    }
  }

  async synthesize(request: CloudSynthesisRequest): Promise<Synthesis> {
    const key = request.apiKey ?? this.#keys.get(ELEVENLABS_KEY_NAME);
    const hint = request.apiKey ? 'check the apiKey sent with the request' : `check ${ELEVENLABS_KEY_NAME}`;
    if (!key) throw new CloudError('auth', `no API key (set ${ELEVENLABS_KEY_NAME})`);
    const voiceId = await this.#voiceId(request.voice, request.signal);
    const speed = rateToElevenSpeed(request.rate);
    const res = await this.#http.request({
      method: 'POST',
      url: `${this.baseUrl}/v1/text-to-speech/${encodeURIComponent(voiceId)}/stream?output_format=${this.#outputFormat()}`,
      headers: { 'xi-api-key': key, 'content-type': 'application/json', accept: 'audio/pcm' },
      body: JSON.stringify({
        text: request.text,
        model_id: request.model ?? ELEVENLABS_DEFAULT_MODEL,
        ...(speed !== undefined ? { voice_settings: { speed } } : {}),
      }),
      signal: request.signal,
      secrets: [key],
      authHint: hint,
    });
    return {
      format: { sampleRate: this.sampleRate, channels: 1, bitDepth: 16 },
      chunks: pcmChunks(res.body, request.volume ?? 1),
    };
  }

  async close(): Promise<void> {
    if (this.#ownsHttp) await this.#http.close();
  }

  #outputFormat(): string {
    return `pcm_${this.sampleRate}`;
  }

  /** An id as is; a name from the premade list or the account's voices; else as given (the API will say). */
  async #voiceId(voice: string | undefined, signal?: AbortSignal): Promise<string> {
    if (!voice) return ELEVENLABS_DEFAULT_VOICE;
    if (/^[A-Za-z0-9]{20}$/.test(voice)) return voice;
    const want = voice.toLowerCase();
    const find = (list: ReadonlyArray<{ id: string; name: string }>) =>
      list.find((v) => v.name.toLowerCase() === want || v.name.toLowerCase().split(' - ')[0] === want)?.id;
    return find(ELEVENLABS_FALLBACK_VOICES) ?? find(await this.voices(signal)) ?? voice;
  }
}

function languagesOf(v: ApiVoice): string[] {
  const verified = (v.verified_languages ?? [])
    .map((l) => l.language)
    .filter((l): l is string => typeof l === 'string');
  if (verified.length) return [...new Set(verified)];
  return typeof v.labels?.language === 'string' ? [v.labels.language] : ['en'];
}
