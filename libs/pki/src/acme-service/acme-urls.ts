/** The absolute URLs of one CA's ACME server (RFC 8555 requires absolute URLs everywhere). */
export class AcmeUrls {
  readonly root: string;

  constructor(
    readonly base: string,
    readonly caName: string,
  ) {
    this.root = `${base}/acme/${encodeURIComponent(caName)}`;
  }

  get directory() {
    return `${this.root}/directory`;
  }
  get newNonce() {
    return `${this.root}/new-nonce`;
  }
  get newAccount() {
    return `${this.root}/new-account`;
  }
  get newOrder() {
    return `${this.root}/new-order`;
  }
  get revokeCert() {
    return `${this.root}/revoke-cert`;
  }
  get keyChange() {
    return `${this.root}/key-change`;
  }
  account(id: number) {
    return `${this.root}/acct/${id}`;
  }
  orders(id: number) {
    return `${this.root}/acct/${id}/orders`;
  }
  order(id: number) {
    return `${this.root}/order/${id}`;
  }
  finalize(id: number) {
    return `${this.root}/order/${id}/finalize`;
  }
  authz(id: number) {
    return `${this.root}/authz/${id}`;
  }
  challenge(id: number) {
    return `${this.root}/chall/${id}`;
  }
  certificate(id: number) {
    return `${this.root}/cert/${id}`;
  }

  /** The account id a kid names, or undefined when it is not one of this CA's account URLs. */
  accountIdOf(kid: string): number | undefined {
    const prefix = `${this.root}/acct/`;
    if (!kid.startsWith(prefix)) return undefined;
    const id = kid.slice(prefix.length);
    return /^\d{1,9}$/.test(id) ? Number(id) : undefined;
  }
}
