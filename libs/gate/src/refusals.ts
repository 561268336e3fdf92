import { AppError, ErrorCode } from '@app/http';
import { ACCESS_REFUSALS } from './checkout-state';
import { REFUSAL_MESSAGES } from './settings-sql';
import { AccountUseRule } from './secret-use';

/** Why the gate withheld a secret (the `refusal` column of its verdict). */
export type Refusal = 'NOT_FOUND' | 'LEVEL' | 'CHECKOUT' | 'IN_USE' | 'HELPDESK' | 'REASON' | 'TICKETID' | 'MISSING';

const LEVEL_WORDS = { view: 'view', modify: 'modify', fullaccess: 'full' } as const;

/** The answer a client gets for a refusal: one message per cause, whatever the path. */
export function refusalError(refusal: Refusal, rule: AccountUseRule, accountName = '', resourceName = ''): AppError {
  switch (refusal) {
    case 'NOT_FOUND':
      return AppError.notFound('No such account found');
    case 'MISSING':
      return AppError.notFound(`No file is stored for account ${accountName}`);
    case 'LEVEL':
      return AppError.forbidden(
        rule.scope === 'resource'
          ? `You need ${LEVEL_WORDS[rule.need]} access to resource ${resourceName} ${rule.purpose}`
          : `You need ${LEVEL_WORDS[rule.need]} access to account ${accountName} ${rule.purpose}`,
      );
    case 'CHECKOUT':
    case 'IN_USE':
      return new AppError(ErrorCode.Forbidden, ACCESS_REFUSALS[refusal].message, ACCESS_REFUSALS[refusal].details);
    case 'HELPDESK':
      return AppError.forbidden('Password retrieval by help desk users is disabled for this resource');
    case 'REASON':
    case 'TICKETID':
      return AppError.forbidden(REFUSAL_MESSAGES[refusal]);
  }
}

/**
 * A refusal decided inside a transaction: the transaction rolls back, so the gate's
 * `transaction` writes its audit row afterwards, on its own.
 */
export class GateRefusal extends AppError {
  constructor(
    error: AppError,
    readonly auditRow: { operation: string; resourceId: number | null; resourceName: string; accountId: number | null; accountName: string; refusal: Refusal; reason: string; ticketId: string },
  ) {
    super(error.code, error.message, error.details);
  }
}
