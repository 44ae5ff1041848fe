/**
 * The routes' validators (validators.ts): the build's generated file
 * (scripts/validators.mjs, run by `npm run build`) holds every schema the
 * server compiles, and its validators answer as ajv's do; without it, ajv is
 * loaded at the first validation, not when the server is built.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { buildServer } from '../src/server.js';
import { ajvValidators, validatorKey, type Validate, type ValidatorBuilder } from '../src/validators.js';
import { AUTH, routeRig } from './fixtures/route-rig.js';

const require = createRequire(import.meta.url);
const generated = require('../dist/validators.generated.cjs') as Map<string, Validate>;

/** The generated validators alone: a schema it lacks fails the build of the server. */
const generatedOnly: ValidatorBuilder = (_external, ajvOptions) => (route) => {
  const v = generated.get(validatorKey(ajvOptions, route));
  if (!v) throw new Error(`not generated: ${route.method} ${route.url} ${route.httpPart}`);
  return v;
};

test('without a generated validator, ajv is loaded at the first validation, not when the server is built', async (t) => {
  const compiler = require.resolve('@fastify/ajv-compiler', { paths: [require.resolve('fastify')] });
  const ajvPath = require.resolve('ajv', { paths: [compiler] });
  const { app } = await buildServer({ ...routeRig().options, validators: ajvValidators });
  t.after(() => app.close());
  await app.ready();
  // First in this file: nothing before it loaded ajv.
  assert.equal(require.cache[ajvPath], undefined, 'ajv loaded by building the server');
  const r = await app.inject({ method: 'POST', url: '/v1/speak', headers: AUTH, payload: { nope: 1 } });
  assert.equal(r.statusCode, 400, r.body);
  assert.ok(require.cache[ajvPath], 'ajv loaded for the validation');
});

test('every schema the server compiles is in the generated file', async (t) => {
  const routes: string[] = [];
  const keys = new Set<string>();
  const recording: ValidatorBuilder = (external, ajvOptions) => {
    const ajv = ajvValidators(external, ajvOptions);
    return (route) => {
      routes.push(`${route.method} ${route.url} ${route.httpPart}`);
      keys.add(validatorKey(ajvOptions, route));
      assert.ok(generated.has(validatorKey(ajvOptions, route)), `${route.method} ${route.url} ${route.httpPart}`);
      return ajv(route);
    };
  };
  const { app } = await buildServer({ ...routeRig().options, validators: recording });
  t.after(() => app.close());
  await app.ready();
  assert.ok(routes.includes('POST /v1/speak body'), routes.join(', '));
  // Nothing else in it (HEAD /v1/status shares GET's schema: one entry).
  assert.equal(generated.size, keys.size);
});

test('the generated validators refuse what ajv refuses, with the same answer', async (t) => {
  const withAjv = await buildServer({ ...routeRig().options, validators: ajvValidators });
  const withGenerated = await buildServer({ ...routeRig().options, validators: generatedOnly });
  t.after(() => Promise.all([withAjv.app.close(), withGenerated.app.close()]));
  const posts = ['/v1/speak', '/v1/chime', '/v1/stop', '/v1/focus', '/v1/narration', '/v1/talk', '/v1/synthesize'];
  const bodies: unknown[] = [
    {},
    [],
    'text',
    { text: 5 },
    { text: 'x'.repeat(30_000) },
    { text: 'hello', nope: true },
    { text: 'hello', priority: 'loudest' },
    { signal: 'ding' },
    { session: 7 },
  ];
  let refused = 0;
  for (const url of posts) {
    for (const payload of bodies) {
      const a = await withAjv.app.inject({ method: 'POST', url, headers: AUTH, payload: payload as object });
      if (a.statusCode !== 400) continue;
      const g = await withGenerated.app.inject({ method: 'POST', url, headers: AUTH, payload: payload as object });
      assert.equal(g.statusCode, 400, `${url} ${JSON.stringify(payload)}: ${g.body}`);
      assert.deepEqual(g.json(), a.json(), `${url} ${JSON.stringify(payload)}`);
      refused++;
    }
  }
  for (const url of ['/v1/status?offset=x', '/v1/status?limit=1&nope=1', '/v1/voices?engine=']) {
    const a = await withAjv.app.inject({ method: 'GET', url, headers: AUTH });
    const g = await withGenerated.app.inject({ method: 'GET', url, headers: AUTH });
    assert.equal(a.statusCode, 400, `${url}: ${a.body}`);
    assert.deepEqual([g.statusCode, g.json()], [a.statusCode, a.json()], url);
    refused++;
  }
  assert.ok(refused > 20, `refusals compared: ${refused}`);
});
