// The documented discovery limits (the README). Range size, TIMEOUT
// bounds and the file's target count come from the discovery library.
export { MAX_RANGE_SIZE, MAX_LIST_TARGETS, DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS, DEFAULT_PORT } from '../discovery';

/** TLS connections in flight per discovery. */
export const DISCOVERY_CONCURRENCY = 64;
/** Endpoints scanned for vulnerabilities at once per discovery (each scan opens ~20 connections). */
export const SCAN_CONCURRENCY = 8;
/** Discoveries running at once in one service process; more are refused until one ends. */
export const MAX_RUNNING_DISCOVERIES = 4;
/** How long a request waits for its discovery before answering with the job id (seconds, WAIT overrides). */
export const DEFAULT_WAIT_SECONDS = 5;
export const MAX_WAIT_SECONDS = 60;
/** A running job whose worker has not written for this long was interrupted (service stopped). */
export const STALE_JOB_SECONDS = 60;
/** Progress is written at most this often; it doubles as the worker's heartbeat. */
export const PROGRESS_INTERVAL_MS = 1000;

export const DISCOVERY_JOB_KIND = 'ssl-discovery';
