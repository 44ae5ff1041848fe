/** The voices tool: the voices of the project's engine, a page at a time. */
import type { VoicesResponse, WireError } from '@vox/protocol';
import { show, str, strings, type InputSchema } from '../schema.js';
import { toolError, toolResult, wireErrorResult, type McpTool, type Structured } from '../tool.js';

const VOICES_INPUT: InputSchema = {
  type: 'object',
  properties: {
    language: {
      type: 'string',
      minLength: 1,
      maxLength: 35,
      description: 'Only voices for this language code or its prefix, e.g. "en" or "en-gb".',
    },
    limit: { type: 'integer', minimum: 1, maximum: 200, description: 'Voices per page (default 40).' },
    cursor: { type: 'string', minLength: 1, maxLength: 20, description: 'The nextCursor of the previous page.' },
  },
  additionalProperties: false,
};

/** Voices per page, unless the call asks for another limit. */
const VOICES_PAGE = 40;

const VOICES_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    engine: str,
    total: { type: 'integer', description: 'How many voices match, on every page.' },
    voices: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: str, name: str, languages: strings },
        required: ['id', 'name', 'languages'],
      },
    },
    nextCursor: { ...str, description: 'Pass as cursor for the next page; absent on the last page.' },
  },
  required: ['engine', 'total', 'voices'],
};

export const voices: McpTool = {
  name: 'voices',
  description:
    "List the voices the project's speech engine offers (ids to use as speak's voice or configure's voice), a page at a time; give a language to narrow the list.",
  input: VOICES_INPUT,
  output: VOICES_OUTPUT,
  readOnly: true,
  async run(args, ctx) {
    const { config } = await ctx.context();
    const engine = config.values.engine !== 'auto' ? config.values.engine : undefined;
    const reply = await ctx.call<VoicesResponse | WireError>(
      'GET',
      `/v1/voices${engine ? `?engine=${encodeURIComponent(engine)}` : ''}`,
    );
    if (reply.status !== 200) return wireErrorResult(reply.status, reply.body);
    const body = reply.body as VoicesResponse;
    const lang = (args.language as string | undefined)?.toLowerCase();
    const list = body.voices.filter((v) => !lang || v.languages.some((l) => l.toLowerCase().startsWith(lang)));
    const limit = (args.limit as number | undefined) ?? VOICES_PAGE;
    const cursor = args.cursor as string | undefined;
    const from = cursor === undefined ? 0 : /^\d{1,6}$/.test(cursor) ? Number(cursor) : -1;
    if (from < 0 || (cursor !== undefined && from >= list.length)) {
      return toolError(
        `Invalid cursor ${show(cursor)}: pass the nextCursor of the previous voices result, or no cursor for the first page.`,
      );
    }
    const page = list.slice(from, from + limit).map((v) => ({ id: v.id, name: v.name, languages: v.languages }));
    const out: Structured = { engine: body.engine, total: list.length, voices: page };
    if (from + limit < list.length) out.nextCursor = String(from + limit);
    return toolResult(out);
  },
};
