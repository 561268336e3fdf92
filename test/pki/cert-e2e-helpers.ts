// Shared by the certificate, CSR and deployment e2e specs: HTTP calls and the independent tools.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { inputData } from '../support/http';

export const API = '/api/pki/restapi';

export function binary(res: request.Response, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

/** Calls one operation of a base URL (pki or vault prefix B) with INPUT_DATA as real clients send it. */
export function client(baseUrl: () => string, token: () => string) {
  return {
    post: (op: string, details: Record<string, unknown> = {}) =>
      request(baseUrl()).post(`${API}/${op}`).set('AUTHTOKEN', token()).type('form').send({ INPUT_DATA: inputData(details) }),
    get: (op: string, details: Record<string, unknown> = {}) =>
      request(baseUrl()).get(`${API}/${op}`).set('AUTHTOKEN', token()).query({ INPUT_DATA: inputData(details) }),
    del: (op: string, details: Record<string, unknown> = {}) =>
      request(baseUrl()).delete(`${API}/${op}`).set('AUTHTOKEN', token()).query({ INPUT_DATA: inputData(details) }),
    /** A download: the raw body and the response headers. */
    download: async (op: string, details: Record<string, unknown>) => {
      const res = await request(baseUrl()).get(`${API}/${op}`).set('AUTHTOKEN', token()).query({ INPUT_DATA: inputData(details) }).buffer(true).parse(binary);
      return { body: res.body as Buffer, type: String(res.headers['content-type'] ?? ''), disposition: String(res.headers['content-disposition'] ?? '') };
    },
    upload: (op: string, details: Record<string, unknown>, parts: Record<string, { body: Buffer | string; name: string }>) => {
      let req = request(baseUrl()).post(`${API}/${op}`).set('AUTHTOKEN', token()).field('INPUT_DATA', inputData(details));
      for (const [part, file] of Object.entries(parts)) req = req.attach(part, Buffer.from(file.body), file.name);
      return req;
    },
  };
}

export class Tools {
  readonly dir = mkdtempSync(join(tmpdir(), 'cert-e2e-'));

  file(name: string, content?: string | Buffer): string {
    const path = join(this.dir, name);
    if (content !== undefined) writeFileSync(path, content);
    return path;
  }

  /** openssl with stderr merged (verify and req -verify print their verdict there). */
  openssl(...args: string[]): string {
    return execFileSync('sh', ['-c', 'openssl "$@" 2>&1', 'openssl', ...args], { encoding: 'utf8', cwd: this.dir });
  }

  /** openssl whose failure is the expected verdict (e.g. verify of a revoked certificate). */
  opensslVerdict(...args: string[]): string {
    return execFileSync('sh', ['-c', 'openssl "$@" 2>&1; true', 'openssl', ...args], { encoding: 'utf8', cwd: this.dir });
  }

  keytool(...args: string[]): string {
    return execFileSync('keytool', args, { encoding: 'utf8', cwd: this.dir, stdio: ['pipe', 'pipe', 'pipe'] });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
