/**
 * Cloud API keys, from the environment or `VOX_HOME/keys.env`.
 *
 * The environment wins, so a one-off `OPENAI_API_KEY=... voxd` overrides the
 * file. The file is re-read when its mtime changes, so adding a key needs no
 * restart. Nothing here logs or returns a key except `get()`; warnings name
 * the file and line, never the value.
 */
import { readFileSync, statSync } from 'node:fs';
import { homePaths, parseKeysFile } from '@vox/protocol';

export type KeySourceKind = 'env' | 'file';

export interface KeySource {
  /** The key's value, or undefined when it is not set anywhere. */
  get(name: string): string | undefined;
}

export interface Keys extends KeySource {
  /** Where a key comes from, without its value. */
  source(name: string): KeySourceKind | undefined;
  /** Problems with keys.env: mode wider than 0600, unparsable lines. */
  warnings(): string[];
  /** The path of the keys file. */
  readonly path: string;
}

export interface KeysOptions {
  env: NodeJS.ProcessEnv;
  /** VOX_HOME; the file is `<home>/keys.env`. */
  home: string;
  /** Default process.platform; the mode check is skipped on Windows. */
  platform?: NodeJS.Platform;
}

interface FileState {
  mtimeMs: number;
  size: number;
  values: Map<string, string>;
  warnings: string[];
}

export function createKeys(options: KeysOptions): Keys {
  const path = homePaths(options.home).keys;
  const platform = options.platform ?? process.platform;
  let state: FileState | undefined;

  function file(): FileState {
    let st;
    try {
      st = statSync(path);
    } catch {
      state = undefined;
      return { mtimeMs: 0, size: 0, values: new Map(), warnings: [] };
    }
    if (state && state.mtimeMs === st.mtimeMs && state.size === st.size) return state;
    const warnings: string[] = [];
    if (platform !== 'win32' && (st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
      warnings.push(`${path} has mode ${mode}; other users may read your API keys. Run: chmod 600 "${path}"`);
    }
    let text = '';
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      warnings.push(`${path} is unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'}); its keys are ignored`);
    }
    const parsed = parseKeysFile(text);
    for (const line of parsed.badLines) warnings.push(`${path}:${line} is not a KEY=value line; it is ignored`);
    state = { mtimeMs: st.mtimeMs, size: st.size, values: parsed.values, warnings };
    return state;
  }

  function fromEnv(name: string): string | undefined {
    const v = options.env[name]?.trim();
    return v ? v : undefined;
  }

  return {
    path,
    get(name) {
      return fromEnv(name) ?? file().values.get(name);
    },
    source(name) {
      if (fromEnv(name)) return 'env';
      return file().values.has(name) ? 'file' : undefined;
    },
    warnings() {
      return [...file().warnings];
    },
  };
}

export { parseKeysFile };
