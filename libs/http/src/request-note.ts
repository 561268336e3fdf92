/**
 * What the request log and the metrics need to know about an answer that only the code
 * building it knows: whether the envelope said Success or Failed, and a fault's error id.
 * Kept on the response object, so every path (Nest, the lean routes) can leave it.
 */
export type Outcome = 'success' | 'failed' | 'error' | 'not_found' | 'aborted';

export interface RequestNote {
  outcome?: Outcome;
  errorId?: string;
}

const NOTE = Symbol('requestNote');

type Noted = { [NOTE]?: RequestNote };

export function requestNote(res: object): RequestNote {
  const holder = res as Noted;
  return (holder[NOTE] ??= {});
}

/** From the envelope's own status text (Success, SUCCESS, Failed...) and the HTTP status. */
export function noteAnswer(res: object, httpStatus: number, envelopeStatus: string | undefined, errorId?: string): void {
  const note = requestNote(res);
  note.outcome = httpStatus >= 500 ? 'error' : httpStatus === 404 ? 'not_found' : httpStatus >= 400 || /^fail/i.test(envelopeStatus ?? '') ? 'failed' : 'success';
  if (errorId) note.errorId = errorId;
}

/** The status text of any of the three layouts (docs/api/vault.md, "Envelopes"). */
export function envelopeStatus(body: unknown): string | undefined {
  const b = body as { operation?: { result?: Result }; result?: Result } | undefined;
  const result = b?.operation?.result ?? b?.result;
  return result?.status ?? result?.Status;
}

interface Result {
  status?: string;
  Status?: string;
}
