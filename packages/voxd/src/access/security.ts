/**
 * Request guards: voxd listens on loopback and speaks for the local user only.
 * A browser page could reach 127.0.0.1 too, so requests with an Origin header
 * or a non-loopback Host (DNS rebinding) are refused, and every route but the
 * minimal health check needs the bearer token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { wireError } from '@vox/protocol';

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

/**
 * A Host header is the whole `host[:port]` (RFC 9110): anything after the
 * host that is not a port (`[::1].evil.com`, `127.0.0.1:80@evil.com`) makes
 * it a different host, so the header must match this exactly.
 */
const HOST_HEADER = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;
const IPV4_LOOPBACK = /^127\.(?:25[0-5]|2[0-4]\d|1?\d?\d)\.(?:25[0-5]|2[0-4]\d|1?\d?\d)\.(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;

export function isLoopbackHost(hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return true; // HTTP/1.0 clients send none; the socket is loopback anyway.
  const m = HOST_HEADER.exec(hostHeader);
  if (!m) return false;
  const host = m[1]!.toLowerCase();
  if (m[2] !== undefined && Number(m[2]) > 65535) return false;
  return LOOPBACK_HOSTS.has(host) || IPV4_LOOPBACK.test(host);
}

export function tokenMatches(header: string | undefined, token: string): 'ok' | 'missing' | 'invalid' {
  if (!header) return 'missing';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return 'invalid';
  const given = Buffer.from(m[1]!);
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want) ? 'ok' : 'invalid';
}

export function guard(token: string, publicPaths: ReadonlySet<string>) {
  return async function guardRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.headers.origin !== undefined) {
      const e = wireError('VOX_ERR_ORIGIN_FORBIDDEN');
      return reply.code(e.statusCode).send(e);
    }
    if (!isLoopbackHost(request.headers.host)) {
      const e = wireError('VOX_ERR_HOST_FORBIDDEN', JSON.stringify(String(request.headers.host).slice(0, 100)));
      return reply.code(e.statusCode).send(e);
    }
    if (publicPaths.has(request.routeOptions.url ?? '')) return;
    const verdict = tokenMatches(request.headers.authorization, token);
    if (verdict !== 'ok') {
      const e = wireError(verdict === 'missing' ? 'VOX_ERR_AUTH_MISSING' : 'VOX_ERR_AUTH_INVALID');
      return reply.code(e.statusCode).send(e);
    }
  };
}
