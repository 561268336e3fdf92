import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsIn, IsNumber, IsOptional, Max, Min } from 'class-validator';
import { OptionalBoolean, OptionalText } from '@app/http';

/** Minutes as text or number; fractions allowed (a check-out of 0.05 minutes is 3 s). */
function OptionalMinutes(max: number) {
  return applyDecorators(
    IsOptional(),
    Transform(({ value }) => (typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value)),
    IsNumber({ allowNaN: false, allowInfinity: false }, { message: '$property must be a number of minutes' }),
    Min(0.01, { message: '$property must be more than 0' }),
    Max(max, { message: `$property must be at most ${max}` }),
  );
}

/** INPUT_DATA of CONFIGURE ACCESS CONTROL; every field optional, defaults as documented. */
export class AccessControlDto {
  /** false removes access control at this level. */
  @OptionalBoolean() ENABLED?: boolean;
  @OptionalBoolean() APPROVAL_REQUIRED?: boolean;
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? Number(value) : value))
  @IsIn([1, 2], { message: 'APPROVERS_REQUIRED must be 1 or 2' })
  APPROVERS_REQUIRED?: number;
  @OptionalBoolean() ADMINS_APPROVE?: boolean;
  /** User names, comma separated. */
  @OptionalText(4000) APPROVER_USERS?: string;
  /** User group names, comma separated. */
  @OptionalText(4000) APPROVER_GROUPS?: string;
  @OptionalBoolean() EXCLUSIVE?: boolean;
  @OptionalMinutes(7 * 24 * 60) CHECKOUT_MINUTES?: number;
  @OptionalMinutes(90 * 24 * 60) REQUEST_TTL_MINUTES?: number;
  @OptionalBoolean() RESET_AFTER_CHECKIN?: boolean;
  @OptionalBoolean() REASON_REQUIRED?: boolean;
}
