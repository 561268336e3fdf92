import { DiscoveryError } from './errors';
import { DEFAULT_PORT, parseHost, parsePort, type Target } from '@app/net';

export const MAX_LIST_TARGETS = 1024;

/**
 * One `host [port]` (or `host:port`, `[v6]:port`) per line; blank lines and `#` comments
 * are ignored. All bad lines are reported together so the user can fix the file in one go.
 */
export function parseTargetList(text: string, defaultPort = DEFAULT_PORT, max = MAX_LIST_TARGETS): Target[] {
  const targets: Target[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) return;
    try {
      targets.push(parseLine(line, defaultPort));
    } catch (error) {
      problems.push(`line ${index + 1}: ${(error as Error).message}`);
    }
  });
  if (problems.length) throw new DiscoveryError(`Invalid target list: ${problems.join('; ')}`);
  if (!targets.length) throw new DiscoveryError('Target list is empty');
  if (targets.length > max) throw new DiscoveryError(`Too many targets: ${targets.length} (maximum ${max})`);
  return targets;
}

function parseLine(line: string, defaultPort: number): Target {
  const parts = line.split(/[\s,]+/);
  if (parts.length > 2) throw new DiscoveryError(`Expected "host [port]", got "${line}"`);
  let [host, port] = parts as [string, string | undefined];
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(host);
  const hostPort = /^([^:]+):(\d+)$/.exec(host);
  const inline = bracketed ?? hostPort;
  if (inline) {
    if (port !== undefined && inline[2] !== undefined) throw new DiscoveryError(`Port given twice in "${line}"`);
    [host, port] = [inline[1]!, port ?? inline[2]];
  }
  return { host: parseHost(host), port: parsePort(port, defaultPort) };
}
