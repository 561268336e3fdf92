import 'reflect-metadata';
import { startServices } from '@app/server';
import { PKI_SERVICE } from '../../pki/src/pki.service-definition';
import { VAULT_SERVICE } from '../../vault/src/vault.service-definition';

// Both services in one process: `npm start`.
startServices([VAULT_SERVICE, PKI_SERVICE]).catch((error) => {
  console.error(`Start-up failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
