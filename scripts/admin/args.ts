export type Args = Record<string, string | true>;

/** `--name value` and `--flag` pairs; with `positional`, one bare argument too, as `_`. */
export function parseArgs(argv: string[], positional = false): Args {
  const args: Args = {};
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    if (!key.startsWith('--') && positional && args._ === undefined) {
      args._ = key;
      continue;
    }
    if (!key.startsWith('--')) throw new Error(`Unexpected argument: ${key}`);
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) args[key.slice(2)] = true;
    else {
      args[key.slice(2)] = next;
      i++;
    }
  }
  return args;
}

export function required(args: Args, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || !value.trim()) throw new Error(`--${name} is required`);
  return value.trim();
}

export function optional(args: Args, name: string): string | undefined {
  const value = args[name];
  return typeof value === 'string' ? value : undefined;
}
