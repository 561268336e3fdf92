import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError, ErrorCode } from '@app/http';
import { AddressError, expandIpv4Range, parseHost, parsePort, parseTimeoutSeconds, type Target, timeoutCapNote } from '@app/net';
import { certificateDetails, toPem } from '../certs';
import { DiscoveryError, DiscoveryResult, discoverTargets, parseTargetList, scanEndpoint, summarizeCertificate } from '../discovery';
import { FileDiscoveryDto, RangeDiscoveryDto, SingleDiscoveryDto } from './discovery-input';
import {
  defaultWaitMs,
  DISCOVERY_CONCURRENCY,
  DISCOVERY_JOB_KIND,
  MAX_RUNNING_DISCOVERIES,
  MAX_WAIT_SECONDS,
  RESUME_INTERVAL_MS,
  SCAN_CONCURRENCY,
  STALE_JOB_SECONDS,
} from './discovery-limits';
import { FoundEndpoint, storeEndpoints } from './discovery-store';
import { DiscoveryOutcome, DiscoveryStatus, JobProgress, readJobStatus } from './discovery-job';
import { JobRepository } from './job.repository';
import { fetchLegacyChain } from './legacy-chain';
import { mapLimit } from './map-limit';

/** What a job row keeps so that any instance can run it again. */
interface StoredPlan {
  targets: Target[];
  timeoutMs: number;
  what: string;
  actor: Actor;
  /** Appended to the completion message (a capped TIMEOUT). */
  note?: string;
}

interface Plan {
  targets: Target[];
  timeoutMs: number;
  /** Undefined: the default for the plan's size. */
  waitMs?: number;
  what: string;
  note?: string;
}

/**
 * SSL discovery for both presentations: parses the request, runs it as a job (answering
 * inline when it ends within the wait), stores certificates, endpoints and their scans.
 */
