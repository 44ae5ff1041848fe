#!/usr/bin/env node
'use strict';
// The file npm links as `vox` (dist/vox.cjs, which older hook settings name,
// loads it too). Every shell script, Biff wall and Claude Code command hook
// starts one, so it loads as little as it can (docs/benchmarks.md):
// - `say` and `unmute` get a bundle of their own, dist/vox-say.cjs, and `hook`
//   another, dist/vox-hook.cjs; `mcp`, which runs for a whole session, gets
//   dist/vox-mcp.cjs; every other command gets the whole CLI, dist/vox-cli.cjs
//   (scripts/bundle.mjs).
// - The two hot bundles are compiled here with a V8 code cache, on every Node
//   line (Node 20 has no module compile cache): the cache is written at the
//   end of a run, so it holds the functions that the run compiled, not only
//   the top level that Node's own cache keeps (and once more by the first run
//   that reaches voxd, if the first was one that did not). One file per
//   bundle and Node version, in $XDG_CACHE_HOME/vox/code-cache
//   (~/.cache/vox/code-cache; ~/Library/Caches/vox/code-cache on macOS), used
//   only when it names the bundle's size, times and inode, its data has the
//   checksum its header names (a mismatch deletes it), it is a regular file of
//   this user's that no one else can write, in directories of this user's
//   that are not links. A missing, stale, damaged or unwritable cache only
//   costs the compile.
// - The whole CLI and vox-mcp.cjs use Node's module compile cache (Node 22.1
//   and later) in $XDG_CACHE_HOME/vox/compile-cache.
// NODE_DISABLE_COMPILE_CACHE turns both off (NODE_COMPILE_CACHE, when set,
// decides for the whole CLI).
// This file exists before the build (npm links bins before `prepare` runs);
// the bundles are built by `npm run build`.
const command = process.argv[2];
const hot = command === 'say' || command === 'unmute' ? 'vox-say.cjs' : command === 'hook' ? 'vox-hook.cjs' : undefined;

if (hot) runHot(hot);
else runCli(command === 'mcp' ? 'vox-mcp.cjs' : 'vox-cli.cjs');

function notBuilt() {
  process.stderr.write('vox: not built yet; run "npm run build" in the vox repository\n');
  process.exit(1);
}

/** The per-user cache directory for `kind`, or undefined when there is no home to put it in. */
function cacheDir(path, kind) {
  const { XDG_CACHE_HOME, HOME } = process.env;
  // os.homedir() is HOME when set, except on Windows; loading node:os costs a hot run more than reading it.
  const home = HOME !== undefined && process.platform !== 'win32' ? HOME : require('node:os').homedir();
  const caches = XDG_CACHE_HOME || path.join(home, process.platform === 'darwin' ? 'Library/Caches' : '.cache');
  // A relative XDG_CACHE_HOME (or an empty HOME) would put it under the cwd: no cache then.
  return path.isAbsolute(caches) ? path.join(caches, 'vox', kind) : undefined;
}

function runCli(name) {
  const { enableCompileCache } = require('node:module');
  if (enableCompileCache && !process.env.NODE_DISABLE_COMPILE_CACHE) {
    try {
      const dir = cacheDir(require('node:path'), 'compile-cache');
      // Reports a failure (an unwritable directory) as a status; it never stops vox.
      if (dir) enableCompileCache(dir);
    } catch {
      // no home directory: run without the cache
    }
  }
  try {
    require(`../dist/${name}`);
  } catch (err) {
    // Only a missing bundle is "not built"; anything else is a real error.
    if (
      err &&
      err.code === 'MODULE_NOT_FOUND' &&
      !require('node:fs').existsSync(require('node:path').join(__dirname, '../dist', name))
    )
      notBuilt();
    throw err;
  }
}

/** FNV-1a of a string, as 8 hex digits: tells the cache files of two installs apart. */
function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * True when `dir` and its parent (…/vox/code-cache and …/vox) are directories
 * of this user that no one else can write, and neither is a symbolic link:
 * under a shared sticky directory (XDG_CACHE_HOME=/tmp) another user could
 * otherwise plant the cache, or a FIFO in its place.
 */
