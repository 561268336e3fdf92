import { AccountRow, AuthzRow, ChallengeRow, OrderRow } from './acme.repository';
import { AcmeUrls } from './acme-urls';

/** RFC 8555 §7.1: the JSON objects the server answers. */
export function accountView(a: AccountRow, urls: AcmeUrls) {
  return { status: a.status, contact: a.contact, orders: urls.orders(a.id) };
}

export function orderView(o: OrderRow, authzs: AuthzRow[], urls: AcmeUrls) {
  return {
    status: o.status,
    expires: new Date(o.expires).toISOString(),
    identifiers: o.identifiers,
    authorizations: authzs.map((z) => urls.authz(z.id)),
    finalize: urls.finalize(o.id),
    ...(o.certificate_id !== null && o.status === 'valid' ? { certificate: urls.certificate(o.id) } : {}),
    ...(o.error ? { error: o.error } : {}),
  };
}

export function authzView(z: AuthzRow, challenges: ChallengeRow[], urls: AcmeUrls) {
  // Once the authorisation is decided, only the challenge that decided it matters (§7.1.4).
  const shown = z.status === 'pending' ? challenges : challenges.filter((c) => c.status !== 'pending');
  return {
    identifier: { type: z.identifier_type, value: z.identifier_value },
    status: z.status,
    expires: new Date(z.expires).toISOString(),
    challenges: shown.map((c) => challengeView(c, urls)),
  };
}

export function challengeView(c: ChallengeRow, urls: AcmeUrls) {
  return {
    type: c.type,
    url: urls.challenge(c.id),
    status: c.status,
    token: c.token,
    ...(c.validated_at ? { validated: new Date(c.validated_at).toISOString() } : {}),
    ...(c.error ? { error: c.error } : {}),
  };
}

