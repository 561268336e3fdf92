import { IsArray, IsNotEmpty, IsOptional } from 'class-validator';
import { OptionalText } from '@app/http';

export class AddAccountsDto {
  @IsArray({ message: 'ACCOUNTLIST must be a list of {ACCOUNTNAME, PASSWORD, ACCOUNTPASSWORDPOLICY, NOTES}' })
  @IsNotEmpty({ message: 'ACCOUNTLIST is required' })
  ACCOUNTLIST!: unknown[];
  /** On a managed resource a new name is a principal for its administrator: the gate's 'redirect' decision may need these. */
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
}

export class EditAccountDto {
  @OptionalText(255) ACCOUNTNAME?: string;
  @OptionalText(100) ACCOUNTPASSWORDPOLICY?: string;
  @OptionalText(4000) NOTES?: string;
  @IsOptional() @IsArray({ message: 'ACCOUNTCUSTOMFIELD must be a list of {CUSTOMLABEL, CUSTOMVALUE}' })
  ACCOUNTCUSTOMFIELD?: unknown[];
  /** A rename on a resource with an administrator is decided on it by the gate, which may ask for these. */
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
}
