import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];

/**
 * The operations a docs/api/*.md file documents: every `### METHOD /path` heading outside code
 * fences, as `METHOD /path` with path parameters written `:_` whatever their name (`{rid}` in
 * the docs, `:rid` in the router), so that renaming a parameter is no drift.
 */
export function documentedOperations(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const m = /^###\s+([A-Z]+)\s+(\/\S*)\s*$/.exec(line);
    if (m && METHODS.includes(m[1])) out.push(operationKey(m[1], m[2]));
  }
  return out;
}

export function operationKey(method: string, path: string): string {
  return `${method} ${path.replace(/\{[^}/]+\}|:[A-Za-z_]\w*/g, ':_').replace(/(.)\/+$/, '$1')}`;
}

export function apiDoc(service: 'vault' | 'pki'): string {
  return readFileSync(join(__dirname, '..', '..', 'docs', 'api', `${service}.md`), 'utf8');
}
