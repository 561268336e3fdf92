// Network addresses as the interfaces give them: host names, ports, IPv4 ranges, timeouts.
// Below libs/ssh and libs/pki, which both reach hosts by what a caller typed.
export { AddressError } from './errors';
export {
  DEFAULT_PORT,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_TIMEOUT_SECONDS,
  MAX_RANGE_SIZE,
  parseHost,
  parsePort,
  parseTimeoutSeconds,
  timeoutCapNote,
  expandIpv4Range,
} from './addresses';
export type { Target } from './addresses';
