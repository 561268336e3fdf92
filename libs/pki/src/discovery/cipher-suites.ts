export type WeakCategory = 'RC4' | 'DES' | '3DES' | 'NULL' | 'EXPORT' | 'ANON';

export interface CipherSuite {
  code: number;
  name: string;
  /** Present only on suites the weak-cipher probe reports. */
  weak?: WeakCategory;
  cbc: boolean;
}

const suite = (code: number, name: string, cbc: boolean, weak?: WeakCategory): CipherSuite => ({ code, name, cbc, weak });

// IANA code points. Kept by hand because OpenSSL 3 no longer ships most weak suites, so
// neither `openssl ciphers` nor node:tls can name or offer them.
export const CIPHER_SUITES: readonly CipherSuite[] = [
  suite(0x0001, 'TLS_RSA_WITH_NULL_MD5', false, 'NULL'),
  suite(0x0002, 'TLS_RSA_WITH_NULL_SHA', false, 'NULL'),
  suite(0x003b, 'TLS_RSA_WITH_NULL_SHA256', false, 'NULL'),
  suite(0xc001, 'TLS_ECDH_ECDSA_WITH_NULL_SHA', false, 'NULL'),
  suite(0xc006, 'TLS_ECDHE_ECDSA_WITH_NULL_SHA', false, 'NULL'),
  suite(0xc00b, 'TLS_ECDH_RSA_WITH_NULL_SHA', false, 'NULL'),
  suite(0xc010, 'TLS_ECDHE_RSA_WITH_NULL_SHA', false, 'NULL'),
  suite(0xc015, 'TLS_ECDH_anon_WITH_NULL_SHA', false, 'NULL'),
  suite(0x0003, 'TLS_RSA_EXPORT_WITH_RC4_40_MD5', false, 'EXPORT'),
  suite(0x0006, 'TLS_RSA_EXPORT_WITH_RC2_CBC_40_MD5', true, 'EXPORT'),
  suite(0x0008, 'TLS_RSA_EXPORT_WITH_DES40_CBC_SHA', true, 'EXPORT'),
  suite(0x000b, 'TLS_DH_DSS_EXPORT_WITH_DES40_CBC_SHA', true, 'EXPORT'),
  suite(0x000e, 'TLS_DH_RSA_EXPORT_WITH_DES40_CBC_SHA', true, 'EXPORT'),
  suite(0x0011, 'TLS_DHE_DSS_EXPORT_WITH_DES40_CBC_SHA', true, 'EXPORT'),
  suite(0x0014, 'TLS_DHE_RSA_EXPORT_WITH_DES40_CBC_SHA', true, 'EXPORT'),
  suite(0x0017, 'TLS_DH_anon_EXPORT_WITH_RC4_40_MD5', false, 'EXPORT'),
  suite(0x0019, 'TLS_DH_anon_EXPORT_WITH_DES40_CBC_SHA', true, 'EXPORT'),
  suite(0x0004, 'TLS_RSA_WITH_RC4_128_MD5', false, 'RC4'),
  suite(0x0005, 'TLS_RSA_WITH_RC4_128_SHA', false, 'RC4'),
  suite(0xc002, 'TLS_ECDH_ECDSA_WITH_RC4_128_SHA', false, 'RC4'),
  suite(0xc007, 'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA', false, 'RC4'),
  suite(0xc00c, 'TLS_ECDH_RSA_WITH_RC4_128_SHA', false, 'RC4'),
  suite(0xc011, 'TLS_ECDHE_RSA_WITH_RC4_128_SHA', false, 'RC4'),
  suite(0x0018, 'TLS_DH_anon_WITH_RC4_128_MD5', false, 'RC4'),
  suite(0xc016, 'TLS_ECDH_anon_WITH_RC4_128_SHA', false, 'RC4'),
  suite(0x0009, 'TLS_RSA_WITH_DES_CBC_SHA', true, 'DES'),
  suite(0x0012, 'TLS_DHE_DSS_WITH_DES_CBC_SHA', true, 'DES'),
  suite(0x0015, 'TLS_DHE_RSA_WITH_DES_CBC_SHA', true, 'DES'),
  suite(0x001a, 'TLS_DH_anon_WITH_DES_CBC_SHA', true, 'DES'),
  suite(0x000a, 'TLS_RSA_WITH_3DES_EDE_CBC_SHA', true, '3DES'),
  suite(0x000d, 'TLS_DH_DSS_WITH_3DES_EDE_CBC_SHA', true, '3DES'),
  suite(0x0010, 'TLS_DH_RSA_WITH_3DES_EDE_CBC_SHA', true, '3DES'),
  suite(0x0013, 'TLS_DHE_DSS_WITH_3DES_EDE_CBC_SHA', true, '3DES'),
  suite(0x0016, 'TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA', true, '3DES'),
  suite(0xc003, 'TLS_ECDH_ECDSA_WITH_3DES_EDE_CBC_SHA', true, '3DES'),
  suite(0xc008, 'TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA', true, '3DES'),
  suite(0xc00d, 'TLS_ECDH_RSA_WITH_3DES_EDE_CBC_SHA', true, '3DES'),
  suite(0xc012, 'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA', true, '3DES'),
  suite(0x001b, 'TLS_DH_anon_WITH_3DES_EDE_CBC_SHA', true, '3DES'),
  suite(0xc017, 'TLS_ECDH_anon_WITH_3DES_EDE_CBC_SHA', true, '3DES'),
  suite(0x0034, 'TLS_DH_anon_WITH_AES_128_CBC_SHA', true, 'ANON'),
  suite(0x003a, 'TLS_DH_anon_WITH_AES_256_CBC_SHA', true, 'ANON'),
  suite(0x0046, 'TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA', true, 'ANON'),
  suite(0x006c, 'TLS_DH_anon_WITH_AES_128_CBC_SHA256', true, 'ANON'),
  suite(0x006d, 'TLS_DH_anon_WITH_AES_256_CBC_SHA256', true, 'ANON'),
  suite(0x0089, 'TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA', true, 'ANON'),
  suite(0x009b, 'TLS_DH_anon_WITH_SEED_CBC_SHA', true, 'ANON'),
  suite(0x00a6, 'TLS_DH_anon_WITH_AES_128_GCM_SHA256', false, 'ANON'),
  suite(0x00a7, 'TLS_DH_anon_WITH_AES_256_GCM_SHA384', false, 'ANON'),
  suite(0x00bf, 'TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA256', true, 'ANON'),
  suite(0x00c5, 'TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA256', true, 'ANON'),
  suite(0xc018, 'TLS_ECDH_anon_WITH_AES_128_CBC_SHA', true, 'ANON'),
  suite(0xc019, 'TLS_ECDH_anon_WITH_AES_256_CBC_SHA', true, 'ANON'),
  // Sound suites, offered where a probe needs the server to complete a hello (SSLv3, heartbeat).
  suite(0x002f, 'TLS_RSA_WITH_AES_128_CBC_SHA', true),
  suite(0x0035, 'TLS_RSA_WITH_AES_256_CBC_SHA', true),
  suite(0x0033, 'TLS_DHE_RSA_WITH_AES_128_CBC_SHA', true),
  suite(0x0039, 'TLS_DHE_RSA_WITH_AES_256_CBC_SHA', true),
  suite(0x0032, 'TLS_DHE_DSS_WITH_AES_128_CBC_SHA', true),
  suite(0x0038, 'TLS_DHE_DSS_WITH_AES_256_CBC_SHA', true),
  suite(0x009c, 'TLS_RSA_WITH_AES_128_GCM_SHA256', false),
  suite(0x009d, 'TLS_RSA_WITH_AES_256_GCM_SHA384', false),
  suite(0xc009, 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', true),
  suite(0xc00a, 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA', true),
  suite(0xc013, 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', true),
  suite(0xc014, 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA', true),
  suite(0xc02b, 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', false),
  suite(0xc02c, 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', false),
  suite(0xc02f, 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', false),
  suite(0xc030, 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', false),
  suite(0xcca8, 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', false),
  suite(0xcca9, 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', false),
];

const BY_CODE = new Map(CIPHER_SUITES.map((s) => [s.code, s]));

export const WEAK_SUITES = CIPHER_SUITES.filter((s) => s.weak).map((s) => s.code);

/** Suites an SSLv3 server could pick: everything defined before TLS 1.1, weak ones included. */
export const SSLV3_SUITES = CIPHER_SUITES.filter((s) => s.code <= 0x003a).map((s) => s.code);

/** A broad, ordinary offer so any live TLS 1.0-1.2 server completes its side of the hello. */
export const COMMON_SUITES = [
  0xc02f, 0xc030, 0xc02b, 0xc02c, 0xcca8, 0xcca9, 0xc013, 0xc014, 0xc009, 0xc00a, 0x009c, 0x009d, 0x002f, 0x0035,
  0x0033, 0x0039, 0x000a, 0x0005, 0x0004,
];

export function cipherSuiteName(code: number): string {
  return BY_CODE.get(code)?.name ?? `0x${code.toString(16).padStart(4, '0')}`;
}

export function isCbcSuite(code: number): boolean {
  return BY_CODE.get(code)?.cbc ?? false;
}
