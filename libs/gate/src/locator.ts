/** A stored object a use needs besides the account (a file): SQL over aliases a and r, its parameters from $13. */
export interface Locator {
  /** Distinguishes the prepared statement of each locator shape. */
  key: string;
  sql: string;
  params: unknown[];
  /** The answer when there is none (default: no file stored for the account). */
  missing?: string;
}
