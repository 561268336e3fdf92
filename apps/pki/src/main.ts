import 'reflect-metadata';
import { startServices } from '@app/server';
import { PKI_SERVICE } from './pki.service-definition';

// The key & certificate manager alone (port 6565).
startServices([PKI_SERVICE]).catch((error) => {
  console.error(`Start-up failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
