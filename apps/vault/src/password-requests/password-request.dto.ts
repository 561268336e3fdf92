import { OptionalText } from '@app/http';

/** requestpassword and checkout: REASON (required when the setting says so), TICKETID. */
export class RequestPasswordDto {
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
}

/** reject and checkin carry PASSWDID and REQUESTEDID; the path already names both. */
export class DecisionDto {
  @OptionalText(1000) REASON?: string;
}
