import { OptionalText } from '@app/http';

/** checkout: REASON (required when the setting says so), TICKETID. */
export class RequestPasswordDto {
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
}

/** requestpassword: also PAM360's request for later (ACCESS, STARTTIME, ENDTIME; see request-window.ts). */
export class RequestAccessDto extends RequestPasswordDto {
  @OptionalText(10) ACCESS?: string;
  @OptionalText(40) STARTTIME?: string;
  @OptionalText(40) ENDTIME?: string;
}

/** reject and checkin carry PASSWDID and REQUESTEDID; the path already names both. */
export class DecisionDto {
  @OptionalText(1000) REASON?: string;
}
