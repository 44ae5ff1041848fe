/** `vox voices [--engine E] [--language L] [--json]`: list voices. */
import { parseArgs } from 'node:util';
import type { VoicesResponse } from '@vox/protocol';
import { call } from '../client.js';
import { EXIT, type CliContext } from '../context.js';
import { reportThrown, reportWireError } from '../report.js';

const USAGE = `Usage: vox voices [--engine NAME] [--language CODE] [--json]
`;

export async function run(ctx: CliContext): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: ctx.argv,
      options: { engine: { type: 'string' }, language: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    ctx.stderr.write(`vox voices: ${(err as Error).message}\n${USAGE}`);
    return EXIT.USAGE;
  }
  if (values.help) {
    ctx.stdout.write(USAGE);
    return EXIT.OK;
  }
  try {
    const q = values.engine ? `?engine=${encodeURIComponent(values.engine)}` : '';
    const reply = await call<VoicesResponse>(ctx.env, 'GET', `/v1/voices${q}`);
    if (reply.status !== 200) return reportWireError(ctx, 'voices', reply.status, reply.body);
    const lang = values.language?.toLowerCase();
    const voices = reply.body.voices.filter((v) => !lang || v.languages.some((l) => l.toLowerCase().startsWith(lang)));
    if (values.json) ctx.stdout.write(`${JSON.stringify({ engine: reply.body.engine, voices })}\n`);
    else for (const v of voices) ctx.stdout.write(`${v.id.padEnd(28)} ${v.name}${v.languages.length ? `  (${v.languages.join(', ')})` : ''}\n`);
    return EXIT.OK;
  } catch (err) {
    return reportThrown(ctx, 'voices', err);
  }
}
