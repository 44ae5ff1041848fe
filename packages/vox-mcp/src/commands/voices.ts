/** `vox voices [--engine E] [--language L] [--json]`: list voices. */
import type { VoicesResponse } from '@vox/protocol';
import { call } from '../client.js';
import { defineCommand } from '../command.js';
import { EXIT, type CliContext } from '../context.js';
import { reportThrown, reportWireError } from '../report.js';

const USAGE = `Usage: vox voices [--engine NAME] [--language CODE] [--json]

Lists the voices of voxd's default engine, or of the one named.
  --engine NAME     that engine's voices instead of the default engine's
  --language CODE   only voices for this language (a prefix: "en" matches en-GB)
  --json            print {engine, voices}
  -h, --help        show this help
`;

export const command = defineCommand({
  name: 'voices',
  usage: USAGE,
  flags: { engine: { type: 'string' }, language: { type: 'string' }, json: { type: 'boolean' } },
  async run({ ctx, flags: values }) {
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
  },
});
export const run = command.run;
