import { request as httpRequest } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as received (binary answers: OCSP responses, DER files). */
  body: Buffer;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

export interface RawRequest {
  method: string;
  /** Sent byte for byte: no normalising, no re-encoding (supertest would fix odd paths up). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Source address on loopback (127.x.y.z): spreads requests over addresses, e.g. past a per-address throttle. */
  localAddress?: string;
}

/** One HTTP request on loopback exactly as given, for inputs a well-behaved client never sends. */
export function rawRequest(baseUrl: string, req: RawRequest, timeoutMs = 30_000): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
    const headers: Record<string, string | number> = { ...req.headers };
    if (body) headers['Content-Length'] = body.length;
    const r = httpRequest(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent: false, timeout: timeoutMs, localAddress: req.localAddress },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: bytes, json });
        });
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${timeoutMs} ms: ${req.method} ${req.path}`)));
    r.on('error', reject);
    r.end(body);
  });
}
