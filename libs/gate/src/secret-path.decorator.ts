import { SetMetadata } from '@nestjs/common';
import { SecretUse } from './secret-use';

export const SECRET_PATH = 'gate:secret-path';

/**
 * Marks a route that releases, uses or replaces a stored secret. Such a route decides
 * through the gate; the secret-path suite (test/gate) lists every marked route and fails
 * when one is missing from its table of refusal checks.
 */
export const SecretPath = (use: SecretUse) => SetMetadata(SECRET_PATH, use);
