// `npm run bench`: runs the benches and collects their JSON lines (one per figure).
//
//   node bench/run.mjs [--node PATH]... [--lines 22,24,26] [--repeat N] [NAME...]
//
// NAME...      only the benches whose file name contains one of them.
// --lines L    the Node lines for the start-up benches (default: the lines
//              vox supports, scripts/ci/node-lines; or BENCH_NODE_LINES). The running node serves its own line; any
//              other is the `node-<os>-<arch>` package from the npm registry,
//              installed on first use (it says so) into
//              $XDG_CACHE_HOME/vox-bench (default ~/.cache/vox-bench), outside
//              the repository, and reused afterwards.
// --node PATH  a Node binary to use instead of --lines (repeatable).
// --repeat N   run the selection N times over (every Node line each time, so
//              the lines see the same drift of a shared machine's load), then
//              print, per start-up figure and Node version, one "summary"
//              line: the median of the N ratios to each baseline (the
//              node:http floor and `node -e 0`), their minimum and maximum
//              (default 1: no summary).
//
// Every bench runs with the clean environment of bench/lib.mjs (no NODE_*,
// NODE_OPTIONS or NODE_EXTRA_CA_CERTS among them, on either side of any
// comparison) and prints the Node version on each line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { cleanEnv, jsonLines } from './lib.mjs';

/**
 * One line per bench. `everyNode`: it times Node processes starting (a client
 * per call), so it runs on every Node line; the others measure voxd and run
 * on the node running this script.
 */
const BENCHES = [
  { file: 'say.mjs', everyNode: true },
  { file: 'hook.mjs', everyNode: true },
  { file: 'hook-deadline.mjs' },
  { file: 'state-files.mjs' },
  { file: 'mcp.mjs', everyNode: true },
  { file: 'mcp-tool-hook.mjs' },
  { file: 'session-hook.mjs' },
  { file: 'cache.mjs' },
  { file: 'cloud.mjs' },
  { file: 'daemon.mjs' },
  { file: 'first-audio.mjs' },
  { file: 'stop.mjs' },
  { file: 'health.mjs' },
  { file: 'idle-rss.mjs' },
  { file: 'mcp-result-size.mjs' },
  { file: 'sse.mjs' },
  { file: 'deep-queue.mjs' },
  { file: 'journal.mjs' },
  { file: 'log-flood.mjs' },
  { file: 'audio-io.mjs' },
  { file: 'listen.mjs' },
  { file: 'voice-approval.mjs' },
  { file: 'voice-question.mjs' },
  { file: 'listen-vad.mjs' },
  { file: 'barge-in.mjs' },
  { file: 'voice-barge-in.mjs' },
  { file: 'sherpa.mjs' },
  { file: 'claude-exit.mjs' },
  { file: 'narration.mjs' },
  { file: 'narration-bounds.mjs' },
  { file: 'session-voices.mjs' },
  { file: 'media-keys.mjs' },
];

const dir = fileURLToPath(new URL('.', import.meta.url));
const { values, positionals: only } = parseArgs({
  allowPositionals: true,
  options: { node: { type: 'string', multiple: true }, lines: { type: 'string' }, repeat: { type: 'string' } },
});

const listed = new Set(BENCHES.map((b) => b.file));
for (const f of readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && f !== 'lib.mjs' && f !== 'compare.mjs')
  .sort()) {
  if (!listed.has(f)) {
    process.stderr.write(`# ${f} is not in bench/run.mjs's BENCHES; running it on this node only\n`);
    BENCHES.push({ file: f });
  }
}
const benches = BENCHES.filter((b) => only.length === 0 || only.some((o) => b.file.includes(o)));

const env = cleanEnv();
const major = (v) => Number(/^v?(\d+)/.exec(v)?.[1]);
const version = (node) => spawnSync(node, ['--version'], { env, encoding: 'utf8' }).stdout?.trim();

