import { Args } from './args';
import { AdminContext } from './context';

export interface AdminCommand {
  name: string;
  usage: string;
  summary: string;
  /** The one bare argument the command takes (e.g. a file), read as args._. */
  positional?: string;
  run(context: AdminContext, args: Args): Promise<void>;
}
