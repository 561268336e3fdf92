import { ConsoleLogger, LoggerService, LogLevel } from '@nestjs/common';
import { LogFormat } from '@app/config';

const LEVELS: LogLevel[] = ['error', 'warn', 'log', 'debug', 'verbose'];

/** The levels at and above LOG_LEVEL. */
export function logLevels(level: LogLevel): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

// Nest's start-up chatter (every module, controller and mapped route) is for debugging only.
const DEMOTED_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

function isDemoted(params: unknown[]): boolean {
  const context = params[params.length - 1];
  return typeof context === 'string' && DEMOTED_CONTEXTS.has(context);
}

/** The logger of LOG_FORMAT at LOG_LEVEL. */
export function createLogger(format: LogFormat, level: LogLevel): LoggerService {
  return format === 'json' ? new JsonLogger(logLevels(level)) : new TextLogger({ logLevels: logLevels(level) });
}

/** Nest's coloured lines, minus the start-up chatter. */
export class TextLogger extends ConsoleLogger {
  override log(message: unknown, ...params: unknown[]): void {
    if (isDemoted(params)) super.debug(message, ...params);
    else super.log(message, ...params);
  }
}

/**
 * One JSON object per line on stdout: time, level, context, then either the fields of an
 * object message (request lines) or `message`. A fault's error id gets its own field.
 */
export class JsonLogger implements LoggerService {
  private levels: Set<LogLevel>;

  constructor(levels: LogLevel[], private readonly write: (line: string) => void = (line) => process.stdout.write(line)) {
    this.levels = new Set(levels);
  }

  setLogLevels(levels: LogLevel[]): void {
    this.levels = new Set(levels);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.emit(isDemoted(params) ? 'debug' : 'log', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.emit('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.emit('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.emit('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.emit('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.emit('error', message, params);
  }

  private emit(level: LogLevel, message: unknown, params: unknown[]): void {
    if (!this.levels.has(level)) return;
    const rest = [...params];
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const line: Record<string, unknown> = { time: new Date().toISOString(), level };
    if (context) line.context = context;
    if (typeof message === 'object' && message !== null && !(message instanceof Error)) {
      Object.assign(line, message);
    } else {
      const text = message instanceof Error ? `${message.name}: ${message.message}` : String(message);
      line.message = text;
      const errorId = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}) /.exec(text)?.[1];
      if (level === 'error' && errorId) line.errorId = errorId;
    }
    // Nest passes an error's stack as the argument before the context.
    const stack = rest.find((p) => typeof p === 'string');
    if (stack) line.stack = stack;
    this.write(JSON.stringify(line) + '\n');
  }
}
