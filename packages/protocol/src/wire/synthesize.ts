/** POST /v1/synthesize: the audio of a text as WAV, not played. */
import { sessionSchema as session } from './common.js';
import type { Agreed, SchemaAgrees } from './schema-type.js';
import { speakRequestSchema } from './speak.js';

export interface SynthesizeRequest {
  text: string;
  voice?: string;
  rate?: number;
  volume?: number;
  engine?: string;
  model?: string;
  apiKey?: string;
  maxChars?: number;
  session?: string;
}

export const synthesizeRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: {
    text: speakRequestSchema.properties.text,
    voice: speakRequestSchema.properties.voice,
    rate: speakRequestSchema.properties.rate,
    volume: speakRequestSchema.properties.volume,
    engine: speakRequestSchema.properties.engine,
    model: speakRequestSchema.properties.model,
    apiKey: speakRequestSchema.properties.apiKey,
    maxChars: speakRequestSchema.properties.maxChars,
    session,
  },
} as const;

/** Compiles only while SynthesizeRequest and its schema agree (schema-type.ts). */
type SynthesizeRequestChecked = Agreed<SchemaAgrees<SynthesizeRequest, typeof synthesizeRequestSchema>>;
