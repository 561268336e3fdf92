import { OneOf, OptionalText, RequiredSecret } from '@app/http';

export class RetrievePasswordDto {
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
}

export class ChangePasswordDto {
  @RequiredSecret() NEWPASSWORD!: string;
  @OneOf(['LOCAL', 'REMOTE']) RESETTYPE?: 'LOCAL' | 'REMOTE';
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
}
