import type { DiscoveryEntry } from '../discovery';
import { PROGRESS_INTERVAL_MS, STALE_JOB_SECONDS } from './discovery-limits';
import { JobRepository, JobRow } from './job.repository';

export type DiscoveryDetails = Record<string, DiscoveryEntry>;

export type DiscoveryOutcome =
  | { state: 'done'; jobId: number; message: string; details: DiscoveryDetails }
  | { state: 'running'; jobId: number; total: number; done: number }
  | { state: 'failed'; jobId: number; message: string };

export interface DiscoveryStatus {
  jobId: number;
  state: 'running' | 'done' | 'failed';
  /** Addresses to try, and how many have been tried. */
  total: number;
  done: number;
  /** discovering → scanning → done. */
  phase: string;
  message: string;
  details?: DiscoveryDetails;
}

const HEARTBEAT_MS = 10_000;

/**
 * A running discovery's progress, written to its job row at most once per interval
 * (and at least every 10 s as a heartbeat). Writes are chained so they land in order.
 */
export class JobProgress {
  done = 0;
  private phase = 'discovering';
  private toScan = 0;
  private scannedCount = 0;
  private dirty = false;
  private lastWrite = Date.now();
  private writes: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly jobs: JobRepository,
    readonly orgId: number,
    readonly jobId: number,
    readonly total: number,
  ) {
    this.timer = setInterval(() => this.tick(), PROGRESS_INTERVAL_MS).unref();
  }

  discovered(done: number): void {
    this.done = done;
    this.dirty = true;
  }

  scanning(endpoints: number): void {
    this.phase = 'scanning';
    this.toScan = endpoints;
    this.dirty = true;
  }

  scanned(): void {
    this.scannedCount++;
    this.dirty = true;
  }

  finish(message: string, details: DiscoveryDetails): Promise<void> {
    return this.end(() => this.jobs.finish(this.orgId, this.jobId, 'done', this.total, { phase: 'done', message, details }));
  }

  /** Hands the job back (service stopping): another instance resumes it from its plan. */
  suspend(): Promise<void> {
    return this.end(() => this.jobs.suspend(this.orgId, this.jobId));
  }

  fail(message: string): Promise<void> {
    return this.end(() => this.jobs.finish(this.orgId, this.jobId, 'failed', this.done, { phase: this.phase, message }));
  }

  private end(write: () => Promise<void>): Promise<void> {
    clearInterval(this.timer);
    this.writes = this.writes.then(write);
    return this.writes;
  }

  private tick(): void {
    if (!this.dirty && Date.now() - this.lastWrite < HEARTBEAT_MS) return;
    this.dirty = false;
    this.lastWrite = Date.now();
    const snapshot = { phase: this.phase, toScan: this.toScan, scanned: this.scannedCount };
    const done = this.done;
    this.writes = this.writes.then(() => this.jobs.progress(this.orgId, this.jobId, done, snapshot)).catch(() => undefined);
  }
}

export function readJobStatus(job: JobRow): DiscoveryStatus {
  const result = job.result as { phase?: string; message?: string; details?: DiscoveryDetails; toScan?: number; scanned?: number };
  const base = { jobId: job.id, total: job.total, done: job.done };
  const resumable = (job.result as { plan?: unknown }).plan !== undefined;
  if (job.status === 'pending' || (resumable && job.status === 'running' && job.idle_seconds > STALE_JOB_SECONDS)) {
    return { ...base, state: 'running', phase: 'waiting', message: `Discovery job ${job.id} was interrupted by a service stop; it starts again on the next instance of the service` };
  }
  if (job.status === 'running' && job.idle_seconds > STALE_JOB_SECONDS) {
    return { ...base, state: 'failed', phase: result.phase ?? 'discovering', message: `Discovery job ${job.id} was interrupted (the service stopped before it finished)` };
  }
  if (job.status === 'running') {
    const scanning = result.phase === 'scanning' ? `; scanning ${result.scanned ?? 0} of ${result.toScan ?? 0} endpoint(s)` : '';
    return { ...base, state: 'running', phase: result.phase ?? 'discovering', message: `Discovery job ${job.id} is running: ${job.done} of ${job.total} address(es) tried${scanning}` };
  }
  return { ...base, state: job.status as 'done' | 'failed', phase: result.phase ?? job.status, message: result.message ?? `Discovery job ${job.id} ${job.status}`, details: result.details };
}