@Injectable()
export class DiscoveryService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Discovery');
  private readonly running = new Map<number, JobProgress>();
  private readonly finishing = new Set<Promise<DiscoveryOutcome>>();
  private closing = false;
  private resumer?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly jobs: JobRepository,
    private readonly audit: AuditWriter,
  ) {}

  /** Discoveries running in this process (a metric). */
  get runningCount(): number {
    return this.running.size;
  }

  single(actor: Actor, dto: SingleDiscoveryDto): Promise<DiscoveryOutcome> {
    return this.start(actor, () => {
      const host = parseHost(dto.HOST);
      const port = parsePort(dto.PORT);
      return { targets: [{ host, port }], what: `${host}:${port}`, ...this.timing(dto) };
    });
  }

  range(actor: Actor, dto: RangeDiscoveryDto): Promise<DiscoveryOutcome> {
    return this.start(actor, () => {
      const port = parsePort(dto.PORT);
      const targets = expandIpv4Range(dto.StartIpAddress, dto.EndIpAddress).map((host) => ({ host, port }));
      return { targets, what: `${dto.StartIpAddress.trim()}-${dto.EndIpAddress.trim()} port ${port}`, ...this.timing(dto) };
    });
  }

  fromFile(actor: Actor, dto: FileDiscoveryDto, file: { buffer: Buffer; originalname?: string } | undefined): Promise<DiscoveryOutcome> {
    return this.start(actor, () => {
      if (!file || file.buffer.length === 0) throw new DiscoveryError('File is required: upload the list of hosts in the part named File');
      const targets = parseTargetList(file.buffer.toString('utf8'), parsePort(dto.PORT));
      if (!targets.length) throw new DiscoveryError('The uploaded file lists no hosts');
      return { targets, what: `${targets.length} target(s) from ${dto.FileName || file.originalname || 'an uploaded file'}`, ...this.timing(dto) };
    });
  }

  async status(actor: Actor, jobIdText: string): Promise<DiscoveryStatus> {
    const id = /^\d{1,9}$/.test(jobIdText.trim()) ? Number(jobIdText) : NaN;
    const job = Number.isFinite(id) ? await this.jobs.findInOrg(actor.orgId, id, DISCOVERY_JOB_KIND) : undefined;
    if (!job) throw AppError.notFound(`No discovery job with id ${jobIdText}`);
    return readJobStatus(job);
  }

  /** On shutdown: lets running discoveries finish, for at most timeoutMs. */
  async settle(timeoutMs: number): Promise<void> {
    if (this.finishing.size === 0) return;
    await Promise.race([Promise.allSettled([...this.finishing]), delay(timeoutMs)]);
  }

  /** Jobs still running when the service stops are handed back, for another instance to resume. */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    clearInterval(this.resumer);
    await Promise.all([...this.running.values()].map((progress) => progress.suspend().catch(() => undefined)));
    this.running.clear();
  }

  /** TIMEOUT, and WAIT when given (else the default for the plan's size, see defaultWaitMs). */
  private timing(dto: { TIMEOUT?: string; WAIT?: string }): { timeoutMs: number; waitMs?: number; note: string } {
    const timeoutMs = parseTimeoutSeconds(dto.TIMEOUT);
    const note = timeoutCapNote(dto.TIMEOUT);
    const text = (dto.WAIT ?? '').trim();
    if (text === '') return { timeoutMs, note };
    const wait = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
    if (!(wait >= 0 && wait <= MAX_WAIT_SECONDS)) {
      throw new DiscoveryError(`Invalid WAIT: ${text} (expected seconds, 0 to ${MAX_WAIT_SECONDS})`);
    }
    return { timeoutMs, waitMs: Math.round(wait * 1000), note };
  }

  private async start(actor: Actor, plan: () => Plan): Promise<DiscoveryOutcome> {
    let parsed: Plan;
    try {
      parsed = plan();
    } catch (error) {
      if (error instanceof AddressError) throw AppError.invalid(error.message);
      throw error;
    }
    if (this.running.size >= MAX_RUNNING_DISCOVERIES) {
      throw new AppError(ErrorCode.Unavailable, `${MAX_RUNNING_DISCOVERIES} discoveries are already running; try again when one has finished`);
    }
    await this.jobs.pruneFinished(DISCOVERY_JOB_KIND);
    const stored: StoredPlan = { targets: parsed.targets, timeoutMs: parsed.timeoutMs, what: parsed.what, actor, note: parsed.note };
    const jobId = await this.jobs.create(actor.orgId, DISCOVERY_JOB_KIND, parsed.targets.length, actor.id, stored);
    const { finished, progress } = this.launch(actor, parsed, jobId);
    const waitMs = parsed.waitMs ?? defaultWaitMs(parsed.targets.length);
    const outcome = Number.isFinite(waitMs) ? await Promise.race([finished, delay(waitMs)]) : await finished;
    if (outcome?.state === 'failed') throw new AppError(ErrorCode.Unavailable, outcome.message);
    return outcome ?? { state: 'running', jobId, total: parsed.targets.length, done: progress.done };
  }

  /**
   * Resumes jobs that a stopping (or dead) instance left behind, from their stored plan, as
   * far as this process has room. Runs every RESUME_INTERVAL_MS; returns the ids started.
   */
  async resumeOrphans(): Promise<number[]> {
    const started: number[] = [];
    while (!this.closing && this.running.size < MAX_RUNNING_DISCOVERIES) {
      const job = await this.jobs.claimOrphan(DISCOVERY_JOB_KIND, STALE_JOB_SECONDS);
      if (!job) break;
      const plan = job.plan as StoredPlan;
      this.logger.log(`Resuming discovery job ${job.id} (${plan.targets.length} address(es)) left by a stopped instance`);
      // The job row's organisation, not what the stored plan says, scopes the resumed run.
      void this.launch({ ...plan.actor, orgId: job.org_id }, plan, job.id).finished;
      started.push(job.id);
    }
    return started;
  }

  onApplicationBootstrap(): void {
    this.resumer = setInterval(() => void this.resumeOrphans().catch((e: Error) => this.logger.error(`Resuming discoveries failed: ${e.message}`)), RESUME_INTERVAL_MS);
    this.resumer.unref();
  }

  // execute never rejects: a failure is recorded on the job and returned as an outcome.
  private launch(actor: Actor, plan: Plan, jobId: number): { finished: Promise<DiscoveryOutcome>; progress: JobProgress } {
    const progress = new JobProgress(this.jobs, actor.orgId, jobId, plan.targets.length);
    this.running.set(jobId, progress);
    const finished: Promise<DiscoveryOutcome> = this.execute(actor, plan, progress).finally(() => {
      this.running.delete(jobId);
      this.finishing.delete(finished);
    });
    this.finishing.add(finished);
    return { finished, progress };
  }

  private async execute(actor: Actor, plan: Plan, progress: JobProgress): Promise<DiscoveryOutcome> {
    try {
      const result = await discoverTargets(plan.targets, {
        timeoutMs: plan.timeoutMs,
        concurrency: DISCOVERY_CONCURRENCY,
        onProgress: (done) => progress.discovered(done),
      });
      await this.retryLegacyServers(plan, result);
      const found = this.parseable(result);
      progress.scanning(found.length);
      const endpoints = await mapLimit(found, SCAN_CONCURRENCY, async (c): Promise<FoundEndpoint> => {
        const scan = await scanEndpoint({ host: c.host, port: c.port, timeoutMs: plan.timeoutMs }, { timeoutMs: Math.min(plan.timeoutMs, 3000) });
        progress.scanned();
        return { host: c.host, port: c.port, ip: c.remoteAddress, chain: c.chain, scan };
      });
      if (this.closing) {
        const message = `The discovery was interrupted because the service stopped; it starts again on another instance as job ${progress.jobId}`;
        return { state: 'failed', jobId: progress.jobId, message };
      }
      const { created, excluded } = await this.dataSource.transaction(async (m) => {
        const count = await storeEndpoints(m, actor.orgId, actor.username, endpoints);
        await this.audit.record(
          {
            category: 'Pki',
            operation: AuditOperation.SslCertificatesDiscovered,
            actor,
            target: plan.what,
            description: `SSL discovery of ${plan.what}: ${endpoints.length} of ${plan.targets.length} address(es) presented a certificate (${count.created} new${count.excluded ? `, ${count.excluded} excluded` : ''})`,
          },
          m,
        );
        return count;
      });
      const message = `SSL certificate discovery completed: ${endpoints.length} of ${plan.targets.length} address(es) presented a certificate, ${created} new in the inventory${excluded ? `, ${excluded} passed over as excluded (deleted with exclude_certificate)` : ''}${plan.note ?? ''}`;
      await progress.finish(message, result.details);
      return { state: 'done', jobId: progress.jobId, message, details: result.details };
    } catch (error) {
      const message = `The discovery failed (job ${progress.jobId}); see the service log`;
      if (!this.closing) {
        this.logger.error(`Discovery job ${progress.jobId} failed: ${(error as Error).stack ?? error}`);
        await progress.fail(message).catch(() => undefined);
      }
      return { state: 'failed', jobId: progress.jobId, message };
    }
  }

  /** Servers Node's TLS cannot finish a handshake with (SSLv3-only, broken legacy stacks). */
  private async retryLegacyServers(plan: Plan, result: DiscoveryResult): Promise<void> {
    const keys = entryKeys(plan.targets);
    const failed = plan.targets.flatMap((target, i) => {
      const entry = result.details[keys[i]!];
      return entry?.[0] === 'FAILURE' && entry[1].startsWith('TLS handshake failed') ? [{ target, key: keys[i]! }] : [];
    });
    await mapLimit(failed, SCAN_CONCURRENCY, async ({ target, key }) => {
      const legacy = await fetchLegacyChain({ ...target, timeoutMs: plan.timeoutMs });
      if (!legacy) return;
      result.details[key] = ['SUCCESS', `${summarizeCertificate(legacy.chain[0]!)} (legacy handshake, ${legacy.protocol})`];
      result.certificates.push({ key, ...target, ...legacy, cipher: '' });
    });
  }

  /** A certificate we cannot parse is reported on its address instead of failing the whole discovery. */
  private parseable(result: DiscoveryResult): DiscoveryResult['certificates'] {
    return result.certificates.filter((c) => {
      try {
        certificateDetails(toPem(c.chain[0]!, 'CERTIFICATE'));
        return true;
      } catch (error) {
        result.details[c.key] = ['FAILURE', `Certificate presented but not readable: ${(error as Error).message}`];
        return false;
      }
    });
  }
}

/** The runner's keys: the host, or host:port when one host is listed with several ports. */
function entryKeys(targets: readonly Target[]): string[] {
  const ports = new Map<string, Set<number>>();
  for (const { host, port } of targets) ports.set(host, (ports.get(host) ?? new Set()).add(port));
  return targets.map(({ host, port }) => (ports.get(host)!.size > 1 ? `${host.includes(':') ? `[${host}]` : host}:${port}` : host));
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}
