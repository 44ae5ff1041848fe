/**
 * vox's MCP server in Codex's `config.toml`, as text appended at the end
 * under a marker comment:
 *
 *   # vox: begin …
 *   [mcp_servers.vox]
 *   command = "…"
 *   args = [ "…", "mcp" ]
 *
 * Why text and not a TOML round trip: a parse and stringify (smol-toml, or
 * any TOML library) drops the user's comments and layout, and config.toml is
 * a hand-edited file. So the library only checks: the file parses before
 * (a malformed file is an error, left alone), and the edited text parses to
 * the same document plus (or minus) exactly `mcp_servers.vox`; else, e.g. an
 * inline `mcp_servers = {…}` table that cannot be extended, nothing is
 * written and the error says what to do by hand.
 *
 * vox's table is the marker, the header after it and the `key = value` lines
 * after that, up to the first line that is not one: Codex 0.171.0 rewrites
 * config.toml itself when the user trusts hooks, appending `[tui]` and
 * `[hooks.state…]` tables straight after vox's lines and moving a trailing
 * comment to the end of the file, so a closing marker cannot bound the block
 * (an older install's `# vox: end` line is dropped wherever it is).
 * smol-toml is loaded only by these functions.
 */
import { SettingsError } from '../hooks/settings-file.js';

export const BEGIN =
  '# vox: begin (written by "vox hooks install --agent codex"; "vox hooks uninstall --agent codex" removes it)';
const OLD_END = '# vox: end';
const HEADER = '[mcp_servers.vox]';

type Toml = typeof import('smol-toml');
type Doc = Record<string, unknown>;
export interface Server {
  command: string;
  args: string[];
}

const loadToml = (): Promise<Toml> => import('smol-toml');

function parse(toml: Toml, text: string, path: string): Doc {
  try {
    return toml.parse(text) as Doc;
  } catch (err) {
    const first = ((err as Error).message.split('\n')[0] ?? '').slice(0, 200);
    throw new SettingsError(
      `${path} is not valid TOML (${first}); vox left it unchanged. Fix it, then run the command again.`,
    );
  }
}

function tryParse(toml: Toml, text: string): Doc | undefined {
  try {
    return toml.parse(text) as Doc;
  } catch {
    return undefined;
  }
}

/** Deep equality, key order aside (a TOML document's keys are a set). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same((a as Doc)[k], (b as Doc)[k]));
}
const serverOf = (doc: Doc): unknown => (doc.mcp_servers as Doc | undefined)?.vox;

/** The document without mcp_servers.vox (and without mcp_servers when that leaves it empty). */
function withoutServer(doc: Doc): Doc {
  const servers = doc.mcp_servers as Doc | undefined;
  if (!servers || !('vox' in servers)) return doc;
  const { vox: _vox, ...rest } = servers;
  const { mcp_servers: _m, ...others } = doc;
  return Object.keys(rest).length ? { ...others, mcp_servers: rest } : others;
}
const sameBut = (a: Doc, b: Doc): boolean => same(withoutServer(a), withoutServer(b));

const KEY_LINE = /^\s*[A-Za-z0-9_"'.-]+\s*=/;

/** The text with vox's lines cut out (and the blank line install put before them), and whether there were any. */
function cut(text: string): { text: string; found: boolean } {
  const lines = text.split('\n');
  const begin = lines.indexOf(BEGIN);
  if (begin < 0 || lines[begin + 1]?.trim() !== HEADER) return { text, found: false };
  let end = begin + 2;
  while (end < lines.length && KEY_LINE.test(lines[end]!)) end++;
  const from = begin > 0 && lines[begin - 1] === '' ? begin - 1 : begin;
  const kept = [...lines.slice(0, from), ...lines.slice(end)].filter((l) => l !== OLD_END);
  let out = kept.join('\n');
  if (text.endsWith('\n') && !out.endsWith('\n') && out !== '') out += '\n';
  return { text: out, found: true };
}

export interface TomlEdit {
  text: string;
  changed: boolean;
  /** The user's own [mcp_servers.vox], outside vox's block, left as it was. */
  kept?: boolean;
}

const byHand = (path: string, what: string): SettingsError =>
  new SettingsError(
    `cannot ${what} [mcp_servers.vox] in ${path} as text (an inline mcp_servers table, or the lines after "# vox: begin" edited?); vox left it unchanged.`,
  );

/** config.toml's text with vox's server block (replacing an older one of vox's). */
export async function withVoxServer(text: string, server: Server, path: string): Promise<TomlEdit> {
  const toml = await loadToml();
  const doc = parse(toml, text, path);
  const { text: bare, found } = cut(text);
  if (!found && serverOf(doc) !== undefined) return { text, changed: false, kept: true };
  const block = `${BEGIN}\n${toml.stringify({ mcp_servers: { vox: server } }).trim()}\n`;
  // vox's block as it would write it, wherever it sits: nothing to do.
  if (found && same(serverOf(doc), server) && (text.includes(block) || text.endsWith(block.trimEnd())))
    return { text, changed: false };
  const body = bare.replace(/\n*$/, '');
  const next = body === '' ? block : `${body}\n\n${block}`;
  const after = tryParse(toml, next);
  if (!after || !same(serverOf(after), server) || !sameBut(after, doc)) {
    const e = byHand(path, 'add');
    e.message += ` Add by hand:\n[mcp_servers.vox]\ncommand = ${JSON.stringify(server.command)}\nargs = ${JSON.stringify(server.args)}`;
    throw e;
  }
  return { text: next, changed: next !== text };
}

/** config.toml's text without vox's block; unchanged when there is none. */
export async function withoutVoxServer(text: string, path: string): Promise<TomlEdit> {
  const toml = await loadToml();
  const doc = parse(toml, text, path);
  const { text: next, found } = cut(text);
  if (!found) return { text, changed: false };
  const after = tryParse(toml, next);
  if (!after || serverOf(after) !== undefined || !sameBut(after, doc)) {
    const e = byHand(path, 'remove');
    e.message += ' Remove the [mcp_servers.vox] table by hand.';
    throw e;
  }
  return { text: next, changed: true };
}
