import type { Client } from 'ssh2';

/**
 * A new ssh2 client, the library loaded on first use: most starts of a service (and most test
 * files) never open an SSH connection, and loading ssh2 with its ciphers took 30–50 ms each time.
 */
export async function newSshClient(): Promise<Client> {
  const { Client: SshClient } = await import('ssh2');
  return new SshClient();
}
