import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { expandIpv4Range, parseTimeoutSeconds } from '@app/net';
import { checkHostKeyOnly, probeSshBanner, RemoteHostError } from '..';
import { addressOf, DEFAULT_SSH_PORT } from './resource-address';
import { mapSshErrors } from './ssh-errors';
import type { SshDiscoveryDto } from './ssh-input';
import { SshResourceRepository } from './ssh-resource.repository';

/** One request probes at most this many addresses... */
export const MAX_SSH_DISCOVERY_HOSTS = 256;
/** ...with this many connections at a time... */
export const SSH_DISCOVERY_CONCURRENCY = 32;
/** ...and answers within this time; addresses not probed by then are reported as such. */
export const SSH_DISCOVERY_TIME_LIMIT_MS = 60_000;

export type DiscoveryOutcome = ['SUCCESS' | 'FAILURE', string];

export interface SshDiscoveryResult {
  entries: Record<string, DiscoveryOutcome>;
  found: number;
  added: number;
}

/** Finds SSH servers in an IPv4 range by their identification banner and records them as SSH resources. */
@Injectable()
export class SshDiscoveryService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly resources: SshResourceRepository,
    private readonly audit: AuditWriter,
  ) {}

  async discoverRange(actor: Actor, dto: SshDiscoveryDto, timeLimitMs = SSH_DISCOVERY_TIME_LIMIT_MS): Promise<SshDiscoveryResult> {
    const addresses = await mapSshErrors(() => expandIpv4Range(dto.StartIpAddress, dto.EndIpAddress, MAX_SSH_DISCOVERY_HOSTS));
    const timeoutMs = await mapSshErrors(() => parseTimeoutSeconds(dto.TIMEOUT));
    const port = dto.PORT ?? DEFAULT_SSH_PORT;
    const banners = await probeAll(actor, addresses, port, timeoutMs, timeLimitMs);

    const entries: Record<string, DiscoveryOutcome> = {};
    let added = 0;
    await this.dataSource.transaction(async (m) => {
      for (const address of addresses) {
        const outcome = banners.get(address)!;
        if (outcome[0] === 'SUCCESS') {
          const { name } = addressOf(address, port);
          const isNew = await this.resources.addDiscovered(m, actor.orgId, name, address, port, `Discovered: ${outcome[1]}`.slice(0, 250));
          if (isNew) added += 1;
          entries[address] = ['SUCCESS', `${outcome[1]} (SSH resource ${name}${isNew ? ' added' : ' already known'})`];
        } else {
          entries[address] = outcome;
        }
      }
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.SshHostsDiscovered,
          actor,
          target: `${dto.StartIpAddress}-${dto.EndIpAddress}:${port}`,
          description: `SSH discovery of ${addresses.length} addresses on port ${port}: ${countFound(banners)} found, ${added} added`,
        },
        m,
      );
    });
    return { entries, found: countFound(banners), added };
  }
}

async function probeAll(actor: Actor, addresses: string[], port: number, timeoutMs: number, timeLimitMs: number): Promise<Map<string, DiscoveryOutcome>> {
  const deadline = Date.now() + timeLimitMs;
  const results = new Map<string, DiscoveryOutcome>();
  let next = 0;
  const worker = async () => {
    while (next < addresses.length) {
      const address = addresses[next++];
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        results.set(address, ['FAILURE', `Not probed: the discovery time limit of ${timeLimitMs / 1000} s was reached`]);
        continue;
      }
      try {
        const banner = await probeSshBanner(address, port, Math.min(timeoutMs, remaining));
        results.set(address, await withHostKey(actor, address, port, banner, Math.min(timeoutMs, Math.max(1, deadline - Date.now()))));
      } catch (error) {
        results.set(address, ['FAILURE', error instanceof Error ? error.message : 'probe failed']);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SSH_DISCOVERY_CONCURRENCY, addresses.length) }, worker));
  return results;
}

/**
 * A host that answered also shows its host key, checked and recorded like every SSH
 * connection's (no credentials are sent); a key that differs from the recorded one fails.
 */
async function withHostKey(actor: Actor, address: string, port: number, banner: string, timeoutMs: number): Promise<DiscoveryOutcome> {
  try {
    const key = await checkHostKeyOnly({ host: address, port, orgId: actor.orgId, actor, timeoutMs });
    return ['SUCCESS', `${banner}; host key ${key.type} ${key.fingerprint}`];
  } catch (error) {
    if (error instanceof RemoteHostError && error.reason === 'host_key_rejected') return ['FAILURE', error.message];
    return ['SUCCESS', `${banner}; host key not read: ${error instanceof Error ? error.message : 'handshake failed'}`];
  }
}

function countFound(results: Map<string, DiscoveryOutcome>): number {
  return [...results.values()].filter(([status]) => status === 'SUCCESS').length;
}
