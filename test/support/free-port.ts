import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A loopback port free now, for a peer the test starts next (sshd, slapd, PostgreSQL, Patroni,
 * an ACME client's challenge server...). Picked below the kernel's ephemeral range, from which
 * the kernel takes the local port of every outgoing connection: a port picked with listen(0)
 * comes from that range too, and another test's connection could take it before the peer binds
 * it (seen with Patroni's REST port when three files ran at once).
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const high = ephemeralLow();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = randomInt(LOWEST, high);
    if (await bindable(port, host)) return port;
  }
  throw new Error(`No free port on ${host} between ${LOWEST} and ${high}`);
}

const LOWEST = 10_000;

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return low > LOWEST + 1000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function bindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
