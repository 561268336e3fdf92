import { OneOf, OptionalText } from '@app/http';

export class PgpKeyDto {
  /** Defaults to the caller. Not trimmed: an escaped trailing space is part of the name. */
  @OptionalText(255) User?: string;
  @OneOf(['public', 'private']) keyExportType?: 'public' | 'private';
}
