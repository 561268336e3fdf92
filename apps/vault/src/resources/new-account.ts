import { generatePassword, PasswordPolicy } from '@app/crypto';
import { AppError } from '@app/http';
import { CreateResourceDto } from './resource.dto';

export interface NewAccount {
  name: string;
  password: string;
}

/**
 * The account a creation makes (PAM360: only RESOURCENAME is required). Without ACCOUNTNAME
 * there is none, and nothing sent may need one; without PASSWORD the account gets one
 * generated from its policy.
 */
export function newAccountOf(dto: CreateResourceDto, policy: PasswordPolicy, needsAccount?: string): NewAccount | undefined {
  const name = dto.ACCOUNTNAME?.trim();
  if (!name) {
    const needing = dto.PASSWORD !== undefined ? 'PASSWORD' : needsAccount;
    if (needing) throw AppError.invalid(`${needing} needs ACCOUNTNAME`);
    return undefined;
  }
  return { name, password: dto.PASSWORD ?? generatePassword(policy) };
}
