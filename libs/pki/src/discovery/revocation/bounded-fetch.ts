import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, refusedAddressReason } from './fetch-address';

export interface BoundedFetchOptions {
  timeoutMs: number;
  maxBytes: number;
  method?: 'GET' | 'POST';
  body?: Buffer;
  contentType?: string;
}

/**
 * GET/POST over http(s) with a hard deadline and body cap: revocation URLs come from
 * untrusted certificates, so a slow or huge response must not stall a scan. Redirects are
 * not followed (anything but 200 fails), and link-local or metadata addresses are refused
 * before connecting (fetch-address.ts).
 */
export function boundedFetch(url: string, options: BoundedFetchOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      reject(new Error(`Invalid URL: ${url}`));
      return;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      reject(new Error(`Unsupported URL scheme: ${parsed.protocol}`));
      return;
    }
    // A literal address never goes through DNS, so it is checked here; names at connect time.
    const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    const refused = isIP(host) ? refusedAddressReason(host) : null;
    if (refused) {
      reject(new Error(`Refused to fetch ${url}: ${refused}`));
      return;
    }
    const client = parsed.protocol === 'https:' ? https : http;
    const request = client.request(parsed, {
      lookup: guardedLookup,
      method: options.method ?? 'GET',
      headers: options.body
        ? { 'content-type': options.contentType ?? 'application/octet-stream', 'content-length': options.body.length }
        : {},
      agent: false,
    });
    const timer = setTimeout(() => fail(new Error(`Timed out fetching ${url}`)), options.timeoutMs);
    let settled = false;
    function fail(error: Error): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error);
    }
    request.on('error', (error) => fail(error));
    request.on('response', (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        fail(new Error(`HTTP ${response.statusCode} from ${url}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) fail(new Error(`Response from ${url} exceeds ${options.maxBytes} bytes`));
        else chunks.push(chunk);
      });
      response.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      });
      response.on('error', (error) => fail(error));
    });
    request.end(options.body);
  });
}
