import { AppError } from './app-error';
import { parseInput } from './input.decorator';
import { OptionalText, RequiredSecret } from './validators';

class OptionalOnly {
  @OptionalText(5) NOTE?: string;
}

class WithRequired {
  @RequiredSecret() SECRET!: string;
  @OptionalText(5) NOTE?: string;
}

const from = (fields: Record<string, unknown>) => (name: string) => fields[name];

function messageOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).message;
  }
}

// An input naming none of the DTO's fields reuses the DTO's verdict on empty input: it must
// be the verdict validation gives, on the first call and every later one.
describe('parseInput', () => {
  it('accepts an empty input when every field is optional, each time with a fresh instance', () => {
    const first = parseInput(OptionalOnly, from({}));
    const second = parseInput(OptionalOnly, from({}));
    expect(first).toBeInstanceOf(OptionalOnly);
    expect(second).not.toBe(first);
  });

  it('refuses an empty input that lacks a required field, each time', () => {
    const first = messageOf(() => parseInput(WithRequired, from({})));
    expect(first).toMatch(/SECRET/);
    expect(messageOf(() => parseInput(WithRequired, from({})))).toBe(first);
  });

  it('still validates inputs that name a field', () => {
    expect(messageOf(() => parseInput(OptionalOnly, from({ NOTE: 'far too long' })))).toMatch(/NOTE/);
    expect(parseInput(WithRequired, from({ SECRET: 's3cret' })).SECRET).toBe('s3cret');
    expect(messageOf(() => parseInput(WithRequired, from({ NOTE: 'ok' })))).toMatch(/SECRET/);
  });
});
