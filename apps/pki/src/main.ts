import 'reflect-metadata';
import { describeError, startServices, startupPorts } from '@app/server';
import { PKI_SERVICE } from './pki.service-definition';

// The key & certificate manager alone (port 6565).
startServices([PKI_SERVICE]).catch((error) => {
  console.error(`Start-up failed: ${describeError(error, startupPorts())}`);
  process.exit(1);
});
