import { OneOf, OptionalBoolean, OptionalText } from '@app/http';

export class DownloadFileDto {
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
  @OptionalBoolean() ISCUSTOMFIELD?: boolean;
  @OneOf(['ACCOUNT', 'RESOURCE']) CUSTOMFIELDTYPE?: 'ACCOUNT' | 'RESOURCE';
  @OptionalText(100) CUSTOMFIELDLABEL?: string;
}
