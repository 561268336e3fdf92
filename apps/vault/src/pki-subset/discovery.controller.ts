import { discoveryOperations, VAULT_DISCOVERY_PRESENTATION } from '@app/pki/discovery-service';

/** docs/api/vault.md, prefix B: the discovery both ports serve, the per-host entries at the top level too. */
export const VaultDiscoveryController = discoveryOperations(VAULT_DISCOVERY_PRESENTATION);
