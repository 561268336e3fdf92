import { OneOf, OptionalText } from '@app/http';

export const ACCESS_TYPES = ['view', 'read', 'modify', 'fullaccess', 'revoke'] as const;
export type AccessTypeInput = (typeof ACCESS_TYPES)[number];

export class ShareDto {
  @OneOf(ACCESS_TYPES, false) ACCESSTYPE!: AccessTypeInput;
  @OptionalText(12) USERID?: string;
  @OptionalText(12) USERGROUPID?: string;
}
