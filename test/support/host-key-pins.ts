import { RemoteHostError } from '../../libs/ssh/src/errors';
import { dropHostKeyPins, useHostKeyPins, type HostKeyPins, type PresentedHostKey } from '../../libs/ssh/src/remote/host-key';
import type { SshTarget } from '../../libs/ssh/src/remote/target';

/**
 * Trust-on-first-use pins in memory, for library tests that make SSH connections without
 * the database (the services use SshHostKeys). install() makes it the process's store.
 */
export class MemoryHostKeyPins implements HostKeyPins {
  readonly seen = new Map<string, string>();

  async verify(target: SshTarget, presented: PresentedHostKey): Promise<void> {
    const key = `${target.orgId}|${target.host}|${target.port}`;
    const recorded = this.seen.get(key) ?? target.expectedHostKey ?? presented.fingerprint;
    if (recorded !== presented.fingerprint) {
      throw new RemoteHostError('host_key_rejected', `host key mismatch: expected ${recorded}, presented ${presented.fingerprint}`);
    }
    this.seen.set(key, recorded);
  }

  install(): this {
    useHostKeyPins(this);
    return this;
  }

  uninstall(): void {
    dropHostKeyPins(this);
  }
}
