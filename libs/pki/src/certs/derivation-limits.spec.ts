import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importSshPrivateKey } from '@app/ssh';
import { checkOpenSshCosts, checkPkcs12Costs, checkPkcs8Costs, DerivationLimitError, encryptedPkcs8Der, MAX_BCRYPT_ROUNDS, MAX_PBKDF_ITERATIONS } from './derivation-limits';
import { loadPrivateKey } from './keys';
import { readPkcs12 } from './pkcs12';

const dir = mkdtempSync(join(tmpdir(), 'kdf-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (command: string, args: string[]) => execFileSync(command, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

/** Replaces every occurrence of one byte sequence with another of the same length (an iteration count). */
function patch(data: Buffer, from: Buffer, to: Buffer): Buffer {
  const out = Buffer.from(data);
  let at = out.indexOf(from);
  expect(at).toBeGreaterThanOrEqual(0);
  while (at >= 0) {
    to.copy(out, at);
    at = out.indexOf(from, at + 1);
  }
  return out;
}

const INT_65536 = Buffer.from([0x02, 0x03, 0x01, 0x00, 0x00]);
const INT_8388607 = Buffer.from([0x02, 0x03, 0x7f, 0xff, 0xff]);

function failure(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a failure');
}

describe('key derivation limits: counts read from the file, refused before deriving', () => {
  beforeAll(() => {
    run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=kdf']);
  });

  it('PKCS#12: a MAC and PBE count above the limit answers with the count and the limit, at once', () => {
    run('openssl', ['pkcs12', '-export', '-in', 'cert.pem', '-inkey', 'key.pem', '-out', 'ok.p12', '-passout', 'pass:pw', '-iter', '65536']);
    const ok = readFileSync(join(dir, 'ok.p12'));
    expect(() => checkPkcs12Costs(ok)).not.toThrow();
    // 8,388,607 iterations: deriving would take forge minutes; the check answers first.
    const costly = patch(ok, INT_65536, INT_8388607);
    expect(failure(() => readPkcs12(costly, 'pw'))).toBe(`The PKCS#12 file's MAC uses 8,388,607 iterations; the limit is ${MAX_PBKDF_ITERATIONS.toLocaleString('en-US')}.`);
  });

  it('PKCS#12: PBE iterations above the limit are refused even when the MAC is cheap', () => {
    run('openssl', ['pkcs12', '-export', '-in', 'cert.pem', '-inkey', 'key.pem', '-out', 'mac.p12', '-passout', 'pass:pw', '-iter', '65536', '-maciter', '-macalg', 'sha256']);
    const data = readFileSync(join(dir, 'mac.p12'));
    // Patch only the first occurrence (a PBE parameter, before the MAC at the end).
    const at = data.indexOf(INT_65536);
    const costly = Buffer.from(data);
    INT_8388607.copy(costly, at);
    expect(() => checkPkcs12Costs(costly)).toThrow(DerivationLimitError);
    expect(failure(() => checkPkcs12Costs(costly))).toMatch(/^The PKCS#12 file uses 8,388,607 (PBKDF2|PBE) iterations; the limit is 1,000,000$/);
  });

  it('encrypted PKCS#8 (PBES2/PBKDF2): refused above the limit, in both readers', () => {
    run('openssl', ['pkcs8', '-topk8', '-in', 'key.pem', '-out', 'enc.pem', '-v2', 'aes-256-cbc', '-iter', '65536', '-passout', 'pass:pw']);
    const text = readFileSync(join(dir, 'enc.pem'), 'utf8');
    expect(() => checkPkcs8Costs(encryptedPkcs8Der(text)!)).not.toThrow();
    const der = patch(encryptedPkcs8Der(text)!, INT_65536, INT_8388607);
    const costly = `-----BEGIN ENCRYPTED PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END ENCRYPTED PRIVATE KEY-----\n`;
    expect(failure(() => loadPrivateKey(costly, 'pw'))).toBe('The encrypted private key uses 8,388,607 PBKDF2 iterations; the limit is 1,000,000.');
    expect(failure(() => importSshPrivateKey(costly, { passphrase: 'pw' }))).toBe('The encrypted private key uses 8,388,607 PBKDF2 iterations; the limit is 1,000,000.');
  });

  it('OpenSSH: bcrypt rounds above the limit are refused before bcrypt runs', () => {
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-a', '16', '-N', 'pw', '-f', 'id']);
    const text = readFileSync(join(dir, 'id'), 'utf8');
    const body = Buffer.from(text.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
    expect(() => checkOpenSshCosts(body)).not.toThrow();
    // kdfoptions: string salt (16 bytes), uint32 rounds = 16.
    const rounds = Buffer.from([0x00, 0x00, 0x00, 0x10, ...body.subarray(body.indexOf('bcrypt') + 6 + 8, body.indexOf('bcrypt') + 6 + 8 + 16), 0x00, 0x00, 0x00, 0x10]);
    expect(body.indexOf(rounds)).toBeGreaterThan(0);
    const costly = Buffer.from(body);
    costly.writeUInt32BE(0x7fffffff, body.indexOf(rounds) + 4 + 16);
    const pem = `-----BEGIN OPENSSH PRIVATE KEY-----\n${costly.toString('base64').replace(/(.{70})/g, '$1\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
    expect(failure(() => importSshPrivateKey(pem, { passphrase: 'pw' }))).toBe(
      `The OpenSSH key uses 2,147,483,647 bcrypt rounds; the limit is ${MAX_BCRYPT_ROUNDS.toLocaleString('en-US')}.`,
    );
    expect(importSshPrivateKey(text, { passphrase: 'pw' }).type).toBe('ed25519');
  });
});
