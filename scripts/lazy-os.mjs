// node:os as the hot bundles see it (scripts/bundle.mjs): they use only
// homedir(), and only when VOX_HOME is unset. os.homedir() is HOME when HOME is
// set, except on Windows (libuv's uv_os_homedir), so node:os loads only when
// HOME is unset or on Windows: loading it costs every `vox say` and
// `vox hook` about 0.2 ms. A name the bundles import that is not here fails
// the build.
export function homedir() {
  return process.platform !== 'win32' && process.env.HOME !== undefined
    ? process.env.HOME
    : require('node:os').homedir();
}
