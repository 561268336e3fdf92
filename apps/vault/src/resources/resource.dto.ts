import { IsArray, IsOptional } from 'class-validator';
import { OptionalText, RequiredSecret, RequiredText } from '@app/http';

export class CreateResourceDto {
  @RequiredText(255) RESOURCENAME!: string;
  @RequiredText(255) ACCOUNTNAME!: string;
  @RequiredText(100) RESOURCETYPE!: string;
  @RequiredSecret() PASSWORD!: string;
  @OptionalText(4000) NOTES?: string;
  @OptionalText(2000) RESOURCEURL?: string;
  @OptionalText(4000) RESOURCEDESCRIPTION?: string;
  @OptionalText(255) DNSNAME?: string;
  @OptionalText(255) LOCATION?: string;
  @OptionalText(255) DEPARTMENT?: string;
  @OptionalText(100) RESOURCEPASSWORDPOLICY?: string;
  @OptionalText(100) ACCOUNTPASSWORDPOLICY?: string;
  @OptionalText(255) OWNERNAME?: string;
  @OptionalText(255) RESOURCEGROUPNAME?: string;
  @IsOptional() @IsArray({ message: 'RESOURCECUSTOMFIELD must be a list of {CUSTOMLABEL, CUSTOMVALUE}' })
  RESOURCECUSTOMFIELD?: unknown[];
  @IsOptional() @IsArray({ message: 'ACCOUNTCUSTOMFIELD must be a list of {CUSTOMLABEL, CUSTOMVALUE}' })
  ACCOUNTCUSTOMFIELD?: unknown[];
}

export class ResourceSearchDto {
  @OptionalText(50) SEARCHCOLUMN?: string;
  @OptionalText(255) SEARCHVALUE?: string;
  @OptionalText(50) SEARCHTYPE?: string;
}
