/**
 * GET /v1/health through fastify's inject (docs/protocol.md, "GET /v1/health"):
 * the one public route, so no token is needed, but a browser page and a
 * foreign Host are still refused; 503 `ok: false` while voxd shuts down.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wireError } from '@vox/protocol';
import { buildServer } from '../../src/server.js';
import { AUTH, routeRig } from '../fixtures/route-rig.js';

test('no token needed: {ok, version} and the version header, with or without a token', async (t) => {
  const { app } = await buildServer({ ...routeRig().options, version: '9.8.7-test' });
  t.after(() => app.close());
  for (const headers of [{ host: '127.0.0.1' }, AUTH, { ...AUTH, authorization: 'Bearer wrong' }]) {
    const r = await app.inject({ method: 'GET', url: '/v1/health', headers });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { ok: true, version: '9.8.7-test' });
    assert.equal(r.headers['x-voxd-version'], '9.8.7-test');
  }
});

test('a browser page (Origin) and a foreign Host are refused even here', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  const origin = await app.inject({
    method: 'GET',
    url: '/v1/health',
    headers: { host: '127.0.0.1', origin: 'http://localhost:3000' },
  });
  assert.equal(origin.statusCode, 403);
  assert.deepEqual(origin.json(), wireError('VOX_ERR_ORIGIN_FORBIDDEN'));
  const host = await app.inject({ method: 'GET', url: '/v1/health', headers: { host: 'evil.example:8421' } });
  assert.equal(host.statusCode, 403);
  assert.deepEqual(host.json(), wireError('VOX_ERR_HOST_FORBIDDEN', '"evil.example:8421"'));
});

test('GET only, with no body to check: a POST is 404 VOX_ERR_NOT_FOUND', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  const r = await app.inject({ method: 'POST', url: '/v1/health', headers: AUTH, payload: { ok: false } });
  assert.equal(r.statusCode, 404);
  assert.deepEqual(r.json(), wireError('VOX_ERR_NOT_FOUND', 'POST /v1/health'));
});

test('503 {ok: false} once the dispatcher is closing', async (t) => {
  const { app, dispatcher } = await buildServer({ ...routeRig().options, version: '9.8.7-test' });
  t.after(() => app.close());
  await dispatcher.close();
  const r = await app.inject({ method: 'GET', url: '/v1/health', headers: { host: '127.0.0.1' } });
  assert.equal(r.statusCode, 503);
  assert.deepEqual(r.json(), { ok: false, version: '9.8.7-test' });
});
