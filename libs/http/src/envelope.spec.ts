import { buildEnvelope, envelopeBytes } from './envelope';
import { RenderedList } from './reply';

describe('buildEnvelope', () => {
  it('vault prefix A: Details capital D, totalRows for lists', () => {
    expect(
      buildEnvelope({ layout: 'vaultA', name: 'GET RESOURCES', status: 'Success', reply: { message: 'm', details: [{ a: 1 }] } }),
    ).toEqual({ operation: { name: 'GET RESOURCES', result: { status: 'Success', message: 'm' }, Details: [{ a: 1 }], totalRows: 1 } });
  });

  it('vault prefix A: an empty list omits Details and keeps totalRows 0', () => {
    expect(buildEnvelope({ layout: 'vaultA', name: 'N', status: 'Success', reply: { message: 'm', details: [] } })).toEqual({
      operation: { name: 'N', result: { status: 'Success', message: 'm' }, totalRows: 0 },
    });
  });

  it('vault prefix A: an object has no totalRows', () => {
    expect(buildEnvelope({ layout: 'vaultA', name: 'N', status: 'Failed', reply: { message: 'm', details: { PASSWORD: '[Request]' } } })).toEqual({
      operation: { name: 'N', result: { status: 'Failed', message: 'm' }, Details: { PASSWORD: '[Request]' } },
    });
  });

  it('vault prefix B: top level, the list under its own key', () => {
    expect(
      buildEnvelope({ layout: 'vaultB', name: 'GetAllSSHKeys', status: 'Success', detailsKey: 'SSHKeys', reply: { message: 'm', details: [1, 2] } }),
    ).toEqual({ name: 'GetAllSSHKeys', result: { status: 'Success', message: 'm' }, totalRows: 2, SSHKeys: [1, 2] });
  });

  it('vault prefix B: an object without a key is merged at top level', () => {
    expect(buildEnvelope({ layout: 'vaultB', name: 'X', status: 'Success', reply: { message: 'm', details: { endpoint: { a: 1 } } } })).toEqual({
      name: 'X',
      result: { status: 'Success', message: 'm' },
      endpoint: { a: 1 },
    });
  });

  it('pki: lower-case details, capitalised result where asked', () => {
    expect(buildEnvelope({ layout: 'pki', name: 'AddKey', status: 'Success', capitalResult: true, reply: { message: 'm', details: { a: 1 } } })).toEqual({
      name: 'AddKey',
      result: { Status: 'Success', Message: 'm' },
      details: { a: 1 },
    });
  });
});

describe('envelopeBytes', () => {
  const items = [{ 'RESOURCE NAME': 'a "quoted" \\ name' }, { 'RESOURCE NAME': 'é 😀' }];
  const envelope = (details: unknown, totalRows?: number) =>
    buildEnvelope({ layout: 'vaultA', name: 'GET RESOURCES', status: 'Success', reply: { message: 'm', details, totalRows } });

  it('writes a rendered list\'s bytes where the list would be, with its length as totalRows', () => {
    const rendered = new RenderedList(Buffer.from(JSON.stringify(items)), items.length);
    expect(envelopeBytes(envelope(rendered)).toString()).toBe(JSON.stringify(envelope(items)));
    expect(envelopeBytes(envelope(rendered, 7)).toString()).toBe(JSON.stringify(envelope(items, 7)));
  });

  it('omits an empty rendered list as it omits an empty one, and leaves other envelopes as JSON.stringify writes them', () => {
    expect(envelopeBytes(envelope(new RenderedList(Buffer.from('[]'), 0))).toString()).toBe(JSON.stringify(envelope([])));
    expect(envelopeBytes(envelope(items)).toString()).toBe(JSON.stringify(envelope(items)));
  });
});