/** The node binary of a Node line: this one, or the registry's package, installed into the cache once. */
/** The Node majors vox supports, as CI lists them. */
function supportedLines() {
  const file = fileURLToPath(new URL('../scripts/ci/node-lines', import.meta.url));
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /^\s*\d/.test(l))
    .map((l) => l.trim())
    .join(',');
}

function nodeOfLine(line) {
  if (major(process.version) === line) return process.execPath;
  const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'vox-bench', `node-${line}`);
  const pkg = `node-${process.platform}-${process.arch}`;
  const bin = join(cache, 'node_modules', pkg, 'bin', 'node');
  if (!existsSync(bin)) {
    process.stderr.write(`# Node ${line} is not in ${cache}; installing it: npm install ${pkg}@${line} (once)\n`);
    mkdirSync(cache, { recursive: true });
    const r = spawnSync(
      'npm',
      ['install', '--prefix', cache, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${pkg}@${line}`],
      { stdio: ['ignore', 'ignore', 'inherit'], env },
    );
    if (r.status !== 0 || !existsSync(bin)) {
      process.stderr.write(`# could not install Node ${line} (npm exited ${r.status}); its figures are missing\n`);
      return undefined;
    }
  }
  return bin;
}

let nodes;
if (values.node?.length) nodes = values.node;
else {
  const lines = (values.lines ?? process.env.BENCH_NODE_LINES ?? supportedLines()).split(',').map(Number);
  if (!lines.includes(major(process.version))) lines.unshift(major(process.version));
  nodes = lines.map(nodeOfLine);
}
let failed = nodes.filter((n) => n === undefined).length;
nodes = nodes.filter(Boolean);

const repeat = Math.max(1, Number(values.repeat ?? 1) || 1);
/** The JSON lines with a ratio to the floor, by bench and Node version, for --repeat's summary. */
const ratios = new Map();
for (let rep = 0; rep < repeat; rep++) {
  for (const [i, node] of nodes.entries()) {
    const here = node === process.execPath || (i === 0 && values.node?.length);
    const todo = benches.filter((b) => b.everyNode || here);
    if (todo.length === 0) continue;
    process.stderr.write(`# Node ${version(node)} (${node})${repeat > 1 ? `, round ${rep + 1} of ${repeat}` : ''}\n`);
    for (const { file } of todo) {
      process.stderr.write(`# ${file}\n`);
      const r = spawnSync(node, [join(dir, file)], {
        stdio: ['ignore', 'pipe', 'inherit'],
        env,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      process.stdout.write(r.stdout ?? '');
      for (const j of jsonLines(r.stdout)) {
        if (typeof j.ratioToFloor !== 'number') continue;
        const key = `${j.bench}\0${j.node}`;
        if (!ratios.has(key)) ratios.set(key, { bench: j.bench, node: j.node, ratios: [], paired: [], toNode: [] });
        ratios.get(key).ratios.push(j.ratioToFloor);
        ratios.get(key).paired.push(j.pairedRatioToFloor);
        if (typeof j.ratioToNode === 'number') ratios.get(key).toNode.push(j.ratioToNode);
      }
      if (r.status !== 0) {
        failed += 1;
        process.stderr.write(`# ${file} exited with ${r.status} on Node ${version(node)}\n`);
      }
    }
  }
}
if (repeat > 1) {
  const med = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const r2 = (x) => Math.round(x * 100) / 100;
  const spread = (xs) => ({ median: r2(med(xs)), min: Math.min(...xs), max: Math.max(...xs) });
  for (const { bench, node, ratios: rs, paired, toNode } of ratios.values()) {
    process.stdout.write(
      `${JSON.stringify({ summary: bench, node, repeats: rs.length, ratioToFloor: spread(rs), pairedRatioToFloor: spread(paired), ...(toNode.length ? { ratioToNode: spread(toNode) } : {}) })}\n`,
    );
  }
}
process.exit(failed ? 1 : 0);
