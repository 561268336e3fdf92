import { NextFunction, Request, Response } from 'express';
import { AppError } from './app-error';
import { splitUrl } from './split-url';

/*
 * Input that PostgreSQL cannot store (a NUL character) or that cannot even be decoded
 * (malformed percent-encoding) is refused here, at the edge, with a message naming the
 * field, before any service sees it. Found by the fuzz suite (test/fuzz).
 */

export interface EdgeAwareRequest extends Request {
  /** Path segments whose percent-encoding was malformed, as the literal text routing saw. */
  malformedSegments?: string[];
}

/** Names of path parameters as clients know them, for messages. */
const PARAM_LABELS: Record<string, string> = {
  rid: 'resource id',
  aid: 'account id',
  uid: 'requester id',
  gid: 'resource group id',
  userid: 'user id',
  name: 'resource name',
  rname: 'resource name',
  aname: 'account name',
  file: 'file name',
};

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_DEPTH = 32;

/**
 * Before routing: a path segment that does not decode is made literal (its `%` escaped) so
 * the route still matches and the handler's guard can refuse it by parameter name.
 */
export function pathEncodingMiddleware(req: EdgeAwareRequest, _res: Response, next: NextFunction): void {
  const { path, search } = splitUrl(req.url);
  if (!path.includes('%')) return next();
  const malformed: string[] = [];
  const segments = path.split('/').map((segment) => {
    if (decodes(segment)) return segment;
    malformed.push(segment);
    return segment.replace(/%/g, '%25');
  });
  if (malformed.length > 0) {
    req.malformedSegments = malformed;
    req.url = segments.join('/') + search;
  }
  next();
}

/** True when every segment of the path decodes and none holds a NUL (lean routes serve only those). */
export function isCleanPath(path: string): boolean {
  if (!path.includes('%')) return true;
  return path.split('/').every((segment) => decodes(segment) && !/%00/.test(segment));
}

/** Inside the route: refuses a path parameter that was malformed or holds a NUL, naming it. */
export function refuseUnstorableParams(req: EdgeAwareRequest): void {
  const params = (req.params ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value !== 'string') continue;
    const label = PARAM_LABELS[name] ?? name;
    if (req.malformedSegments?.includes(value)) throw AppError.invalid(`Invalid ${label}: malformed percent-encoding`);
    if (value.includes('\u0000')) throw AppError.invalid(`Invalid ${label}: contains a NUL character`);
  }
}

/**
 * Refuses a value that cannot be stored: a NUL character in any text, an object key that
 * would reach a prototype (`__proto__`, `constructor`, `prototype`), or nesting deeper than
 * any request needs. `field` names the value in the message.
 */
export function refuseUnstorable(field: string, value: unknown, depth = 0): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw AppError.invalid(`${field} contains a NUL character`);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (depth >= MAX_DEPTH) throw AppError.invalid(`${field} is nested too deeply`);
  if (Array.isArray(value)) {
    value.forEach((item, i) => refuseUnstorable(`${field}[${i}]`, item, depth + 1));
    return;
  }
  for (const key of Object.keys(value)) {
    if (RESERVED_KEYS.has(key)) throw AppError.invalid(`${field} must not contain the key ${key}`);
    if (key.includes('\u0000')) throw AppError.invalid(`${field} has a key with a NUL character`);
    refuseUnstorable(`${field}.${key}`, (value as Record<string, unknown>)[key], depth + 1);
  }
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}