function ownDir(fs, path, dir) {
  // Owners and modes mean something only on POSIX (Windows has no getuid).
  const uid = process.getuid && process.getuid();
  if (uid === undefined) return true;
  for (const d of [dir, path.dirname(dir)]) {
    try {
      const st = fs.lstatSync(d);
      if (!st.isDirectory() || st.uid !== uid || st.mode & 0o022) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * A Fletcher-style checksum of the V8 data, in the header: V8 checks only its
 * own header, and flipped bytes past it crash the run (SIGTRAP). Not crypto:
 * the file is this user's own (checked above), and node:crypto's SHA-1 cost a
 * hot run about 10 ms. Two 32-bit sums over the native-endian 32-bit words
 * (then the tail bytes), so any changed word changes it; 16 hex digits.
 */
function digest(data) {
  // Words from the data's first byte, wherever it sits in memory: a copy when it is not 4-byte aligned.
  if (data.byteOffset % 4) data = Buffer.from(data);
  const words = data.length >>> 2;
  const u32 = new Uint32Array(data.buffer, data.byteOffset, words);
  let a = 0;
  let b = 0;
  for (let i = 0; i < words; i++) {
    a = (a + u32[i] + 1) | 0;
    b = (b + a) | 0;
  }
  for (let i = words * 4; i < data.length; i++) {
    a = (a + data[i] + 1) | 0;
    b = (b + a) | 0;
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/**
 * The cache file's V8 data and whether a run that reached voxd wrote it, when
 * its first line names this bundle (`identity`), its data has the digest that
 * line names and only this user can have written it; else undefined. A file
 * whose data does not match is deleted. Opened non-blocking and without
 * following a link: a FIFO or a link in its place is passed over at once.
 */
function readCache(fs, file, identity) {
  let fd;
  try {
    const { O_RDONLY, O_NONBLOCK = 0, O_NOFOLLOW = 0 } = fs.constants;
    fd = fs.openSync(file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
    const st = fs.fstatSync(fd);
    // Owner and mode mean something only on POSIX (Windows reports every file 0o666, and has no getuid).
    if (
      !st.isFile() ||
      (process.getuid && (st.mode & 0o022 || st.uid !== process.getuid())) ||
      st.size > 64 * 1024 * 1024
    )
      return undefined;
    const data = fs.readFileSync(fd);
    const nl = data.indexOf(10);
    const header = nl > 0 ? data.toString('latin1', 0, nl) : '';
    const m = header.startsWith(`${identity} `)
      ? /^(full|partial) ([0-9a-f]{16})$/.exec(header.slice(identity.length + 1))
      : null;
    if (!m) return undefined;
    const v8data = data.subarray(nl + 1);
    if (digest(v8data) !== m[2]) {
      fs.unlinkSync(file);
      return undefined;
    }
    return { data: v8data, full: m[1] === 'full' };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Write the cache file whole or not at all (a temp file renamed over it), only into a directory of this user's; never throws. */
function writeCache(fs, path, dir, file, header, data) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!ownDir(fs, path, dir)) return;
    fs.writeFileSync(tmp, Buffer.concat([Buffer.from(`${header} ${digest(data)}\n`, 'latin1'), data]), {
      mode: 0o600,
      flag: 'wx',
    });
    fs.renameSync(tmp, file);
  } catch {
    // unwritable or full: the next run compiles again
    try {
      fs.unlinkSync(tmp);
    } catch {
      // never created
    }
  }
}

/** Run dist/<name> as the CommonJS module it is, compiled with the code cache. */
function runHot(name) {
  const fs = require('node:fs');
  const path = require('node:path');
  const file = path.join(__dirname, '..', 'dist', name);
  let source;
  let st;
  try {
    // The stat first: if the file changes in between, the next run sees another identity and replaces the cache.
    st = fs.statSync(file);
    source = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err && err.code === 'ENOENT') notBuilt();
    throw err;
  }
  const dir = process.env.NODE_DISABLE_COMPILE_CACHE ? undefined : cacheDir(path, 'code-cache');
  // The bundle as it is on disk: any rebuild or reinstall changes its ctime or inode.
  const identity = `vox-code-cache 3 ${st.size} ${st.mtimeMs} ${st.ctimeMs} ${st.ino} ${st.dev}`;
  const cacheFile = dir && path.join(dir, `${name}-${process.version}-${process.arch}-${hash(file)}.bin`);
  const cached = cacheFile && ownDir(fs, path, dir) ? readCache(fs, cacheFile, identity) : undefined;

  // What require() would do: a Module in require.cache, with its own require.
  const Module = module.constructor;
  const m = new Module(file, module);
  m.filename = file;
  m.paths = Module._nodeModulePaths(path.dirname(file));
  require.cache[file] = m;
  const req = (id) => m.require(id);
  req.resolve = (request, options) => Module._resolveFilename(request, m, false, options);
  req.main = require.main;
  req.cache = require.cache;
  const { Script } = require('node:vm');
  // The file is wrapped already (scripts/bundle.mjs): compiled as read, not copied into a wrapper.
  const script = new Script(source, {
    filename: file,
    ...(cached ? { cachedData: cached.data } : {}),
  });
  const usable = cached && !script.cachedDataRejected;
  if (cacheFile && !(usable && cached.full)) {
    // Written at the end, so that it holds what this run compiled. A run that sent voxd nothing (--help, a
    // usage error, an event that says nothing) compiled only part of the code: its cache is "partial",
    // and the first run that sends a request replaces it. Known only here, so only here is it watched.
    let sent = false;
    const started = () => (sent = true);
    const channel = 'http.client.request.start';
    require('node:diagnostics_channel').subscribe(channel, started);
    process.once('exit', () => {
      require('node:diagnostics_channel').unsubscribe(channel, started);
      if (!usable || sent)
        writeCache(fs, path, dir, cacheFile, `${identity} ${sent ? 'full' : 'partial'}`, script.createCachedData());
    });
  }
  script.runInThisContext().call(m.exports, m.exports, req, m, file, path.dirname(file));
  m.loaded = true;
}
