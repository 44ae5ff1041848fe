// `npm run bench`: run every bench/*.mjs (but this and lib) in turn and collect their JSON lines.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && f !== 'lib.mjs')
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const f of files) {
  process.stderr.write(`# ${f}\n`);
  const r = spawnSync(process.execPath, [fileURLToPath(new URL(f, import.meta.url))], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    failed += 1;
    process.stderr.write(`# ${f} exited with ${r.status}\n`);
  }
}
process.exit(failed ? 1 : 0);
