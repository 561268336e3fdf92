import { OptionalText, RequiredSecret } from '@app/http';

export class GeneratePasswordDto {
  @OptionalText(100) POLICY?: string;
}

/** PAM360's POST /passwords/validate: lower-case `details`, camelCase fields. */
export class ValidatePasswordDto {
  @RequiredSecret() password!: string;
  @OptionalText(100) passwordPolicy?: string;
}
