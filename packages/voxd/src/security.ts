/**
 * Request guards: voxd listens on loopback and speaks for the local user only.
 * A browser page could reach 127.0.0.1 too, so requests with an Origin header
 * or a non-loopback Host (DNS rebinding) are refused, and every route but the
 * minimal health check needs the bearer token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { wireError } from '@vox/protocol';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function isLoopbackHost(hostHeader: string | undefined): boolean {
  if (!hostHeader) return true; // HTTP/1.0 clients send none; the socket is loopback anyway.
  const host = hostHeader.startsWith('[') ? hostHeader.slice(0, hostHeader.indexOf(']') + 1) : hostHeader.split(':')[0]!;
  return LOOPBACK_HOSTS.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
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
