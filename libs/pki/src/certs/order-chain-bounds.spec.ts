import { X509Certificate } from 'node:crypto';
import { MAX_CERTIFICATES_PER_UPLOAD, orderChain } from './parse';
import { openssl, TempDir } from './spec-tools';
import { readFileSync } from 'node:fs';

/*
 * Issue 35: 300 copies of one self-signed certificate with only the serial changed (same
 * subject and issuer, signatures failing) took 18 s to order, ~2·n² signature checks on the
 * event loop. Now an upload holds at most MAX_CERTIFICATES_PER_UPLOAD certificates and each
 * candidate pair is verified at most once.
 */
describe('ordering an uploaded chain is bounded work', () => {
  const tmp = new TempDir();
  afterAll(() => tmp.remove());

  /** `count` certificates with one subject and issuer, each signed by its own key but claiming a shared issuer: look-alikes. */
  function lookAlikes(count: number): string[] {
    const pems: string[] = [];
    for (let i = 0; i < count; i++) {
      const pem = tmp.file(`c${i}.pem`);
      openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', tmp.file(`k${i}.pem`), '-out', pem, '-days', '10',
        '-subj', '/CN=same.example.test/O=Same', '-set_serial', String(1000 + i));
      pems.push(readFileSync(pem, 'utf8'));
    }
    return pems;
  }

  it('refuses more than the limit before parsing any of them', () => {
    const pems = lookAlikes(1);
    const many = Array.from({ length: MAX_CERTIFICATES_PER_UPLOAD + 1 }, () => pems[0]);
    expect(() => orderChain(many)).toThrow(`The upload holds ${MAX_CERTIFICATES_PER_UPLOAD + 1} certificates; at most ${MAX_CERTIFICATES_PER_UPLOAD} are accepted in one upload`);
  });

  it('orders the largest accepted bundle of look-alikes with each pair verified at most once', () => {
    const pems = lookAlikes(MAX_CERTIFICATES_PER_UPLOAD);
    const verify = jest.spyOn(X509Certificate.prototype, 'verify');
    try {
      const ordered = orderChain(pems);
      expect(ordered).toHaveLength(MAX_CERTIFICATES_PER_UPLOAD);
      const n = MAX_CERTIFICATES_PER_UPLOAD;
      expect(verify.mock.calls.length).toBeLessThanOrEqual(n * (n - 1));
    } finally {
      verify.mockRestore();
    }
  });
});
