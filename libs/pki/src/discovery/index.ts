export { DiscoveryError, ConnectionFailure } from './errors';
export type { ConnectionFailureKind } from './errors';
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
} from './targets';
export type { Target } from './targets';
export { parseTargetList, MAX_LIST_TARGETS } from './target-list';
export { fetchCertificateChain } from './fetch-chain';
export type { FetchChainOptions, FetchedChain } from './fetch-chain';
export { summarizeCertificate } from './certificate-summary';
export { discoverTargets, DEFAULT_CONCURRENCY } from './runner';
export type { DiscoveryOptions, DiscoveryResult, DiscoveryEntry, DiscoveryStatus, DiscoveredCertificate } from './runner';
export { scanEndpoint } from './scan-endpoint';
export type { ScanTarget, VulnerabilityRecord } from './scan-endpoint';
export { countVulnerabilities } from './counts';
export type { VulnerabilityCounts } from './counts';
export { checkRevocation } from './revocation/check-revocation';
export type { RevocationOptions, RevocationResult } from './revocation/check-revocation';
export { probeWeakCiphers } from './probes/weak-ciphers';
export { probeSslv3 } from './probes/sslv3';
export type { Sslv3Result } from './probes/sslv3';
export { probeHeartbleed } from './probes/heartbleed';
export { probeProtocol, TLS_PROTOCOLS } from './probes/protocols';
export type { ProtocolSupport, TlsProtocol } from './probes/protocols';
export * from './cipher-suites';
export * from './probes/hello-exchange';
export * from './tls-wire';
