// `vox mcp` end to end: the built binary, driven by the MCP SDK's own client,
// against a real voxd whose audio goes to WAV files. Run `npx tsc -b` first.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DaemonState, StatusResponse } from '@vox/protocol';
import { Ajv } from 'ajv';
import { request } from '../../src/daemon/http.js';
import { resolveEndpoint } from '../../src/client/endpoint.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
// Through the package's exported entry, as the client itself finds voxd.
const voxdMain = fileURLToPath(import.meta.resolve('voxd/main'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const root = realpathSync(mkdtempSync(join(tmpdir(), 'vox-mcp-')));
const home = join(root, 'home');
const sink = join(root, 'sink');
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  HOME: root,
  VOX_HOME: home,
  VOXD_PORT: '0',
  VOXD_AUDIO: `file:${sink}?realtime=0`,
  // A voxd that a client auto-starts takes its sink from here, not from VOXD_AUDIO.
  VOX_CONFIG_HOME: join(root, 'config'),
};
const clients: Client[] = [];
let firstDaemon: ChildProcess | undefined;

function project(name: string, config?: string): string {
  const dir = join(root, 'projects', name);
  mkdirSync(dir, { recursive: true });
  if (config !== undefined) {
    mkdirSync(join(dir, '.vox'), { recursive: true });
    writeFileSync(join(dir, '.vox', 'config.md'), config);
  }
  return dir;
}

async function session(cwd: string, extraEnv: Record<string, string> = {}): Promise<Client> {
  assert.ok(existsSync(cli), `${cli} is missing: run "npx tsc -b" first`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp'],
    cwd,
    env: { ...env, ...extraEnv },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'vox-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return client;
}

/**
 * The output schema, made strict for the test: every object with `properties`
 * admits no others, so a field a tool returns but its schema does not
 * describe fails the test (the published schema stays open, so an older
 * client never rejects a newer field).
 */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, strict(s)])) : strict(v),
    ]),
  );
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}
const ajv = new Ajv({ allErrors: true, strict: false });
const outputSchemas = new WeakMap<Client, Map<string, unknown>>();

/**
 * Calls a tool and checks what the model receives: a success has
 * structuredContent valid against the tool's output schema, and its text block
 * is that JSON serialized.
 */
async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & { text: string }> {
  const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  if (result.structuredContent !== undefined) {
    let schemas = outputSchemas.get(client);
    if (!schemas) {
      schemas = new Map((await client.listTools()).tools.map((t) => [t.name, t.outputSchema]));
      outputSchemas.set(client, schemas);
    }
    const schema = schemas.get(name);
    assert.ok(schema, `${name} returns structuredContent, so it declares an outputSchema`);
    const validate = ajv.compile(strict(schema) as object);
    assert.ok(
      validate(result.structuredContent),
      `${name}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(result.structuredContent)}`,
    );
    assert.equal(text, JSON.stringify(result.structuredContent), 'the text block is the serialized JSON');
  } else {
    assert.equal(result.isError, true, `${name}: a success carries structuredContent`);
  }
  return Object.assign(result, { text });
}

function daemonState(): DaemonState {
  return JSON.parse(readFileSync(join(home, 'voxd.json'), 'utf8')) as DaemonState;
}

async function status(): Promise<StatusResponse> {
  const endpoint = resolveEndpoint(env)!;
  const reply = await request<StatusResponse>(endpoint, 'GET', '/v1/status');
  assert.equal(reply.status, 200);
  return reply.body;
}

/** Waits until voxd has nothing queued or playing. */
async function drained(): Promise<StatusResponse> {
  for (let i = 0; i < 400; i++) {
    const s = await status();
    if (s.queue.length === 0 && s.playing === null) return s;
    await sleep(50);
  }
  throw new Error('voxd did not drain its queue');
}

const wavs = () => new Set(readdirSync(sink).filter((f) => f.endsWith('.wav')));
const newWavs = (before: Set<string>) => [...wavs()].filter((f) => !before.has(f));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

before(async () => {
  mkdirSync(sink, { recursive: true });
  mkdirSync(env.VOX_CONFIG_HOME!, { recursive: true });
  writeFileSync(join(env.VOX_CONFIG_HOME!, 'voxd.yaml'), `audio: "file:${sink}?realtime=0"\n`);
  firstDaemon = spawn(process.execPath, [voxdMain, '--port', '0'], { env, stdio: 'ignore' });
  for (let i = 0; i < 300 && !existsSync(join(home, 'voxd.json')); i++) await sleep(50);
  assert.ok(existsSync(join(home, 'voxd.json')), 'voxd did not start');
  await drained();
});

