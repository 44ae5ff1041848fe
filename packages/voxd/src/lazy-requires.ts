/**
 * Modules voxd's dependencies load and voxd never uses, loaded only if
 * something reaches into them. Imported first by daemon.ts, for its side effect.
 *
 * Design note (docs/benchmarks.md, "Where voxd's memory goes"): Fastify's
 * server module requires `node:https`, `node:http2` and `node:dns` at load,
 * for the TLS, HTTP/2 and several-address listeners voxd never asks for
 * (plain HTTP on one loopback address); its plugin checks require `semver`
 * for plugins that name a Fastify version (voxd's do not); pino's transport
 * module requires `thread-stream` for transports (voxd writes its own
 * stream); rotating-file-stream requires `zlib` for compressed rotations
 * (voxd's are not); @particle/dbus-next requires `xml2js` (with xmlbuilder
 * and sax, 38 files) to build and parse introspection data, and makes its
 * builder when it connects, though a client may never ask. A resolve hook
 * (`module.registerHooks`, Node 22.15 and later; without it nothing changes)
 * gives each of those importers, and them alone, a stand-in: an object that
 * loads the real module the first time one of its properties is read, or one
 * of its functions named in READ_EARLY is called (or constructed).
 */
import { createRequire, registerHooks } from 'node:module';

/** Importer (the end of its URL) -> the specifiers it is given stand-ins for. */
const LAZY: Array<[RegExp, Set<string>]> = [
  [/\/node_modules\/fastify\/lib\/server\.js$/, new Set(['node:https', 'node:http2', 'node:dns'])],
  [/\/node_modules\/fastify\/lib\/plugin-utils\.js$/, new Set(['semver'])],
  [/\/node_modules\/pino\/lib\/transport\.js$/, new Set(['thread-stream'])],
  [/\/node_modules\/rotating-file-stream\/dist\/cjs\/index\.js$/, new Set(['zlib'])],
  [/\/node_modules\/@particle\/dbus-next\/lib\/(?:bus|client\/proxy-object)\.js$/, new Set(['xml2js'])],
];
/** Functions (and classes) an importer reads from its stand-in early but calls (or constructs) only later. */
const READ_EARLY: Record<string, string[]> = { zlib: ['createGzip'], xml2js: ['Builder', 'Parser'] };
const SCHEME = 'vox-lazy:';
const KEY = Symbol.for('vox.lazyRequire');

/**
 * A stand-in for what `load()` returns: loaded at the first property read, then passed through.
 * The `functions` named are read without loading: each loads at its first call, and with `new`
 * gives a stand-in of the instance, made at the first use of one of its properties.
 */
export function lazyModule(load: () => object, functions: readonly string[] = []): object {
  let real: object | undefined;
  const target = () => (real ??= load());
  const later = (name: string) =>
    function deferred(...args: unknown[]): unknown {
      const f = () => Reflect.get(target(), name) as new (...a: unknown[]) => object;
      if (new.target) return lazyModule(() => Reflect.construct(f(), args));
      return Reflect.apply(f(), target(), args);
    };
  const deferred = new Map(functions.map((name) => [name, later(name)]));
  return new Proxy(
    {},
    {
      get: (_, key) => (typeof key === 'string' && deferred.get(key)) || Reflect.get(target(), key),
      set: (_, key, value) => Reflect.set(target(), key, value),
      has: (_, key) => Reflect.has(target(), key),
      ownKeys: () => Reflect.ownKeys(target()),
      getOwnPropertyDescriptor: (_, key) => {
        const d = Reflect.getOwnPropertyDescriptor(target(), key);
        return d && { ...d, configurable: true };
      },
    },
  );
}

/** The stand-ins made so far, by `specifier\0importer`. */
const standIns = new Map<string, object>();
/** Set while a stand-in loads its real module: the hook must not answer with the stand-in again. */
let loadingReal = false;

function standIn(key: string): object {
  let s = standIns.get(key);
  if (!s) {
    const [specifier, importer] = key.split('\0') as [string, string];
    s = lazyModule(() => {
      loadingReal = true;
      try {
        // By its resolved path: the importer's own `require(specifier)` is cached as the stand-in.
        const require = createRequire(importer);
        return require(require.resolve(specifier)) as object;
      } finally {
        loadingReal = false;
      }
    }, READ_EARLY[specifier]);
    standIns.set(key, s);
  }
  return s;
}

/** The stand-ins' source: a CommonJS module whose exports are the stand-in for `key`. */
const source = (key: string) => `module.exports = globalThis[Symbol.for('vox.lazyRequire')](${JSON.stringify(key)});`;

function register(): { deregister(): void } | undefined {
  if (typeof registerHooks !== 'function') return undefined;
  (globalThis as Record<symbol, unknown>)[KEY] = standIn;
  return registerHooks({
    resolve(specifier, context, next) {
      const parent = context.parentURL;
      if (parent && !loadingReal && LAZY.some(([importer, names]) => names.has(specifier) && importer.test(parent))) {
        return { url: `${SCHEME}${encodeURIComponent(`${specifier}\0${parent}`)}`, shortCircuit: true };
      }
      return next(specifier, context);
    },
    load(url, context, next) {
      if (!url.startsWith(SCHEME)) return next(url, context);
      return { format: 'commonjs', source: source(decodeURIComponent(url.slice(SCHEME.length))), shortCircuit: true };
    },
  });
}

const hooks = register();

/**
 * Called once the importers above are loaded (daemon.ts, after its imports): the
 * hook is removed, so the modules voxd loads later, on its first requests, take
 * Node's own path (with the hook in place, the first request after start took
 * 60 ms more).
 */
export function endLazyRequires(): void {
  hooks?.deregister();
}

/** `load()` (a dynamic import) with the stand-ins in place again, for its importers loaded later (MPRIS's bus). */
export async function withLazyRequires<T>(load: () => Promise<T>): Promise<T> {
  endLazyRequires();
  const during = register();
  try {
    return await load();
  } finally {
    during?.deregister();
  }
}
