#!/usr/bin/env node
/**
 * `vox`: the client entry. It stays tiny and loads only the command it runs,
 * because every Claude Code hook starts one (see bench/say.mjs).
 */
import { commandNames, findCommand, usage } from './command-table.js';
import { exitAfterFlush, interrupted, processContext, type CliContext } from './context.js';
import { suggestion } from './usage.js';

export async function main(argv: string[], ctx: Omit<CliContext, 'argv'>): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    ctx.stdout.write(usage());
    return 0;
  }
  if (name === '--version' || name === '-v') {
    const { VERSION } = await import('@vox/protocol');
    ctx.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const entry = findCommand(name);
  if (!entry) {
    const what = name.startsWith('-') ? 'flag' : 'command';
    const hint = suggestion(name, commandNames(), true);
    ctx.stderr.write(`vox: unknown ${what} "${name}"${hint || '.'} See "vox --help".\n`);
    return 2;
  }
  const { command } = await entry.load();
  // Copy the stream getters as getters (spreading would open stdin), then give the command its own arguments.
  const descriptors = { ...Object.getOwnPropertyDescriptors(ctx), argv: { value: rest, enumerable: true } };
  return command.run(Object.defineProperties({}, descriptors) as CliContext);
}

// No top-level await: this file is also bundled as CommonJS (scripts/bundle.mjs).
void main(process.argv.slice(2), processContext([])).then((code) => {
  // Commands that hold handles (mcp, status --watch, logs -f) resolve when they end.
  process.exitCode = code;
  // Ended by a signal: exit now, whatever a request to voxd still holds (context.ts `interrupted`).
  if (interrupted()) exitAfterFlush(code);
});
