/** Organisation settings the gate reads, as SQL, so the hot read spends no round trip on them. */
export type GateSetting = 'reason_required' | 'ticketing_enabled';

export function settingSql(key: GateSetting, org: string): string {
  return `coalesce((SELECT st.value = 'true'::jsonb FROM settings st WHERE st.org_id = ${org} AND st.key = '${key}'), false)`;
}

export const REFUSAL_MESSAGES = {
  REASON: 'REASON is required: this server asks for a reason to access passwords and files',
  TICKETID: 'TICKETID is required: ticketing is enabled on this server',
} as const;
