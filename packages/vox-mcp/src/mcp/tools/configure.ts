/** The configure tool: change this project's settings in .vox/config.md. */
import { PRIORITIES } from '@vox/protocol';
import { str, strings, type InputSchema, type JsonType } from '../schema.js';
import { toolError, toolResult, type McpTool, type Structured } from '../tool.js';

/** The configure tool's input: every config key, from the config schema, with null meaning "back to the default". */
async function configureInput(): Promise<InputSchema> {
  const { SCHEMA, CONFIG_KEYS, ENGINES, NOTIFY_MODES, DEFAULTS, PERSON_ONLY_KEYS } =
    await import('../../project/config-schema.js');
  const enums: Record<string, readonly string[]> = { engine: ENGINES, notify: NOTIFY_MODES, priority: PRIORITIES };
  const properties: Record<string, InputSchema> = {};
  // approveByVoice is a person's choice: the model cannot turn on voice answers to its own prompts.
  for (const key of CONFIG_KEYS.filter((k) => !PERSON_ONLY_KEYS.includes(k))) {
    const rule = SCHEMA[key];
    const base: JsonType[] = rule.type === 'boolean or string' ? ['boolean', 'string'] : [rule.type as JsonType];
    const def = DEFAULTS[key];
    properties[key] = {
      type: [...base, 'null'],
      ...(enums[key] ? { enum: [...enums[key]!, null] } : {}),
      description: `${rule.allowed}; null resets it to the default (${def === undefined ? 'unset' : JSON.stringify(def)}).`,
    };
  }
  return { type: 'object', properties, additionalProperties: false };
}

const CONFIGURE_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    file: { ...str, description: 'The .vox/config.md written.' },
    set: { type: 'object', description: 'The settings changed, with their new values.' },
    reset: { ...strings, description: 'The settings removed from the file: back to their defaults.' },
  },
  required: ['file'],
};

export const configure: McpTool = {
  name: 'configure',
  description:
    'Change this project\'s speech settings in .vox/config.md (found by walking up from the working directory; created here if there is none). Give only the keys to change, e.g. {"voice": "en-gb", "rate": 190}; null resets a key to its default. The file\'s other keys, comments and text are kept. Applies to the next speak call of every session in this project.',
  input: configureInput,
  output: CONFIGURE_OUTPUT,
  check: false,
  async run(args, ctx) {
    const keys = Object.keys(args);
    const { CONFIG_KEYS, PERSON_ONLY_KEYS } = await import('../../project/config-schema.js');
    const personal = keys.filter((k) => (PERSON_ONLY_KEYS as readonly string[]).includes(k));
    if (personal.length)
      return toolError(
        `${personal.join(', ')} is the user's to set, not the model's: they set it in .vox/config.md themselves (docs/talk-back.md).`,
      );
    if (keys.length === 0)
      return toolError(`Give at least one setting to change, e.g. {"rate": 190}. Settings: ${CONFIG_KEYS.join(', ')}.`);
    const { setConfigValues } = await import('../../project/config-writer.js');
    const config = await setConfigValues(ctx.cwd, args);
    const set: Structured = {};
    const reset: string[] = [];
    for (const k of keys) {
      if (args[k] === null) reset.push(k);
      else set[k] = config.values[k as keyof typeof config.values];
    }
    const out: Structured = { file: config.file };
    if (Object.keys(set).length) out.set = set;
    if (reset.length) out.reset = reset;
    return toolResult(out);
  },
};
