import { RawAnswer } from '../support/raw-http';
import { FuzzRoute } from './route-model';

// What an answer must never show: a stack frame, an exception class, a driver message,
// or the catch-all "Internal server error".
const LEAKS = [
  /\n\s+at .+:\d+:\d+/,
  /node_modules|\/work\/|dist\/apps/,
  /\b(QueryFailedError|TypeError|RangeError|ReferenceError|EntityNotFound|URIError)\b/,
  /Internal server error/i,
  /invalid byte sequence|out of range for type|violates .* constraint|duplicate key value|syntax error at or near|relation ".*" does not exist/i,
  /is not a constructor|Cannot read propert|undefined is not/i,
];

/** What no answer may show, envelope or not: a 5xx, a leak (binary protocol answers are not text). */
export function serverProblems(answer: RawAnswer): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`HTTP ${answer.status}`);
  if (String(answer.headers['content-type'] ?? '') === 'application/ocsp-response') return problems;
  for (const leak of LEAKS) if (leak.test(answer.text)) problems.push(`leaks ${leak}`);
  return problems;
}

/** A route that serves a file or plain text (an export, a CRL, a PGP key) answered it. */
export function isFileAnswer(answer: RawAnswer): boolean {
  const type = String(answer.headers['content-type'] ?? '');
  return answer.status === 200 && !/json/.test(type) && (Boolean(answer.headers['content-disposition']) || /text\/plain/.test(type));
}

/** The result status the envelope carries, or undefined when the body is not an envelope. */
export function resultStatus(json: any): string | undefined {
  const result = json?.operation?.result ?? json?.result;
  const status = result?.status ?? result?.Status;
  return typeof status === 'string' ? status : undefined;
}

/**
 * Problems with one answer (empty when it is fine): never a 5xx, never a leak, always an
 * envelope of the route's layout (or a file for a route that serves one).
 */
export function answerProblems(route: FuzzRoute, method: string, answer: RawAnswer): string[] {
  const problems = serverProblems(answer);
  // An answer to HEAD has no body: its status is all there is to judge.
  if (isFileAnswer(answer) || method === 'HEAD') return problems;
  const type = String(answer.headers['content-type'] ?? '');
  // /metrics refuses as scrapers expect: 401 with a Bearer challenge, or 403, in plain text.
  if (route.path === '/metrics' && method === 'GET' && (answer.status === 401 || answer.status === 403) && /text\/plain/.test(type)) {
    if (answer.status === 401 && !/^Bearer\b/.test(String(answer.headers['www-authenticate'] ?? ''))) problems.push('401 without a Bearer challenge');
    return problems;
  }
  // The web console answers pages, not envelopes: HTML with its security headers (or its own
  // style sheet, script, CSV or PEM download), or a redirect; never a 5xx (checked above).
  if ((route.path === '/' || route.path.startsWith('/console')) && !answer.json) {
    if (![200, 303, 400, 401, 403, 404].includes(answer.status)) problems.push(`console answered ${answer.status}`);
    if (answer.status !== 303 && !/^(text\/(html|css|javascript|csv)|application\/x-pem-file)/.test(type)) problems.push(`console answered ${type}`);
    if (/text\/html/.test(type) && !/frame-ancestors 'none'/.test(String(answer.headers['content-security-policy'] ?? ''))) problems.push('console page without its Content-Security-Policy');
    if (answer.status === 303 && !/^\/console\//.test(String(answer.headers.location ?? ''))) problems.push(`console redirected off the console: ${answer.headers.location}`);
    return problems;
  }
  if (!answer.json || typeof answer.json !== 'object') {
    problems.push(`not a JSON envelope (${type}): ${answer.text.slice(0, 80)}`);
    return problems;
  }
  const matched = answer.status !== 404 && method === route.method;
  // A route without an operation (health) answers its own document when it succeeds.
  if (matched && !route.operation && resultStatus(answer.json) === undefined) return problems;
  const vaultA = answer.json.operation !== undefined;
  if (matched) {
    if ((route.layout === 'vaultA') !== vaultA) problems.push(`envelope is not layout ${route.layout}`);
    if (resultStatus(answer.json) === undefined) problems.push('envelope without a result status');
    const name = vaultA ? answer.json.operation.name : answer.json.name;
    if (typeof name !== 'string') problems.push('envelope without an operation name');
  } else if (resultStatus(answer.json) !== 'Failed') {
    problems.push(`unrouted request answered ${answer.status} without a Failed envelope`);
  }
  return problems;
}
