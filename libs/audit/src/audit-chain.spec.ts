import { chainLink, ChainRow, genesisHash } from './audit-chain';

const row: ChainRow = {
  id: '42', at: '1795242213434000', org_id: '1', category: 'Resource', operation: 'Password Retrieved', outcome: 'Success',
  actor_id: '7', actor_name: 'alice', ip: '10.0.0.1', client: 'curl', resource_id: '3', resource_name: 'db', account_id: '4',
  account_name: 'root', target: '', reason: 'ticket 9', ticket_id: '', request_id: null, description: '',
};
const key = Buffer.alloc(32, 1);

describe('audit chain link', () => {
  it('is deterministic and keyed', () => {
    const prev = genesisHash(key);
    expect(chainLink(key, prev, '41', row).equals(chainLink(key, prev, '41', { ...row }))).toBe(true);
    expect(chainLink(Buffer.alloc(32, 2), prev, '41', row).equals(chainLink(key, prev, '41', row))).toBe(false);
  });

  it.each(Object.keys(row))('changes when %s changes', (field) => {
    const prev = genesisHash(key);
    const changed = { ...row, [field]: (row as unknown as Record<string, string | null>)[field] === null ? '1' : 'x' };
    expect(chainLink(key, prev, '41', changed).equals(chainLink(key, prev, '41', row))).toBe(false);
  });

  it('depends on the previous link and the previous id', () => {
    const prev = genesisHash(key);
    const base = chainLink(key, prev, '41', row);
    expect(chainLink(key, Buffer.alloc(32), '41', row).equals(base)).toBe(false);
    expect(chainLink(key, prev, '40', row).equals(base)).toBe(false);
  });

  it('does not confuse null with text', () => {
    const prev = genesisHash(key);
    expect(chainLink(key, prev, '41', { ...row, request_id: null }).equals(chainLink(key, prev, '41', { ...row, request_id: 'null' }))).toBe(false);
  });
});
