import { OptionalText } from '@app/http';

export class GeneratePasswordDto {
  @OptionalText(100) POLICY?: string;
}
