/**
 * The compilers of the routes' schemas, given to Fastify (its `schemaController`
 * option), so that voxd runs without ajv (issue 34: loaded at start, ajv and
 * fast-json-stringify held some 5 MB of private memory at rest and after).
 *
 * `npm run build` (scripts/validators.mjs) builds the server once and writes
 * ajv's standalone code of every route schema, compiled with the server's own
 * ajv options, to dist/validators.generated.cjs: a Map from `validatorKey()`
 * to the validator. A schema found there is validated by that code; any other
 * (no build, or a schema changed since) by ajv, loaded at its first use. The
 * key holds the schema and the options, so a stale file is never used.
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

/** What Fastify gives a validator compiler for one part of one route. */
export interface RouteSchema {
  schema: unknown;
  method?: string;
  url?: string;
  httpPart?: string;
}
/** A validator as Fastify calls it: the result, then `errors` when it is false. */
export type Validate = ((data: unknown, context?: object) => unknown) & { errors?: unknown; schemaEnv?: unknown };
/** Fastify's `compilersFactory.buildValidator`: server-wide, then per route schema. */
export type ValidatorBuilder = (externalSchemas: unknown, ajvOptions: unknown) => (route: RouteSchema) => Validate;
type Serialize = (data: unknown) => string;
type SerializerBuilder = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => Serialize;

/** The generated file's key of one route part's validator. */
export function validatorKey(ajvOptions: unknown, route: RouteSchema): string {
  return JSON.stringify([ajvOptions, route.httpPart, route.schema]);
}

const require = createRequire(import.meta.url);
/** Fastify's own compilers, required as Fastify would (they are its dependencies, not voxd's). */
const fastifyRequire = () => createRequire(require.resolve('fastify'));

function generated(): Map<string, Validate> {
  try {
    return require('./validators.generated.cjs') as Map<string, Validate>;
  } catch {
    return new Map();
  }
}

/** Validates with ajv (Fastify's default compiler), loaded and compiled at the first call. */
function ajvValidator(compiler: () => (route: RouteSchema) => Validate, route: RouteSchema): Validate {
  let real: Validate | undefined;
  const load = () => (real ??= compiler()(route));
  const validate: Validate = (data, context) => {
    const r = load();
    const result = context === undefined ? r(data) : r(data, context);
    validate.errors = r.errors;
    return result;
  };
  // Fastify passes the parent object to validators that have one (ajv's may replace the root value).
  Object.defineProperty(validate, 'schemaEnv', { get: () => load().schemaEnv });
  return validate;
}

/** ajv's validators for every schema, loaded at first use (what the build's generator compiles with). */
export const ajvValidators: ValidatorBuilder = (externalSchemas, ajvOptions) => {
  let compiler: ((route: RouteSchema) => Validate) | undefined;
  const load = () => {
    const selector = fastifyRequire()('@fastify/ajv-compiler') as () => ValidatorBuilder;
    return (compiler ??= selector()(externalSchemas, ajvOptions));
  };
  return (route) => ajvValidator(load, route);
};

/** The build's validators where it has the schema, else ajv's. */
export const validators: ValidatorBuilder = (externalSchemas, ajvOptions) => {
  const known = generated();
  const fallback = ajvValidators(externalSchemas, ajvOptions);
  return (route) => known.get(validatorKey(ajvOptions, route)) ?? fallback(route);
};

/** Response serializers (no voxd route has a response schema): fast-json-stringify, loaded at first use. */
const serializers: SerializerBuilder = (externalSchemas, options) => (route) => {
  let real: Serialize | undefined;
  return (data) => {
    if (!real) {
      const selector = fastifyRequire()('@fastify/fast-json-stringify-compiler') as () => SerializerBuilder;
      real = selector()(externalSchemas, options)(route);
    }
    return real(data);
  };
};

type CompilersFactory = NonNullable<FastifyServerOptions['schemaController']>['compilersFactory'];

/** Fastify's `schemaController.compilersFactory` (its types name ajv's own functions, which ours stand in for). */
export function schemaCompilers(buildValidator: ValidatorBuilder = validators): CompilersFactory {
  return { buildValidator, buildSerializer: serializers } as unknown as CompilersFactory;
}
