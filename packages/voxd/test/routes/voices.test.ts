/**
 * GET /v1/voices through fastify's inject (docs/protocol.md, "GET /v1/voices"):
 * the guard, the query's schema, an unknown engine, and the engine's voices.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wireError } from '@vox/protocol';
import { buildServer } from '../../src/server.js';
import { assertGuarded, AUTH, routeRig } from '../fixtures/route-rig.js';

test('the token is required and a browser page is refused', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  await assertGuarded(app, { method: 'GET', url: '/v1/voices' });
});

test('the query is checked: an unknown parameter, an empty engine, an unknown engine', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  const cases: Array<[string, ReturnType<typeof wireError>]> = [
    ['/v1/voices?lang=en', wireError('VOX_ERR_BODY_INVALID', 'unknown field "lang"')],
    ['/v1/voices?engine=', wireError('VOX_ERR_BODY_INVALID', 'field "engine" must NOT have fewer than 1 characters')],
    ['/v1/voices?engine=nope', wireError('VOX_ERR_ENGINE_UNKNOWN', '"nope"', 'espeak')],
  ];
  for (const [url, error] of cases) {
    const r = await app.inject({ method: 'GET', url, headers: AUTH });
    assert.equal(r.statusCode, error.statusCode, url);
    assert.deepEqual(r.json(), error);
  }
});

test("the default engine's voices, and the named engine's", async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  const voices = [
    { id: 'low', name: 'Low', languages: ['en'], engine: 'espeak' },
    { id: 'high', name: 'High', languages: ['en'], engine: 'espeak' },
  ];
  for (const url of ['/v1/voices', '/v1/voices?engine=espeak', '/v1/voices?engine=auto']) {
    const r = await app.inject({ method: 'GET', url, headers: AUTH });
    assert.equal(r.statusCode, 200, url);
    assert.deepEqual(r.json(), { engine: 'espeak', voices }, url);
  }
});
