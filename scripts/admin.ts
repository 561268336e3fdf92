import 'reflect-metadata';
import { ConfigError, loadConfig } from '@app/config';
import { COMMANDS } from './admin/commands';
import { openAdminContext } from './admin/context';
import { parseArgs } from './admin/args';

// The operator's command line: `npm run admin -- <command> [--flag value ...]`.
// It works on the same database as the services (DATABASE_URL, or the embedded one in DATA_DIR).
async function main(): Promise<void> {
  const [name, ...rest] = process.argv.slice(2);
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.log('Usage: npm run admin -- <command> [options]\n\nCommands:');
    for (const c of COMMANDS) console.log(`  ${c.usage.padEnd(60)} ${c.summary}`);
    process.exit(name ? 2 : 0);
  }
  const args = parseArgs(rest);
  const context = await openAdminContext(loadConfig());
  try {
    await command.run(context, args);
  } finally {
    await context.close();
  }
}

main().catch((error) => {
  const message = error instanceof ConfigError ? `Configuration error: ${error.message}` : error instanceof Error ? error.message : String(error);
  console.error(message);
  process.exit(1);
});
