import { Args } from './args';
import { AdminContext } from './context';

export interface AdminCommand {
  name: string;
  usage: string;
  summary: string;
  run(context: AdminContext, args: Args): Promise<void>;
}
