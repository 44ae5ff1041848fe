/**
 * The mod's keys act in "this session", so each tells voxd the person is in
 * it (docs/attention.md): POST /v1/focus with the session's label, as
 * `vox focus` does. `/vox-talk` is a talk; `/vox-stop` names the session as
 * `vox focus` would. `FocusBody` restates @vox/protocol's FocusRequest: a mod
 * cannot import a package (a test checks it against the schema).
 */

export interface FocusBody {
  session: string;
  reason: 'talk' | 'named';
}

export function focusRequest(label: string, key: 'vox-talk' | 'vox-stop'): FocusBody {
  return { session: label, reason: key === 'vox-talk' ? 'talk' : 'named' };
}
