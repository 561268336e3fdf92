import { Injectable } from '@nestjs/common';
import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { isCleanPath } from './edge-input';
import { splitUrl } from './split-url';
import { ParsedRequest } from './parsed-request';
import { envelopeStatus, noteAnswer } from './request-note';

/**
 * A route served straight from the HTTP server's request event, before Express and Nest's
 * handler pipeline, which cost about half of the server's CPU on the password read. A lean
 * route serves only the request shapes it fully understands and returns false for anything
 * else, which Express then serves as usual through the same controller.
 */
export abstract class LeanRoute {
  abstract handle(req: IncomingMessage, res: ServerResponse): boolean;
}

/** The lean routes of one service; a lean route registers itself when it is created. */
@Injectable()
export class LeanRoutes {
  private readonly routes: LeanRoute[] = [];

  register(route: LeanRoute): void {
    this.routes.push(route);
  }

  /** Puts the routes in front of Express on the service's HTTP server (when there are any). */
  install(server: Server): void {
    if (this.routes.length === 0) return;
    const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      // Odd paths go the long way, where the edge checks refuse them by parameter name.
      if (isCleanPath(splitUrl(req.url ?? '').path) && this.routes.some((route) => route.handle(req, res))) return;
      for (const listener of listeners) listener.call(server, req, res);
    });
  }
}

/** A JSON answer with the headers every response of ours carries (no caching, no ETag). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  noteAnswer(res, status, envelopeStatus(body), status >= 500 ? errorIdIn(body) : undefined);
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  });
  res.end(text);
}

/** A bodiless request is a GET without Content-Length or Transfer-Encoding. */
export function hasNoBody(req: IncomingMessage): boolean {
  return !req.headers['transfer-encoding'] && (req.headers['content-length'] ?? '0') === '0';
}

/**
 * The view of a bodiless request that the shared readers use (token carriers, INPUT_DATA,
 * client address), parsed like Express's default query parser.
 */
export function leanRequest(req: IncomingMessage, path: string, queryString: string): ParsedRequest {
  return Object.assign(req, { path, query: parseQuery(queryString), body: {} }) as unknown as ParsedRequest;
}

// The lean routes answer faults through errorAnswer, whose message carries the error id.
function errorIdIn(body: unknown): string | undefined {
  return /error id ([0-9a-f-]{36})/.exec(JSON.stringify(body))?.[1];
}
