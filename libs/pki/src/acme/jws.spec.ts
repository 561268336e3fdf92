import { createHmac, generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { keyAuthorization, keyFromJwk, thumbprint } from './jwk';
import { parseJws, verifyHmacJws, verifyJws } from './jws';
import { AcmeProblem } from './problem';

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

function jws(alg: string, key: KeyObject, payload: unknown = { hello: 'acme' }) {
  const p = b64({ alg, url: 'https://x/acme' });
  const body = b64(payload);
  const input = Buffer.from(`${p}.${body}`);
  const signature =
    alg === 'EdDSA'
      ? sign(null, input, key)
      : sign(alg === 'ES384' ? 'sha384' : 'sha256', input, alg.startsWith('ES') ? { key, dsaEncoding: 'ieee-p1363' } : key);
  return { protected: p, payload: body, signature: signature.toString('base64url') };
}

const pairs = {
  RS256: generateKeyPairSync('rsa', { modulusLength: 2048 }),
  ES256: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  ES384: generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  EdDSA: generateKeyPairSync('ed25519'),
};

describe('ACME JWS', () => {
  it.each(Object.keys(pairs) as (keyof typeof pairs)[])('%s: verifies with the key from its JWK', (alg) => {
    const { privateKey, publicKey } = pairs[alg];
    const parsed = parseJws(jws(alg, privateKey));
    expect(parsed.payloadText).toBe('{"hello":"acme"}');
    expect(() => verifyJws(parsed, keyFromJwk(publicKey.export({ format: 'jwk' })))).not.toThrow();
  });

  it('refuses a tampered payload, an algorithm that does not fit the key, and none/HS256', () => {
    const { privateKey, publicKey } = pairs.ES256;
    const good = jws('ES256', privateKey);
    const key = keyFromJwk(publicKey.export({ format: 'jwk' }));
    expect(() => verifyJws(parseJws({ ...good, payload: b64({ hello: 'other' }) }), key)).toThrow('does not verify');
    expect(() => verifyJws(parseJws(jws('ES384', pairs.ES384.privateKey)), key)).toThrow(/does not fit/);
    expect(() => verifyJws(parseJws({ ...good, protected: b64({ alg: 'none' }) }), key)).toThrow(/Unsupported JWS algorithm none/);
    expect(() => verifyJws(parseJws({ ...good, protected: b64({ alg: 'HS256' }) }), key)).toThrow(AcmeProblem);
  });

  it('refuses other serialisations and private or small keys', () => {
    expect(() => parseJws({ signatures: [] })).toThrow(/flattened/);
    expect(() => parseJws({ protected: '!!', payload: '', signature: '' })).toThrow(/protected header/);
    expect(() => keyFromJwk(pairs.ES256.privateKey.export({ format: 'jwk' }))).toThrow(/private key/);
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
    expect(() => keyFromJwk(small)).toThrow(/2048/);
  });

  it('verifies an EAB HMAC and refuses another key', () => {
    const hmac = Buffer.alloc(32, 7);
    const p = b64({ alg: 'HS256', kid: 'k1' });
    const payload = b64({ kty: 'EC' });
    const signature = createHmac('sha256', hmac).update(`${p}.${payload}`).digest('base64url');
    expect(() => verifyHmacJws(parseJws({ protected: p, payload, signature }), hmac)).not.toThrow();
    expect(() => verifyHmacJws(parseJws({ protected: p, payload, signature }), Buffer.alloc(32, 8))).toThrow(/does not verify/);
  });

  it('computes the RFC 7638 thumbprint (the RFC example) and key authorizations', () => {
    const rfc = {
      kty: 'RSA',
      n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
      e: 'AQAB',
      alg: 'RS256',
      kid: '2011-04-29',
    };
    expect(thumbprint(rfc)).toBe('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
    expect(keyAuthorization('tok', rfc)).toBe('tok.NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  });
});
