import { readJobStatus } from './discovery-job';
import { discoveryReply, discoveryStatusReply } from './discovery-reply';
import { JobRow } from './job.repository';

const job = (over: Partial<JobRow>): JobRow => ({
  id: 7,
  kind: 'ssl-discovery',
  status: 'running',
  total: 10,
  done: 4,
  result: {},
  created_at: new Date(),
  idle_seconds: 1,
  ...over,
});

describe('discovery job status', () => {
  it('reports a running job with its progress and phase', () => {
    expect(readJobStatus(job({ result: { phase: 'scanning', toScan: 3, scanned: 1 }, done: 10 }))).toEqual({
      jobId: 7,
      state: 'running',
      total: 10,
      done: 10,
      phase: 'scanning',
      message: 'Discovery job 7 is running: 10 of 10 address(es) tried; scanning 1 of 3 endpoint(s)',
    });
  });

  it('reports a handed-back job, or a silent one that has its plan, as waiting to resume', () => {
    const waiting = { state: 'running', phase: 'waiting', message: expect.stringContaining('starts again on the next instance') };
    expect(readJobStatus(job({ status: 'pending' }))).toMatchObject(waiting);
    expect(readJobStatus(job({ idle_seconds: 3600, result: { plan: { targets: [] } } }))).toMatchObject(waiting);
  });

  it('reports a job whose worker went silent as interrupted', () => {
    expect(readJobStatus(job({ idle_seconds: 3600 }))).toMatchObject({ state: 'failed', message: expect.stringContaining('interrupted') });
  });

  it('answers a finished job with its per-address details; a failed one as Failed', () => {
    const details = { '10.0.0.1': ['FAILURE', 'Connection refused'] as ['FAILURE', string] };
    const done = discoveryStatusReply(readJobStatus(job({ status: 'done', done: 10, result: { phase: 'done', message: 'finished', details } })));
    expect(done).toEqual({ message: 'finished', details, totalRows: 1, extra: { jobId: '7', jobStatus: 'done', phase: 'done', total: 10, done: 10 } });
    expect(discoveryStatusReply(readJobStatus(job({ status: 'failed', result: { message: 'boom' } }))).status).toBe('Failed');
  });

  it('tells the caller how to follow a discovery still running', () => {
    expect(discoveryReply({ state: 'running', jobId: 3, total: 5, done: 0 })).toEqual({
      message: 'Discovery of 5 address(es) is running in the background as job 3; follow it with GET /api/pki/restapi/getDiscoveryStatus?jobId=3',
      totalRows: 0,
      extra: { jobId: '3' },
    });
  });
});
