import { Reply } from '@app/http';
import { DiscoveryOutcome, DiscoveryStatus } from './discovery-job';

export const STATUS_PATH = '/api/pki/restapi/getDiscoveryStatus';

/**
 * `Get SSL Discovery`: per-address [SUCCESS|FAILURE, message] when the discovery ended
 * within the wait; otherwise how to follow the background job. Both carry `jobId`.
 */
export function discoveryReply(outcome: DiscoveryOutcome): Reply {
  const extra = { jobId: String(outcome.jobId) };
  if (outcome.state === 'done') {
    return { message: outcome.message, details: outcome.details, totalRows: Object.keys(outcome.details).length, extra };
  }
  if (outcome.state === 'failed') return { message: outcome.message, status: 'Failed', extra };
  return {
    message: `Discovery of ${outcome.total} address(es) is running in the background as job ${outcome.jobId}; follow it with GET ${STATUS_PATH}?jobId=${outcome.jobId}`,
    totalRows: 0,
    extra,
  };
}

/** `GetDiscoveryStatus`: the job's state and counts, and the per-address results once done. */
export function discoveryStatusReply(status: DiscoveryStatus): Reply {
  const extra = { jobId: String(status.jobId), jobStatus: status.state, phase: status.phase, total: status.total, done: status.done };
  return {
    message: status.message,
    details: status.details,
    totalRows: status.details ? Object.keys(status.details).length : 0,
    extra,
    ...(status.state === 'failed' ? { status: 'Failed' } : {}),
  };
}
