import 'reflect-metadata';
import { describeError, startServices, startupPorts } from '@app/server';
import { VAULT_SERVICE } from './vault.service-definition';

// The vault alone (port 7272), e.g. one container of a split deployment.
startServices([VAULT_SERVICE]).catch((error) => {
  console.error(`Start-up failed: ${describeError(error, startupPorts())}`);
  process.exit(1);
});