after(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  const pids = new Set<number>();
  if (firstDaemon?.pid) pids.add(firstDaemon.pid);
  try {
    pids.add(daemonState().pid);
  } catch {
    // no daemon running
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }
  for (let i = 0; i < 100 && [...pids].some(alive); i++) await sleep(50);
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

describe('vox mcp', () => {
  test('tools/list returns the nine tools with their input schemas', async () => {
    const client = await session(project('list'));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'configure',
      'converse',
      'listen',
      'recap',
      'record',
      'speak',
      'status',
      'stop',
      'voices',
    ]);
    const speak = tools.find((t) => t.name === 'speak')!;
    assert.ok(speak.description && speak.description.length > 80);
    assert.deepEqual(speak.inputSchema.required, ['text']);
    assert.deepEqual(Object.keys(speak.inputSchema.properties ?? {}).sort(), [
      'once',
      'priority',
      'rate',
      'text',
      'voice',
    ]);
    const configure = tools.find((t) => t.name === 'configure')!;
    assert.ok('rate' in (configure.inputSchema.properties ?? {}));
    assert.ok('voice' in (configure.inputSchema.properties ?? {}));
    const record = tools.find((t) => t.name === 'record')!;
    assert.deepEqual(record.inputSchema.required, ['text', 'path']);
    for (const t of tools) assert.ok(t.description, `${t.name} has a description`);
  });

  test('speak plays one WAV and says it was queued, with the spoken text', async () => {
    const client = await session(project('speak-one'));
    const before = wavs();
    const r = await callTool(client, 'speak', { text: 'The build finished without errors.' });
    assert.equal(r.isError, undefined, r.text);
    const sc = r.structuredContent as { id: string; status: string; spoken?: string; priority: string; why?: string };
    assert.match(sc.id, /^\w+$/);
    assert.equal(sc.status, 'queued');
    assert.equal(sc.priority, 'message');
    assert.equal(sc.spoken, undefined, 'spoken as given: not repeated back');
    assert.equal(sc.why, undefined);
    await drained();
    assert.equal(newWavs(before).length, 1);
  });

  test('eight sessions with eight voices speak the same wall text at once: one WAV', async () => {
    const voices = ['en-us', 'en-gb', 'en-us+f1', 'en-gb+m3', 'en-us+m2', 'en-gb-scotland', 'en-029', 'en-gb-x-rp'];
    const sessions = await Promise.all(
      voices.map((voice, i) => session(project(`wall-${i}`, `---\nvoice: ${voice}\n---\n`))),
    );
    const before = wavs();
    const text = '[alert] Team wall: the release branch is frozen until noon.';
    const results = await Promise.all(sessions.map((c) => callTool(c, 'speak', { text })));
    for (const r of results) assert.equal(r.isError, undefined, r.text);
    const statuses = results.map((r) => (r.structuredContent as { status: string }).status).sort();
    assert.deepEqual(statuses, ['deduped', 'deduped', 'deduped', 'deduped', 'deduped', 'deduped', 'deduped', 'queued']);
    const queued = results.find((r) => (r.structuredContent as { status: string }).status === 'queued')!;
    const deduped = results.find((r) => (r.structuredContent as { status: string }).status === 'deduped')!;
    const d = deduped.structuredContent as { duplicateOf: string; why: string };
    assert.equal(d.duplicateOf, (queued.structuredContent as { id: string }).id);
    assert.match(d.why, /the same text (is|was) .*possibly by another session; repeats are skipped for another \d+ s/);
    await drained();
    assert.equal(newWavs(before).length, 1);
  });

  test('a config in a parent directory is found from a nested working directory', async () => {
    const dir = project('nested', '---\nvoice: en-gb\nrate: 210\n---\n');
    const deep = join(dir, 'src', 'lib');
    mkdirSync(deep, { recursive: true });
    const client = await session(deep);
    const st = await callTool(client, 'status');
    assert.equal(st.isError, undefined, st.text);
    const sc = st.structuredContent as {
      session: string;
      config: { file: string; fromFile: string[]; values: Record<string, unknown> };
      daemon: { engine: { ready: boolean } };
    };
    const file = join(dir, '.vox', 'config.md');
    assert.equal(sc.config.file, file);
    assert.match(sc.session, /^nested#/);
    assert.equal(sc.config.values.rate, 210);
    assert.deepEqual(sc.config.fromFile.sort(), ['rate', 'voice']);
    assert.equal(sc.config.values.volume, 1, 'defaults are shown too');
    assert.equal(sc.daemon.engine.ready, true);

    const r = await callTool(client, 'speak', { text: 'Nested directories find their parent config.' });
    assert.equal(r.isError, undefined, r.text);
    const s = await drained();
    const entry = s.history.find((h) => h.id === (r.structuredContent as { id: string }).id)!;
    assert.equal(entry.voice, 'en-gb');
    assert.equal(entry.session?.split('#')[0], 'nested');
  });

  test('an invalid value and an unknown key each give isError naming the file, the key and what is allowed', async () => {
    const bad = project('bad-value', '---\nrate: 9000\n---\n');
    const r1 = await callTool(await session(bad), 'speak', { text: 'This should not be spoken.' });
    assert.equal(r1.isError, true);
    assert.ok(r1.text.includes(join(bad, '.vox', 'config.md')), r1.text);
    assert.match(r1.text, /rate/);
    assert.match(r1.text, /80 to 500/);

    const unknown = project('bad-key', '---\nvoise: en-gb\n---\n');
    const r2 = await callTool(await session(unknown), 'speak', { text: 'This should not be spoken either.' });
    assert.equal(r2.isError, true);
    assert.ok(r2.text.includes(join(unknown, '.vox', 'config.md')), r2.text);
    assert.match(r2.text, /unknown key "voise"/);
    assert.match(r2.text, /"voice"/);

    const far = project('far-key', '---\ncolour: red\n---\n');
    const r3 = await callTool(await session(far), 'speak', { text: 'Nor this.' });
    assert.equal(r3.isError, true);
    assert.match(r3.text, /unknown key "colour"/);
    assert.match(r3.text, /known keys: voice, rate/);
  });

  test('a ---js config runs no code and gives isError', async () => {
    const marker = join(root, 'pwned');
    const dir = project(
      'js-config',
      `---js\n({ voice: require('fs').writeFileSync(${JSON.stringify(marker)}, 'x') })\n---\n`,
    );
    const client = await session(dir);
    const r = await callTool(client, 'speak', { text: 'Code in a config must never run.' });
    assert.equal(r.isError, true);
    assert.ok(r.text.includes(join(dir, '.vox', 'config.md')), r.text);
    const st = await callTool(client, 'status');
    assert.equal(st.isError, true);
    assert.equal(existsSync(marker), false);
  });

  test('editing the config between two calls changes the voice', async () => {
    const dir = project('edit', '---\nvoice: en-us\n---\n');
    const client = await session(dir);
    const a = await callTool(client, 'speak', { text: 'First, in an American voice.' });
    writeFileSync(join(dir, '.vox', 'config.md'), '---\nvoice: en-gb\n---\n');
    const b = await callTool(client, 'speak', { text: 'Then, in a British voice.' });
    assert.equal(a.isError, undefined, a.text);
    assert.equal(b.isError, undefined, b.text);
    const s = await drained();
    const voiceOf = (r: CallToolResult) =>
      s.history.find((h) => h.id === (r.structuredContent as { id: string }).id)?.voice;
    assert.equal(voiceOf(a), 'en-us');
    assert.equal(voiceOf(b), 'en-gb');
  });

  test('the pronunciations are applied to the spoken text', async () => {
    const dir = project(
      'say-it',
      '---\nrate: 180\n---\n# Notes\n\n## Pronunciations\n\n| Word | Say |\n|------|-----|\n| kubectl | cube control |\n',
    );
    const client = await session(dir);
    const r = await callTool(client, 'speak', { text: 'Run kubectl to deploy.' });
    assert.equal(r.isError, undefined, r.text);
    assert.equal((r.structuredContent as { spoken: string }).spoken, 'Run cube control to deploy.');
    const s = await drained();
    const entry = s.history.find((h) => h.id === (r.structuredContent as { id: string }).id)!;
    assert.equal(entry.text, 'Run cube control to deploy.');
  });

  test('a muted project: the model is told that a chime played instead of speech, and why', async () => {
    const dir = project('muted', '---\nspeak: false\n---\n');
    const client = await session(dir);
    const r = await callTool(client, 'speak', { text: 'Nobody should hear these words.' });
    assert.equal(r.isError, undefined, r.text);
    const sc = r.structuredContent as { status: string; chime: string; why: string };
    assert.equal(sc.chime, 'done');
    assert.ok(sc.why.includes(`this project is muted (speak: false in ${join(dir, '.vox', 'config.md')})`), sc.why);
    assert.match(sc.why, /the done chime plays instead of speech/);
    const s = await drained();
    assert.ok(!s.history.some((h) => h.text.includes('Nobody should hear')), 'the text was not spoken');
  });

  test('configure round-trips and keeps the body and the other keys', async () => {
    const body =
      '# Team notes\n\nSpeak slowly in the demo.\n\n## Pronunciations\n\n| Word | Say |\n|---|---|\n| nginx | engine x |\n';
    const dir = project('configure', `---\n# how fast\nrate: 200\nannounce: shop\n---\n${body}`);
    const file = join(dir, '.vox', 'config.md');
    const client = await session(dir);

    const set = await callTool(client, 'configure', { voice: 'en-gb', rate: 190 });
    assert.equal(set.isError, undefined, set.text);
    assert.deepEqual(set.structuredContent, { file, set: { voice: 'en-gb', rate: 190 } });
    let text = readFileSync(file, 'utf8');
    assert.ok(text.endsWith(body), text);
    assert.match(text, /# how fast\nrate: 190\n/);
    assert.match(text, /^announce: shop$/m);
    assert.match(text, /^voice: en-gb$/m);

    const st = await callTool(client, 'status');
    const config = (st.structuredContent as { config: { values: Record<string, unknown>; fromFile: string[] } }).config;
    assert.equal(config.values.voice, 'en-gb');
    assert.equal(config.values.rate, 190);
    assert.ok(config.fromFile.includes('voice'));

    const reset = await callTool(client, 'configure', { rate: null });
    assert.equal(reset.isError, undefined, reset.text);
    assert.deepEqual(reset.structuredContent, { file, reset: ['rate'] });
    text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /^rate:/m);
    assert.ok(text.endsWith(body));

    const invalid = await callTool(client, 'configure', { rate: 9000 });
    assert.equal(invalid.isError, true);
    assert.ok(invalid.text.includes(file), invalid.text);
    assert.match(invalid.text, /rate/);
    assert.match(invalid.text, /80 to 500/);
    const unknown = await callTool(client, 'configure', { speed: 200 });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /unknown key "speed"; did you mean "rate"\?/);
    assert.ok(readFileSync(file, 'utf8').endsWith(body));

    // No file yet: configure creates one in the working directory.
    const fresh = project('configure-new');
    const created = await callTool(await session(fresh), 'configure', { voice: 'en-us' });
    assert.equal(created.isError, undefined, created.text);
    assert.match(readFileSync(join(fresh, '.vox', 'config.md'), 'utf8'), /^voice: en-us$/m);
  });

  test('stop stops this session by default, everything with scope all', async () => {
    const client = await session(project('stopper'));
    const mine = await callTool(client, 'stop');
    assert.equal(mine.isError, undefined, mine.text);
    const sc = mine.structuredContent as { scope: string; session: string; stopped: string[] };
    assert.equal(sc.scope, 'session');
    assert.match(sc.session, /^stopper#/);
    const all = await callTool(client, 'stop', { scope: 'all' });
    assert.equal(all.isError, undefined, all.text);
    assert.equal((all.structuredContent as { scope: string }).scope, 'all');
    const bad = await callTool(client, 'stop', { scope: 'everyone' });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /scope must be one of session, all/);
  });

  test('recap says what was missed; a second recap says nothing new', async () => {
    const client = await session(project('recap'));
    const first = await callTool(client, 'recap');
    assert.equal(first.isError, undefined, first.text);
    const sc = first.structuredContent as { id: string; status: string; items: number; sessions: number };
    assert.equal(sc.status, 'queued');
    assert.equal(typeof sc.items, 'number');
    const second = await callTool(client, 'recap');
    assert.equal(second.isError, undefined, second.text);
    assert.deepEqual(
      [(second.structuredContent as { items: number }).items, (second.structuredContent as { text: string }).text],
      [0, 'Nothing new since the last recap.'],
    );
    const bad = await callTool(client, 'recap', { scope: 'all' });
    assert.equal(bad.isError, true);
  });

  test("voices lists the engine's voices, filtered by language", async () => {
    const client = await session(project('voices'));
    const r = await callTool(client, 'voices', { language: 'en' });
    assert.equal(r.isError, undefined, r.text);
    const sc = r.structuredContent as {
      engine: string;
      total: number;
      voices: Array<{ id: string; languages: string[] }>;
      nextCursor?: string;
    };
    assert.ok(sc.voices.length > 0);
    assert.equal(sc.total, sc.voices.length);
    for (const v of sc.voices) assert.ok(v.languages.some((l) => l.toLowerCase().startsWith('en')));

    // The whole list comes a page at a time: every voice once, in order.
    const all = await callTool(client, 'voices', {});
    const total = (all.structuredContent as { total: number }).total;
    assert.ok(total > 40, `espeak-ng has many voices (${total})`);
    assert.equal((all.structuredContent as { voices: unknown[] }).voices.length, 40, 'the default page');
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const page = (await callTool(client, 'voices', { limit: 25, ...(cursor ? { cursor } : {}) }))
        .structuredContent as typeof sc;
      assert.ok(page.voices.length <= 25);
      ids.push(...page.voices.map((v) => v.id));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    assert.equal(ids.length, total);
    assert.equal(new Set(ids).size, total);
    const bad = await callTool(client, 'voices', { cursor: 'nonsense' });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /Invalid cursor "nonsense"/);
  });

  test('record saves a WAV, resolving a relative path against the working directory', async () => {
    const dir = project('record');
    const client = await session(dir);
    const before = wavs();
    const r = await callTool(client, 'record', { text: 'Recorded, not played.', path: 'out/hello.wav' });
    assert.equal(r.isError, undefined, r.text);
    const file = join(dir, 'out', 'hello.wav');
    assert.equal((r.structuredContent as { path: string }).path, file);
    const wav = readFileSync(file);
    assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
    assert.ok(statSync(file).size > 1000);
    assert.ok(((r.structuredContent as { seconds: number }).seconds ?? 0) > 0.3);
    await drained();
    assert.equal(newWavs(before).length, 0, 'record does not play');
  });

  test('a bad call gives an error result, not a crash, and the server goes on', async () => {
    const client = await session(project('bad-calls'));
    const missing = await callTool(client, 'speak', {});
    assert.equal(missing.isError, true);
    assert.match(missing.text, /"text" is required/);
    const wrong = await callTool(client, 'speak', { text: 'x', rate: 'fast' });
    assert.equal(wrong.isError, true);
    assert.match(wrong.text, /rate must be a number from 80 to 500, got "fast"/);
    const extra = await callTool(client, 'speak', { text: 'x', colour: 'red' });
    assert.equal(extra.isError, true);
    assert.match(extra.text, /unknown field "colour"/);
    // An unknown tool is a protocol error (-32602), as the spec and the SDK's own servers answer.
    await assert.rejects(
      client.callTool({ name: 'shout', arguments: { text: 'x' } }),
      (err: Error & { code?: number }) => err.code === -32602 && /Unknown tool: shout/.test(err.message),
    );
    const empty = await callTool(client, 'configure', {});
    assert.equal(empty.isError, true);
    const still = await callTool(client, 'status');
    assert.equal(still.isError, undefined, still.text);
  });

  test('with the daemon down and autostart off, speak says how to fix it', async () => {
    const client = await session(project('no-daemon'), { VOX_HOME: join(root, 'empty-home'), VOX_NO_AUTOSTART: '1' });
    const r = await callTool(client, 'speak', { text: 'Nobody is listening.' });
    assert.equal(r.isError, true);
    assert.match(r.text, /VOX_ERR_CLIENT_DAEMON_UNREACHABLE/);
    assert.match(r.text, /vox daemon start/);
  });

  test('stdout carries only JSON-RPC, even for garbage input; end of input ends the process', async (t) => {
    const child = spawn(process.execPath, [cli, 'mcp'], { cwd: project('raw'), env, stdio: ['pipe', 'pipe', 'pipe'] });
    t.after(() => child.kill('SIGKILL')); // if it never exits, it must not outlive the test
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const send = (m: unknown) => child.stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send('this is not json');
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'speak', arguments: {} } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'status', arguments: {} } });
    child.stdin.end();
    assert.equal(await exited, 0, err);
    const lines = out.split('\n').filter((l) => l !== '');
    assert.ok(out.endsWith('\n'));
    for (const line of lines) {
      const m = JSON.parse(line) as { jsonrpc: string };
      assert.equal(m.jsonrpc, '2.0', line);
    }
    const messages = lines.map((l) => JSON.parse(l) as { id?: number; error?: { code: number } });
    assert.deepEqual(
      messages
        .map((m) => m.id)
        .filter((id) => id !== undefined)
        .sort(),
      [1, 2, 3, 4],
    );
    const parseError = messages.filter((m) => !('id' in m));
    assert.equal(
      parseError.length,
      1,
      'the garbage line gets one parse error, its id left out (the SDK rejects "id": null)',
    );
    assert.equal(parseError[0]!.error?.code, -32700);
    const bad = JSON.parse(lines.find((l) => (JSON.parse(l) as { id?: number }).id === 3)!) as {
      result: CallToolResult;
    };
    assert.equal(bad.result.isError, true);
    assert.match(err, /vox mcp: /, 'the garbage line is reported on stderr');
  });

  test('notifications/cancelled: a speak cancelled before it reached voxd is never said and never answered', async () => {
    const child = spawn(process.execPath, [cli, 'mcp'], {
      cwd: project('cancel'),
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const line = (m: unknown) => `${JSON.stringify(m)}\n`;
    const text = 'This sentence was cancelled and must never be spoken.';
    child.stdin.write(
      line({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
    // The call and its cancellation in one write: the server reads the cancel before the call reaches voxd.
    child.stdin.write(
      line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'speak', arguments: { text } } }) +
        line({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 2, reason: 'the user pressed Esc' },
        }) +
        line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'status', arguments: {} } }),
    );
    for (let i = 0; i < 400 && !out.includes('"id":3'); i++) await sleep(25);
    child.stdin.end();
    assert.equal(await exited, 0);
    const ids = out
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id?: number }).id);
    assert.deepEqual(ids.sort(), [1, 3], 'every request but the cancelled one is answered');
    const s = await drained();
    assert.ok(!s.history.some((h) => h.text === text), 'the cancelled text never reached voxd');
  });

  test('a 2026-07-28 client (server/discover, then per-request _meta, no initialize) is served and heard', async () => {
    const child = spawn(process.execPath, [cli, 'mcp'], {
      cwd: project('modern'),
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'modern', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const text = 'A stateless client asked for this sentence.';
    const before = wavs();
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta } })}\n`);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 's', method: 'tools/call', params: { _meta, name: 'speak', arguments: { text } } })}\n`,
    );
    for (let i = 0; i < 400 && !out.includes('"id":"s"'); i++) await sleep(25);
    child.stdin.end();
    assert.equal(await exited, 0);
    const answers = new Map(
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const m = JSON.parse(l) as { id: string; result: Record<string, unknown> };
          return [m.id, m.result] as const;
        }),
    );
    assert.deepEqual(answers.get('d')!.supportedVersions, ['2026-07-28']);
    const result = answers.get('s')! as { resultType: string; structuredContent: { id: string; status: string } };
    assert.equal(result.resultType, 'complete');
    assert.equal(result.structuredContent.status, 'queued');
    const s = await drained();
    assert.equal(s.history.find((h) => h.id === result.structuredContent.id)?.text, text);
    assert.equal(newWavs(before).length, 1);
  });

  test('after voxd is killed, the next speak starts it again', { timeout: 60_000 }, async () => {
    const client = await session(project('restart'));
    const old = daemonState();
    process.kill(old.pid, 'SIGKILL');
    for (let i = 0; i < 100 && alive(old.pid); i++) await sleep(50);
    assert.equal(alive(old.pid), false);
    const r = await callTool(client, 'speak', { text: 'Back after a crash.' });
    assert.equal(r.isError, undefined, r.text);
    const now = daemonState();
    assert.notEqual(now.pid, old.pid);
    assert.ok(alive(now.pid));
    const s = await drained();
    assert.equal(s.pid, now.pid);
    assert.ok(s.history.some((h) => h.text === 'Back after a crash.'));
  });
});
