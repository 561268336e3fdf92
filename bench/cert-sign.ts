// Certificates signed per second by one CA on one core (sequential awaits, so one
// signature in flight). Build with tsc, then `node <outDir>/bench/cert-sign.js [iterations]`
// (default 500). The node-forge row shows why signing is native.
import * as forge from 'node-forge';
import { CertificateAuthority, createCsr, createRootCa, parseCsr, ParsedCsr } from '../libs/pki/src/certs';

interface Row {
  case: string;
  iterations: number;
  ms: number;
}

async function timeIt(name: string, iterations: number, fn: () => Promise<unknown>): Promise<Row> {
  for (let i = 0; i < Math.min(20, iterations); i++) await fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await fn();
  return { case: name, iterations, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

async function caRows(label: string, keyAlgorithm: 'RSA' | 'EC', keyLength: number, csr: ParsedCsr, iterations: number): Promise<Row[]> {
  const ca = await CertificateAuthority.load(
    await createRootCa({ subject: { commonName: `Bench ${label} CA` }, keyAlgorithm, keyLength }),
  );
  const options = { validityDays: 30, template: 'WebServer', crlDistributionPointUrl: 'http://pki.example.com/ca.crl' };
  return [
    await timeIt(`${label} CA, signCsr (parsed CSR)`, iterations, () => ca.signCsr(csr, options)),
    await timeIt(`${label} CA, signCsr (PEM, parse + verify)`, iterations, () => ca.signCsr(csr.csrPem, options)),
  ];
}

async function forgeRow(iterations: number): Promise<Row> {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const leaf = forge.pki.rsa.generateKeyPair(1024).publicKey;
  return timeIt('RSA-2048 CA, node-forge pure JS', iterations, async () => {
    const cert = forge.pki.createCertificate();
    cert.publicKey = leaf;
    cert.serialNumber = forge.util.bytesToHex(forge.random.getBytesSync(16)).replace(/^[89a-f]/, '1');
    cert.validity.notBefore = new Date();
    cert.validity.notAfter = new Date(Date.now() + 30 * 86_400_000);
    cert.setSubject([{ shortName: 'CN', value: 'bench.example.com' }]);
    cert.setIssuer([{ shortName: 'CN', value: 'Bench forge CA' }]);
    cert.sign(keys.privateKey, forge.md.sha256.create());
  });
}

// Under bench/run.ts argv[2] is the benchmark's name, not a count.
export async function main(iterations = /^\d+$/.test(process.argv[2] ?? '') ? Number(process.argv[2]) : 500): Promise<Row[]> {
  const csr = await parseCsr(
    (await createCsr({ subject: { commonName: 'bench.example.com' }, altNames: 'www.bench.example.com,10.0.0.1', keyAlgorithm: 'RSA', keyLength: 2048 })).csrPem,
  );
  const rows = [
    ...(await caRows('RSA-2048', 'RSA', 2048, csr, iterations)),
    ...(await caRows('P-256', 'EC', 256, csr, iterations)),
    await forgeRow(Math.max(1, Math.min(100, Math.floor(iterations / 5)))),
  ];
  console.log(`node ${process.version}, one core, ${iterations} iterations per native case`);
  console.table(
    rows.map((r) => ({
      case: r.case,
      iterations: r.iterations,
      'ms/cert': +(r.ms / r.iterations).toFixed(2),
      'certs/s': Math.round((r.iterations * 1000) / r.ms),
    })),
  );
  return rows;
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
