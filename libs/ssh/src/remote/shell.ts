/** Single-quotes one word for a POSIX shell; the only way variable text enters a command line. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
