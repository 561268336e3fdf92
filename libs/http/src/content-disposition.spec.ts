import fc from 'fast-check';
import { ServerResponse, IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { attachmentDisposition } from './content-disposition';

describe('attachmentDisposition', () => {
  it('keeps a plain name as it is', () => {
    expect(attachmentDisposition('server.p12')).toBe('attachment; filename="server.p12"');
  });

  it('gives an ASCII fallback and the exact name in filename* for anything else', () => {
    expect(attachmentDisposition('clé "prod"\u202E.pem')).toBe(
      `attachment; filename="cl_ _prod__.pem"; filename*=UTF-8''cl%C3%A9%20%22prod%22%E2%80%AE.pem`,
    );
    expect(attachmentDisposition('😀\r\n\u0000')).toBe(`attachment; filename="____"; filename*=UTF-8''%F0%9F%98%80%0D%0A%00`);
  });

  it('is a header value Node accepts whatever the name, and filename* decodes back to it', () => {
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (name) => {
        const value = attachmentDisposition(name);
        res.setHeader('Content-Disposition', value);
        const exact = /filename\*=UTF-8''(.*)$/.exec(value)?.[1];
        const decoded = exact ? decodeURIComponent(exact) : /filename="(.*)"$/.exec(value)![1];
        expect(decoded).toBe(name === '' ? 'download' : Buffer.from(name, 'utf8').toString('utf8'));
      }),
      { numRuns: 500 },
    );
  });
});
