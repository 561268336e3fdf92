/**
 * Bad input naming a place to reach (host, port, timeout, address range); shown to the caller
 * as is and answered as a client error.
 */
export class AddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressError';
  }
}
