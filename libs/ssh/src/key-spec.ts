import { SshKeyError } from './errors';

/** Key type names as the API spells them. */
export type SshKeyType = 'ssh-rsa' | 'ssh-dss' | 'ed25519' | 'ecdsa';

export interface SshKeySpec {
  type: SshKeyType;
  /** Bits; 256 for ed25519, as `ssh-keygen -l` reports it. */
  length: number;
}

export const ALLOWED_KEY_LENGTHS: Readonly<Record<SshKeyType, readonly number[]>> = {
  'ssh-rsa': [1024, 2048, 4096],
  'ssh-dss': [1024],
  ed25519: [],
  ecdsa: [256, 384, 521],
};

const DEFAULT_LENGTH: Record<SshKeyType, number> = { 'ssh-rsa': 2048, 'ssh-dss': 1024, ed25519: 256, ecdsa: 256 };

const TYPE_ALIASES: Record<string, SshKeyType> = {
  'ssh-rsa': 'ssh-rsa',
  rsa: 'ssh-rsa',
  'ssh-dss': 'ssh-dss',
  dss: 'ssh-dss',
  dsa: 'ssh-dss',
  'ssh-dsa': 'ssh-dss',
  // KMP's old help spells the types SSH2_RSA and SSH2_DSA.
  ssh2_rsa: 'ssh-rsa',
  ssh2_dsa: 'ssh-dss',
  ssh2_dss: 'ssh-dss',
  ed25519: 'ed25519',
  'ssh-ed25519': 'ed25519',
  ecdsa: 'ecdsa',
  ec: 'ecdsa',
  'ssh-ecdsa': 'ecdsa',
};

const CURVE_TYPE = /^ecdsa-sha2-nistp(256|384|521)$/;

export function allowedKeySpecsText(): string {
  const parts = (Object.keys(ALLOWED_KEY_LENGTHS) as SshKeyType[]).map((type) => {
    const lengths = ALLOWED_KEY_LENGTHS[type];
    return lengths.length ? `${type} (${lengths.join(', ')})` : type;
  });
  return `Invalid key type/length. Allowed: ${parts.join(', ')}`;
}

/**
 * Maps what a caller typed (any case, common aliases, length as number or text, possibly
 * absent) to a supported spec, or refuses with the list of allowed combinations.
 * ed25519 has a single size, so any length given with it is ignored.
 */
export function normalizeKeySpec(type: string | undefined | null, length?: number | string | null): SshKeySpec {
  const typeText = (type ?? '').trim().toLowerCase();
  const curve = CURVE_TYPE.exec(typeText);
  // Own keys only: "constructor" is a key of every plain object.
  const normalized = curve ? 'ecdsa' : Object.hasOwn(TYPE_ALIASES, typeText) ? TYPE_ALIASES[typeText] : undefined;
  if (!normalized) throw new SshKeyError('invalid_key_spec', allowedKeySpecsText());
  if (normalized === 'ed25519') return { type: 'ed25519', length: 256 };

  const lengthText = length === undefined || length === null ? '' : String(length).trim();
  let bits: number;
  if (lengthText === '') bits = curve ? Number(curve[1]) : DEFAULT_LENGTH[normalized];
  else if (/^\d+$/.test(lengthText)) bits = Number(lengthText);
  else throw new SshKeyError('invalid_key_spec', allowedKeySpecsText());

  if (curve && bits !== Number(curve[1])) throw new SshKeyError('invalid_key_spec', allowedKeySpecsText());
  if (!ALLOWED_KEY_LENGTHS[normalized].includes(bits)) throw new SshKeyError('invalid_key_spec', allowedKeySpecsText());
  return { type: normalized, length: bits };
}
