import 'reflect-metadata';
import { ConfigError, loadConfig } from '@app/config';
import { describeError } from '@app/server';
import { COMMANDS } from './admin/commands';
import { openAdminContext } from './admin/context';
import { parseArgs } from './admin/args';

// The operator's command line: `npm run admin -- <command> [--flag value ...]`.
// It works on the same database as the services (DATABASE_URL, or the embedded one in DATA_DIR).
async function main(): Promise<void> {
  const [name, ...rest] = process.argv.slice(2);
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const usage = ['Usage: npm run admin -- <command> [options]', '', 'Commands:', ...COMMANDS.map((c) => `  ${c.usage.padEnd(60)} ${c.summary}`)].join('\n');
    if (!name) {
      console.log(usage);
      process.exit(0);
    }
    console.error(`Unknown command: ${name}\n\n${usage}`);
    process.exit(2);
  }
  const args = parseArgs(rest, command.positional !== undefined);
  const context = await openAdminContext(loadConfig());
  try {
    await command.run(context, args);
  } finally {
    await context.close();
  }
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? `Configuration error: ${error.message}` : describeError(error));
  process.exit(1);
});
