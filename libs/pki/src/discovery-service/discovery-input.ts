import { OptionalText, RequiredText } from '@app/http';

// PORT, TIMEOUT and WAIT stay text here (the input reader turns a JSON number into text): the discovery
// library parses them with messages that name the bound (ports 1-65535, TIMEOUT seconds,
// capped at 60).

class DiscoveryOptionsDto {
  @OptionalText(10) PORT?: string;
  /** Seconds per connection. */
  @OptionalText(10) TIMEOUT?: string;
  /** Our extension: seconds to wait for an inline answer before answering with a job id. */
  @OptionalText(10) WAIT?: string;
}

export class SingleDiscoveryDto extends DiscoveryOptionsDto {
  @RequiredText(300) HOST!: string;
}

export class RangeDiscoveryDto extends DiscoveryOptionsDto {
  @RequiredText(64) StartIpAddress!: string;
  @RequiredText(64) EndIpAddress!: string;
}

export class FileDiscoveryDto extends DiscoveryOptionsDto {
  @OptionalText(255) FileName?: string;
}

export class DiscoveryStatusDto {
  @RequiredText(20) jobId!: string;
}
