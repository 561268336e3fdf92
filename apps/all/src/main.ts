import 'reflect-metadata';
import { describeError, startServices, startupPorts } from '@app/server';
import { PKI_SERVICE } from '../../pki/src/pki.service-definition';
import { VAULT_SERVICE } from '../../vault/src/vault.service-definition';

// Both services in one process: `npm start`.
startServices([VAULT_SERVICE, PKI_SERVICE]).catch((error) => {
  console.error(`Start-up failed: ${describeError(error, startupPorts())}`);
  process.exit(1);
});
