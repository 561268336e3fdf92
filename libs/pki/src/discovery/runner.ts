import { LookupFunction } from 'node:net';
import { summarizeCertificate } from './certificate-summary';
import { ConnectionFailure } from './errors';
import { fetchCertificateChain, FetchedChain } from './fetch-chain';
import type { Target } from '@app/net';

export type DiscoveryStatus = 'SUCCESS' | 'FAILURE';
export type DiscoveryEntry = [DiscoveryStatus, string];

export interface DiscoveredCertificate extends FetchedChain {
  key: string;
  host: string;
  port: number;
}

export interface DiscoveryOptions {
  timeoutMs: number;
  /** Connections in flight at once. */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
  lookup?: LookupFunction;
}

export interface DiscoveryResult {
  /** The API's `details`: one `[status, message]` per target. */
  details: Record<string, DiscoveryEntry>;
  certificates: DiscoveredCertificate[];
}

export const DEFAULT_CONCURRENCY = 64;

/**
 * Fetches every target's chain, `concurrency` at a time. Entries are keyed by host; a
 * host listed with several ports is keyed `host:port` so no result overwrites another.
 */
export async function discoverTargets(targets: readonly Target[], options: DiscoveryOptions): Promise<DiscoveryResult> {
  const keys = targetKeys(targets);
  const details: Record<string, DiscoveryEntry> = {};
  const certificates: DiscoveredCertificate[] = [];
  let next = 0;
  let done = 0;
  async function worker(): Promise<void> {
    while (next < targets.length) {
      const index = next++;
      const target = targets[index]!;
      const key = keys[index]!;
      try {
        const fetched = await fetchCertificateChain({ ...target, timeoutMs: options.timeoutMs, lookup: options.lookup });
        details[key] = ['SUCCESS', summarizeCertificate(fetched.chain[0]!)];
        certificates.push({ key, host: target.host, port: target.port, ...fetched });
      } catch (error) {
        details[key] = ['FAILURE', error instanceof ConnectionFailure ? error.message : `Error: ${(error as Error).message}`];
      }
      options.onProgress?.(++done, targets.length);
    }
  }
  const workers = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, targets.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return { details: orderedLike(keys, details), certificates };
}

function targetKeys(targets: readonly Target[]): string[] {
  const ports = new Map<string, Set<number>>();
  for (const { host, port } of targets) ports.set(host, (ports.get(host) ?? new Set()).add(port));
  return targets.map(({ host, port }) => (ports.get(host)!.size > 1 ? `${host.includes(':') ? `[${host}]` : host}:${port}` : host));
}

/** Completion order is random; callers expect the order they asked in. */
function orderedLike(keys: string[], details: Record<string, DiscoveryEntry>): Record<string, DiscoveryEntry> {
  return Object.fromEntries(keys.filter((key) => details[key]).map((key) => [key, details[key]!]));
}
