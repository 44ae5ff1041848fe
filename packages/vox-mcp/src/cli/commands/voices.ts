/**
 * `vox voices`: list voices (asks voxd), and manage the voice models in
 * VOX_HOME/models (`list`, `install`, `remove`: files only, voxd is not
 * needed; voxd picks an installed model up at its next request).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { printable, voxHome, type VoicesResponse } from '@vox/protocol';
import { ASR_MANIFEST, asrModelsDir, listModels, type ModelCheck } from '@vox/protocol/models';
import { call } from '../../client/call.js';
import { defineCommand, pickAction } from '../command.js';
import { EXIT, type CliContext } from '../context.js';
import { ClientError } from '../../errors.js';
import { catalogue, isRecognizer, shownUrl, type CatalogueEntry } from '../../models/catalogue.js';
import { assertVerifiable, installModel, removeModel } from '../../models/install.js';
import { reportWireError } from '../report.js';
import { UsageError } from '../usage.js';

const USAGE = `Usage: vox voices [--engine NAME] [--language CODE] [--json]
       vox voices list [--installed] [--json]
       vox voices install NAME [--from FILE] [--force] [--unverified] [--yes]
       vox voices remove NAME

Without an action, lists the voices of voxd's default engine, or of the one
named (with a voice model installed, its speakers).
  list              the voice models vox can install, and which are installed
  install NAME      download NAME, check its SHA-256 and unpack it into VOX_HOME/models/NAME
                    (a recognizer, e.g. whisper-tiny.en-int8, into VOX_HOME/asr/NAME: vox listen's offline speech to text)
  remove NAME       delete the installed model NAME
  --engine NAME     that engine's voices instead of the default engine's
  --language CODE   only voices for this language (a prefix: "en" matches en-GB)
  --installed       list: only the installed models (damaged ones say why)
  --from FILE       install: from this archive instead of downloading it
  --force           install: again, over an installed copy
  --unverified      install: even though vox pins no checksum for it
  --yes             install: accept a licence that is not free without asking
  --json            print JSON
  -h, --help        show this help
`;

const ACTIONS = ['list', 'install', 'remove'] as const;
const MB = 1024 * 1024;

export const command = defineCommand({
  name: 'voices',
  usage: USAGE,
  maxArgs: 2,
  flags: {
    engine: { type: 'string' },
    language: { type: 'string' },
    json: { type: 'boolean' },
    installed: { type: 'boolean' },
    from: { type: 'string' },
    force: { type: 'boolean' },
    unverified: { type: 'boolean' },
    yes: { type: 'boolean' },
  },
  async run({ ctx, flags, args }) {
    const action = args.length ? pickAction(args, ACTIONS) : undefined;
    const only = (allowed: string[]) => {
      for (const f of ['engine', 'language', 'installed', 'from', 'force', 'unverified', 'yes'] as const) {
        if (flags[f] !== undefined && !allowed.includes(f))
          throw new UsageError(`--${f} does not go with ${action ? `"voices ${action}"` : 'listing voices'}`);
      }
    };
    const name = () => {
      if (!args[1]) throw new UsageError(`"voices ${action}" needs a model NAME ("vox voices list" shows them)`);
      return args[1];
    };
    if (!action || action === 'list') {
      if (args.length > 1) throw new UsageError(`unexpected argument "${args[1]}"`);
    }
    try {
      if (action === 'list') {
        only(['installed']);
        return listCommand(ctx, flags.installed ?? false, flags.json ?? false);
      }
      if (action === 'install') {
        only(['from', 'force', 'unverified', 'yes']);
        return await installCommand(ctx, name(), flags);
      }
      if (action === 'remove') {
        only([]);
        return removeCommand(ctx, name(), flags.json ?? false);
      }
      only(['engine', 'language']);
      const q = flags.engine ? `?engine=${encodeURIComponent(flags.engine)}` : '';
      const reply = await call<VoicesResponse>(ctx.env, 'GET', `/v1/voices${q}`);
      if (reply.status !== 200) return reportWireError(ctx, 'voices', reply.status, reply.body);
      const lang = flags.language?.toLowerCase();
      const voices = reply.body.voices.filter(
        (v) => !lang || v.languages.some((l) => l.toLowerCase().startsWith(lang)),
      );
      if (flags.json) ctx.stdout.write(`${JSON.stringify({ engine: reply.body.engine, voices })}\n`);
      else
        for (const v of voices)
          ctx.stdout.write(
            `${v.id.padEnd(28)} ${v.name}${v.languages.length ? `  (${v.languages.join(', ')})` : ''}\n`,
          );
      return EXIT.OK;
    } catch (err) {
      // The model errors have exit codes of their own: 4 refused, 3 a download that failed (docs/cli.md).
      if (
        err instanceof ClientError &&
        err.code.startsWith('VOX_ERR_CLIENT_') &&
        err.code !== 'VOX_ERR_CLIENT_USAGE' &&
        !err.code.includes('DAEMON') &&
        err.code !== 'VOX_ERR_CLIENT_NOT_VOXD'
      ) {
        ctx.stderr.write(`vox voices: ${err.code}: ${printable(err.message)}\n`);
        return err.code === 'VOX_ERR_CLIENT_DOWNLOAD_FAILED' ? EXIT.UNREACHABLE : EXIT.REJECTED;
      }
      throw err; // reported as every command's (defineCommand)
    }
  },
});
export const run = command.run;

function findEntry(ctx: CliContext, name: string): CatalogueEntry {
  const entries = catalogue(ctx.env);
  const entry = entries.find((e) => e.name.toLowerCase() === name.toLowerCase());
  if (!entry)
    throw new ClientError(
      'VOX_ERR_CLIENT_MODEL_UNKNOWN',
      `no voice model "${printable(name.slice(0, 100))}" in the catalogue; known: ${entries.map((e) => e.name).join(', ')}`,
    );
  return entry;
}

function listCommand(ctx: CliContext, installedOnly: boolean, json: boolean): number {
  const home = voxHome(ctx.env);
  const installed = new Map<string, ModelCheck>(listModels(home).map((m) => [m.ok ? m.manifest.name : m.name, m]));
  const entries = catalogue(ctx.env);
  // An installed recognizer (VOX_HOME/asr) shows as installed; doctor's "recognizer" check looks deeper.
  const asr = new Set(
    entries
      .filter((e) => isRecognizer(e) && existsSync(join(asrModelsDir(home), e.name, ASR_MANIFEST)))
      .map((e) => e.name),
  );
  const rows = [
    ...entries.map((e) => ({ name: e.name, entry: e, check: installed.get(e.name) })),
    // Installed but not (or no longer) in the catalogue.
    ...[...installed]
      .filter(([n]) => !entries.some((e) => e.name === n))
      .map(([n, check]) => ({ name: n, entry: undefined, check })),
  ].filter((r) => !installedOnly || r.check || asr.has(r.name));
  if (json) {
    ctx.stdout.write(
      `${JSON.stringify({
        models: rows.map((r) => ({
          name: r.name,
          installed: r.check?.ok ?? asr.has(r.name),
          ...(r.check && !r.check.ok ? { damaged: r.check.reason } : {}),
          ...(r.entry
            ? {
                title: r.entry.title,
                url: r.entry.url,
                sizeMB: r.entry.sizeMB,
                sha256: r.entry.sha256,
                licence: r.entry.licence,
                free: r.entry.free,
                languages: r.entry.languages,
              }
            : {}),
          speakers: (r.check?.ok ? r.check.manifest.speakers : (r.entry?.speakers ?? [])).map((s) => s.id),
        })),
      })}\n`,
    );
    return EXIT.OK;
  }
  if (rows.length === 0) {
    ctx.stdout.write(
      installedOnly
        ? 'No voice model is installed. "vox voices list" shows the ones vox can install.\n'
        : 'The catalogue is empty.\n',
    );
    return EXIT.OK;
  }
  for (const r of rows) {
    const state = r.check ? (r.check.ok ? 'installed' : 'damaged') : asr.has(r.name) ? 'installed' : '';
    const about = r.entry
      ? `${r.entry.title}; ${r.entry.sizeMB ? `about ${r.entry.sizeMB} MB, ` : ''}${r.entry.licence}${r.entry.sha256 ? '' : ', checksum not pinned'}`
      : r.check?.ok
        ? r.check.manifest.licence
        : '';
    // A manifest on disk, and a damaged model's file names, are not checked text: escaped.
    ctx.stdout.write(`${r.name.padEnd(34)} ${state.padEnd(9)} ${printable(about)}\n`);
    if (r.check && !r.check.ok) ctx.stdout.write(`${''.padEnd(34)}   ${printable(r.check.reason)}\n`);
  }
  return EXIT.OK;
}

/** Ask on the terminal; false when there is none. */
async function confirm(ctx: CliContext, question: string): Promise<boolean> {
  if (!ctx.stdin.isTTY || !ctx.stderr.isTTY) return false;
  const rl = createInterface({ input: ctx.stdin, output: ctx.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

async function installCommand(
  ctx: CliContext,
  name: string,
  flags: { from?: string; force?: boolean; unverified?: boolean; yes?: boolean; json?: boolean },
): Promise<number> {
  const entry = findEntry(ctx, name);
  const home = voxHome(ctx.env);
  const recognizer = isRecognizer(entry);
  const existing = recognizer
    ? existsSync(join(asrModelsDir(home), entry.name, ASR_MANIFEST)) && { ok: true }
    : listModels(home).find((m) => (m.ok ? m.manifest.name : m.name) === entry.name);
  if (existing && existing.ok && !flags.force) {
    ctx.stderr.write(`vox voices: ${entry.name} is installed already (--force installs it again)\n`);
    return EXIT.OK;
  }
  assertVerifiable(entry, flags.unverified);
  if (!entry.free) {
    ctx.stderr.write(
      `${entry.name}: licence ${printable(entry.licence)}\n${entry.licenceNote ? `${printable(entry.licenceNote)}\n` : ''}`,
    );
    if (!flags.yes && !(await confirm(ctx, 'Install it under this licence? [y/N] '))) {
      throw new ClientError(
        'VOX_ERR_CLIENT_MODEL_LICENCE',
        `${entry.name} is licensed "${entry.licence}", which is not free; read it above, and run again with --yes to accept it`,
      );
    }
  }
  const tty = ctx.stderr.isTTY === true;
  let lastLine = -1;
  let lastDraw = 0;
  const progress = (done: number, total: number | undefined) => {
    if (tty) {
      const now = Date.now();
      if (now - lastDraw < 100 && done !== total) return;
      lastDraw = now;
      const width = 30;
      const bar = total ? '#'.repeat(Math.round((done / total) * width)).padEnd(width, ' ') : ''.padEnd(width, '?');
      ctx.stderr.write(`\r[${bar}] ${(done / MB).toFixed(1)}${total ? ` / ${(total / MB).toFixed(1)}` : ''} MB`);
    } else {
      // Piped: a plain line every tenth (or every 10 MB when the size is unknown).
      const step = total ? Math.floor((done / total) * 10) : Math.floor(done / (10 * MB));
      if (step === lastLine) return;
      lastLine = step;
      ctx.stderr.write(
        `vox voices: ${entry.name}: ${(done / MB).toFixed(1)}${total ? ` of ${(total / MB).toFixed(1)} MB (${Math.round((done / total) * 100)}%)` : ' MB'}\n`,
      );
    }
  };
  const note = (line: string) => ctx.stderr.write(`${tty ? '\n' : ''}vox voices: ${entry.name}: ${line}\n`);
  if (!flags.from)
    ctx.stderr.write(
      `vox voices: downloading ${entry.name} from ${shownUrl(entry.url)}${entry.sizeMB ? ` (about ${entry.sizeMB} MB)` : ''}\n`,
    );
  const result = await installModel({
    ...downloadTimes(ctx.env),
    home,
    entry,
    ...(flags.from ? { from: flags.from } : {}),
    ...(flags.unverified ? { unverified: true } : {}),
    progress,
    note,
    ...(ctx.takeSignals ? { signal: ctx.takeSignals() } : {}),
  });
  if (tty) ctx.stderr.write('\n');
  if (recognizer) {
    if (flags.json)
      ctx.stdout.write(
        `${JSON.stringify({ installed: entry.name, dir: result.dir, sha256: result.sha256, recognizer: entry.type })}\n`,
      );
    else
      ctx.stdout.write(
        `Installed ${entry.name} in ${result.dir}\nRecognizer: ${entry.type}\nvoxd transcribes "vox listen" with it from the next listen (transcriber.kind auto or local).\n`,
      );
    return EXIT.OK;
  }
  const speakers = result.manifest.speakers.map((s) =>
    result.manifest.speakers.length === 1 ? entry.name : `${entry.name}:${s.id}`,
  );
  if (flags.json)
    ctx.stdout.write(
      `${JSON.stringify({ installed: entry.name, dir: result.dir, sha256: result.sha256, voices: speakers })}\n`,
    );
  else
    ctx.stdout.write(
      `Installed ${entry.name} in ${result.dir}\nVoices: ${speakers.join(', ')}\nvoxd speaks with it from its next request (engine auto or sherpa).\n`,
    );
  return EXIT.OK;
}

/** VOX_VOICES_TIMEOUT (the whole download) and VOX_VOICES_IDLE_TIMEOUT (a stall), in seconds, when set. */
function downloadTimes(env: NodeJS.ProcessEnv): { deadlineMs?: number; idleMs?: number } {
  const seconds = (name: string, max: number): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0 || n > max)
      throw new UsageError(
        `${name}=${printable(raw.slice(0, 40))}: give a number of seconds above 0 and at most ${max}`,
      );
    return Math.round(n * 1000);
  };
  const deadlineMs = seconds('VOX_VOICES_TIMEOUT', 86_400);
  const idleMs = seconds('VOX_VOICES_IDLE_TIMEOUT', 3600);
  return { ...(deadlineMs ? { deadlineMs } : {}), ...(idleMs ? { idleMs } : {}) };
}

function removeCommand(ctx: CliContext, name: string, json: boolean): number {
  const home = voxHome(ctx.env);
  const installed = listModels(home).map((m) => (m.ok ? m.manifest.name : m.name));
  const asr = catalogue(ctx.env).find((e) => isRecognizer(e) && e.name.toLowerCase() === name.toLowerCase());
  if (asr && removeModel(home, asr.name, true)) {
    ctx.stdout.write(json ? `${JSON.stringify({ removed: asr.name })}\n` : `Removed ${asr.name}.\n`);
    return EXIT.OK;
  }
  const match = installed.find((n) => n.toLowerCase() === name.toLowerCase());
  if (!match || !removeModel(home, match)) {
    throw new ClientError(
      'VOX_ERR_CLIENT_MODEL_UNKNOWN',
      `no voice model "${printable(name.slice(0, 100))}" is installed${installed.length ? `; installed: ${installed.join(', ')}` : ''}`,
    );
  }
  ctx.stdout.write(json ? `${JSON.stringify({ removed: match })}\n` : `Removed ${match}.\n`);
  return EXIT.OK;
}
