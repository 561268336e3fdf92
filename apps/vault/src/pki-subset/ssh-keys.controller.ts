import { sshKeyOperations, VAULT_SSH_PRESENTATION } from '@app/ssh/service';

/** The vault's SSH subset on prefix B (docs/api/vault.md, prefix B): the key operations both ports serve, as prefix B presents them. */
export const VaultSshKeysController = sshKeyOperations(VAULT_SSH_PRESENTATION);
