/** The record tool: save speech as a WAV file instead of playing it. */
import { str, type InputSchema } from '../schema.js';
import { speechOverrides, toolError, toolResult, wireErrorResult, type McpTool } from '../tool.js';
import { SPEAK_INPUT, TEXT } from './speak.js';

const RECORD_INPUT: InputSchema = {
  type: 'object',
  properties: {
    text: { ...TEXT, description: 'What to say, as plain sentences.' },
    path: {
      type: 'string',
      minLength: 1,
      maxLength: 4096,
      description:
        "Where to save the WAV file; a relative path is resolved against this session's working directory. Missing directories are created; an existing file is replaced.",
    },
    voice: SPEAK_INPUT.properties!.voice!,
    rate: SPEAK_INPUT.properties!.rate!,
  },
  required: ['text', 'path'],
  additionalProperties: false,
};

/**
 * Creates the missing directories above `file`, one level at a time.
 * Not `mkdirSync(dir, { recursive: true })`: on Node 20 that never returns for
 * a path under /proc (it retries ENOENT forever), and the path comes from the model.
 */
async function makeParents(file: string): Promise<void> {
  const { existsSync, mkdirSync } = await import('node:fs');
  const { dirname } = await import('node:path');
  const missing: string[] = [];
  for (let dir = dirname(file); !existsSync(dir); dir = dirname(dir)) {
    if (dirname(dir) === dir) break;
    missing.unshift(dir);
  }
  for (const dir of missing) mkdirSync(dir);
}

const RECORD_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    path: str,
    bytes: { type: 'integer' },
    seconds: { type: 'number', description: 'Length of the audio.' },
  },
  required: ['path', 'bytes'],
};

export const record: McpTool = {
  name: 'record',
  description:
    "Save speech as a WAV file instead of playing it, with this project's voice and pronunciations. Returns the file's path, size and duration.",
  input: RECORD_INPUT,
  output: RECORD_OUTPUT,
  async run(args, ctx) {
    const { config, session } = await ctx.context();
    const { synthesizeWav, wavSeconds } = await import('../../client/recording.js');
    const overrides = speechOverrides(args);
    const result = await synthesizeWav(ctx.env, args.text as string, config, session, overrides);
    if ('error' in result) return wireErrorResult(result.error.statusCode, result.error);
    const { renameSync, writeFileSync, rmSync } = await import('node:fs');
    const { resolve } = await import('node:path');
    const path = resolve(ctx.cwd, args.path as string);
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      await makeParents(path);
      writeFileSync(tmp, result.wav);
      renameSync(tmp, path);
    } catch (err) {
      rmSync(tmp, { force: true });
      return toolError(
        `Cannot save ${path}: ${(err as Error).message}. Choose a path in a directory you can write to.`,
      );
    }
    const seconds = wavSeconds(result.wav);
    return toolResult({
      path,
      bytes: result.wav.length,
      ...(seconds === undefined ? {} : { seconds: Math.round(seconds * 100) / 100 }),
    });
  },
};
