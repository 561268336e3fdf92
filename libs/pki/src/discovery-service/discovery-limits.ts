// The documented discovery limits (docs/api/pki.md, "SSL discovery"). Range size, TIMEOUT
// bounds and the file's target count come from the discovery library.
export { MAX_RANGE_SIZE, DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS, DEFAULT_PORT } from '@app/net';
export { MAX_LIST_TARGETS } from '../discovery';

/** TLS connections in flight per discovery. */
export const DISCOVERY_CONCURRENCY = 64;
/** Endpoints scanned for vulnerabilities at once per discovery (each scan opens ~20 connections). */
export const SCAN_CONCURRENCY = 8;
/** Discoveries running at once in one service process; more are refused until one ends. */
export const MAX_RUNNING_DISCOVERIES = 4;
/**
 * How long a request waits for its discovery before answering with the job id, when WAIT is
 * not given. Clients of the original wait for the result inline: a single host is always
 * answered inline (its run is bounded by TIMEOUT), a typical range (up to a /24) waits up to
 * INLINE_WAIT_SECONDS, which covers a /24 at the default TIMEOUT; larger lists answer with
 * the job id after BACKGROUND_WAIT_SECONDS.
 */
export const INLINE_WAIT_SECONDS = 60;
export const TYPICAL_DISCOVERY_TARGETS = 256;
export const BACKGROUND_WAIT_SECONDS = 5;
export const MAX_WAIT_SECONDS = 60;

/** The wait (ms) for a discovery of `targets` addresses when the request names no WAIT. */
export function defaultWaitMs(targets: number): number {
  if (targets <= 1) return Number.POSITIVE_INFINITY;
  return (targets <= TYPICAL_DISCOVERY_TARGETS ? INLINE_WAIT_SECONDS : BACKGROUND_WAIT_SECONDS) * 1000;
}
/** A running job whose worker has not written for this long was interrupted (its instance died): it is resumed. */
export const STALE_JOB_SECONDS = 60;
/** How often each instance looks for jobs to resume (handed back by a stopping instance, or orphaned). */
export const RESUME_INTERVAL_MS = 5000;
/** Progress is written at most this often; it doubles as the worker's heartbeat. */
export const PROGRESS_INTERVAL_MS = 1000;

export const DISCOVERY_JOB_KIND = 'ssl-discovery';
