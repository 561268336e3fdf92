import { buildEnvelope } from '@app/http';
import { hostsAtTopLevel } from './discovery-layout';

describe('vault prefix-B discovery layout', () => {
  const envelope = (details: Record<string, unknown>) =>
    buildEnvelope({ layout: 'vaultB', name: 'Get SSL Discovery', status: 'Success', reply: hostsAtTopLevel({ message: 'done', details, totalRows: 1, extra: { jobId: '4' } }) });

  it('puts each host at the top level and keeps details beside them', () => {
    expect(envelope({ '127.0.0.1': ['SUCCESS', 'Certificate found'] })).toEqual({
      name: 'Get SSL Discovery',
      result: { status: 'Success', message: 'done' },
      totalRows: 1,
      '127.0.0.1': ['SUCCESS', 'Certificate found'],
      details: { '127.0.0.1': ['SUCCESS', 'Certificate found'] },
      jobId: '4',
    });
  });

  it('never lets a host named like an envelope key replace it', () => {
    const hosts = { result: ['FAILURE', 'x'], name: ['FAILURE', 'y'], jobId: ['FAILURE', 'z'], totalRows: ['FAILURE', 'w'] };
    const body = envelope(hosts);
    expect(body).toMatchObject({ name: 'Get SSL Discovery', result: { status: 'Success', message: 'done' }, totalRows: 1, jobId: '4', details: hosts });
  });

  it('leaves an answer without hosts as it is', () => {
    expect(hostsAtTopLevel({ message: 'failed', status: 'Failed' })).toEqual({ message: 'failed', status: 'Failed' });
  });
});
