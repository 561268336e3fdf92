import { OCSPResponse, OCSPResponseStatus } from '@peculiar/asn1-ocsp';
import { AsnConvert } from '@peculiar/asn1-schema';
import { RawAnswer } from '../support/raw-http';
import { FuzzRoute } from './route-model';

/** How a protocol route answered: its problems, and whether it was a success. */
export interface ProtocolVerdict {
  problems: string[];
  status: 'Success' | 'Failed';
  /** Tables a refusal may write, by the protocol's design. */
  mayChangeOnFailure: string[];
}

/**
 * The oracle for routes that speak a standard protocol instead of an envelope (declared by
 * @ProtocolOperation, read from the route metadata). Undefined for other routes, and for a
 * request sent with another method, which the router refuses with the ordinary envelope.
 */
export function protocolVerdict(route: FuzzRoute, method: string, answer: RawAnswer): ProtocolVerdict | undefined {
  if (!route.protocol || method !== route.method || unrouted(answer)) return undefined;
  return route.protocol.protocol === 'acme' ? acmeVerdict(method, answer) : ocspVerdict(answer);
}

/** The router's own 404 (a path with more segments, one that names no route): the envelope oracle's case. */
function unrouted(answer: RawAnswer): boolean {
  const type = String(answer.headers['content-type'] ?? '');
  return answer.status === 404 && /^application\/json\b/.test(type);
}

/**
 * RFC 8555: a success (2xx) or an RFC 7807 problem document (application/problem+json, an ACME
 * error type, the HTTP status), each with a fresh Replay-Nonce, so a refusal writes the nonce
 * table and nothing else.
 */
function acmeVerdict(method: string, answer: RawAnswer): ProtocolVerdict {
  const verdict: ProtocolVerdict = { problems: [], status: 'Failed', mayChangeOnFailure: ['acme_nonces'] };
  if (answer.status >= 200 && answer.status < 300) return { ...verdict, status: 'Success' };
  const type = String(answer.headers['content-type'] ?? '');
  if (!/^application\/problem\+json\b/.test(type)) verdict.problems.push(`ACME refusal is not application/problem+json (${type})`);
  if (!answer.headers['replay-nonce']) verdict.problems.push('ACME problem without a Replay-Nonce');
  if (method === 'HEAD') return verdict; // an answer to HEAD has no body
  const doc = answer.json;
  if (typeof doc?.type !== 'string' || !doc.type.startsWith('urn:ietf:params:acme:error:')) verdict.problems.push('ACME problem without an ACME error type');
  if (doc?.status !== undefined && doc.status !== answer.status) verdict.problems.push(`ACME problem status ${doc.status} differs from HTTP ${answer.status}`);
  if (typeof doc?.detail !== 'string' || doc.detail === '') verdict.problems.push('ACME problem without a detail');
  return verdict;
}

/** RFC 6960: a DER OCSPResponse (malformedRequest, unauthorized... for bad requests) or an HTTP 4xx. */
function ocspVerdict(answer: RawAnswer): ProtocolVerdict {
  const verdict: ProtocolVerdict = { problems: [], status: 'Failed', mayChangeOnFailure: [] };
  if (answer.status >= 400 && answer.status < 500) return verdict;
  const type = String(answer.headers['content-type'] ?? '');
  if (answer.status !== 200 || type !== 'application/ocsp-response') {
    verdict.problems.push(`OCSP answered HTTP ${answer.status} ${type}, not an OCSP response`);
    return verdict;
  }
  let response: OCSPResponse;
  try {
    response = AsnConvert.parse(answer.body, OCSPResponse);
  } catch (error) {
    verdict.problems.push(`OCSP answer is not a DER OCSPResponse: ${(error as Error).message}`);
    return verdict;
  }
  if (OCSPResponseStatus[response.responseStatus] === undefined) verdict.problems.push(`OCSP response status ${response.responseStatus} is not defined`);
  const successful = response.responseStatus === OCSPResponseStatus.successful;
  if (successful && !response.responseBytes) verdict.problems.push('successful OCSP response without responseBytes');
  return { ...verdict, status: successful ? 'Success' : 'Failed' };
}
