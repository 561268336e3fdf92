/** Organisation settings the gate reads, as SQL, so the hot read spends no round trip on them. */
export type GateSetting = 'reason_required' | 'ticketing_enabled';

/**
 * A gate setting of organisation `org`: the copy on its organizations row, which a trigger
 * keeps equal to the settings row (migration CallerGateColumns), so a statement that has
 * read the caller's organisation can take it from there.
 */
export function settingSql(key: GateSetting, org: string): string {
  return `coalesce((SELECT so.${key} FROM organizations so WHERE so.id = ${org}), false)`;
}

export const REFUSAL_MESSAGES = {
  REASON: 'REASON is required: this server asks for a reason to access passwords and files',
  TICKETID: 'TICKETID is required: ticketing is enabled on this server',
} as const;
