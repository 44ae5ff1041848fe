/**
 * The environment asks for a sink or engine other than the running voxd's:
 * one line that says so, once a process (`vox say`, `vox hook`, `vox mcp`).
 */
import { readDaemonState } from './http.js';

let mismatchTold = false;

/**
 * When this environment asks for an audio sink or engine other than the one
 * the running voxd uses, one line that says so and how to switch; undefined
 * otherwise, and after the first time in this process. Reads voxd.json only
 * when VOXD_AUDIO or VOXD_ENGINE is set, so the usual run pays nothing.
 */
export function settingsMismatch(env: NodeJS.ProcessEnv): string | undefined {
  if (mismatchTold || (!env.VOXD_AUDIO && !env.VOXD_ENGINE)) return undefined;
  const state = readDaemonState(env);
  if (!state) return undefined;
  const differ: string[] = [];
  const fixes: string[] = [];
  const check = (variable: string, key: 'audio' | 'engine', running: string | undefined) => {
    const wanted = env[variable];
    if (!wanted || running === undefined || wanted === running) return;
    const from = state.sources?.[key];
    const why = {
      file: 'from its settings file',
      env: 'from its environment',
      flag: 'from its command line',
      default: 'its default',
    }[from ?? ''];
    differ.push(`${variable}=${wanted} here, but the running voxd uses ${key} ${running}${why ? ` (${why})` : ''}`);
    fixes.push(`vox daemon config set ${key} ${wanted}`);
  };
  check('VOXD_AUDIO', 'audio', state.audio);
  check('VOXD_ENGINE', 'engine', state.engine);
  if (!differ.length) return undefined;
  mismatchTold = true;
  return `${differ.join('; ')}. To switch, run "${fixes.join('" and "')}", then "vox daemon restart" (voxd takes its settings from that file, not from the client that starts it).`;
}
