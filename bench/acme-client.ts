// A minimal ACME client (tests and the acme-order benchmark): ES256 account keys, flattened JWS, nonce bookkeeping.
import { createHash, createHmac, generateKeyPairSync, KeyObject, sign } from 'node:crypto';

export interface AcmeResponse {
  status: number;
  type: string;
  location?: string;
  body: any;
  text: string;
}

export class AcmeTestClient {
  key: KeyObject;
  jwk: Record<string, unknown>;
  kid?: string;
  nonce?: string;
  directory: Record<string, any> = {};

  constructor(readonly directoryUrl: string) {
    ({ key: this.key, jwk: this.jwk } = newKey());
  }

  async init(): Promise<this> {
    this.directory = (await (await fetch(this.directoryUrl)).json()) as Record<string, any>;
    return this;
  }

  async freshNonce(): Promise<string> {
    const res = await fetch(this.directory.newNonce, { method: 'HEAD' });
    return res.headers.get('replay-nonce')!;
  }

  /** The flattened JWS of payload ('' = POST-as-GET), by kid unless `withJwk`. */
  async jws(url: string, payload: unknown, o: { withJwk?: boolean; key?: KeyObject; jwk?: Record<string, unknown>; nonce?: string | null } = {}) {
    const header: Record<string, unknown> = { alg: 'ES256', url };
    if (o.nonce !== null) header.nonce = o.nonce ?? this.nonce ?? (await this.freshNonce());
    if (o.withJwk || !this.kid) header.jwk = o.jwk ?? this.jwk;
    else header.kid = this.kid;
    return flattened(header, payload, o.key ?? this.key);
  }

  async post(url: string, payload: unknown, o: Parameters<AcmeTestClient['jws']>[2] = {}): Promise<AcmeResponse> {
    const body = await this.jws(url, payload, o);
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/jose+json' }, body: JSON.stringify(body) });
    this.nonce = res.headers.get('replay-nonce') ?? undefined;
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, type, location: res.headers.get('location') ?? undefined, text, body: /json/.test(type) && text ? JSON.parse(text) : undefined };
  }

  eab(keyId: string, hmacKey: string) {
    const protectedHeader = b64(JSON.stringify({ alg: 'HS256', kid: keyId, url: this.directory.newAccount }));
    const payload = b64(JSON.stringify(this.jwk));
    const signature = createHmac('sha256', Buffer.from(hmacKey, 'base64url')).update(`${protectedHeader}.${payload}`).digest('base64url');
    return { protected: protectedHeader, payload, signature };
  }

  async register(keyId: string, hmacKey: string): Promise<AcmeResponse> {
    const res = await this.post(this.directory.newAccount, { termsOfServiceAgreed: true, externalAccountBinding: this.eab(keyId, hmacKey) });
    if (res.location) this.kid = res.location;
    return res;
  }
}

export function newKey(): { key: KeyObject; jwk: Record<string, unknown> } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { key: privateKey, jwk: publicKey.export({ format: 'jwk' }) as Record<string, unknown> };
}

export function flattened(header: Record<string, unknown>, payload: unknown, key: KeyObject) {
  const p = b64(JSON.stringify(header));
  const body = payload === '' ? '' : b64(JSON.stringify(payload));
  const signature = sign('sha256', Buffer.from(`${p}.${body}`), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return { protected: p, payload: body, signature };
}

const b64 = (s: string) => Buffer.from(s).toString('base64url');

/** The http-01 key authorization of a token for an account key (RFC 8555 §8.1). */
export function keyAuthorizationOf(token: string, jwk: Record<string, unknown>): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return `${token}.${createHash('sha256').update(canonical).digest('base64url')}`;
}
