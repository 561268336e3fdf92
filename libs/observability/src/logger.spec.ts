import { JsonLogger, logLevels } from './logger';

describe('JsonLogger', () => {
  const make = (level: Parameters<typeof logLevels>[0] = 'log') => {
    const out: string[] = [];
    return { logger: new JsonLogger(logLevels(level), (line) => out.push(line)), lines: () => out.map((l) => JSON.parse(l)) };
  };

  it('writes one JSON object per line with time, level and context', () => {
    const { logger, lines } = make();
    logger.log('listening', 'Start');
    logger.log({ requestId: 'r1', outcome: 'success' }, 'Request');
    expect(lines()).toEqual([
      { time: expect.stringMatching(/Z$/), level: 'log', context: 'Start', message: 'listening' },
      { time: expect.any(String), level: 'log', context: 'Request', requestId: 'r1', outcome: 'success' },
    ]);
  });

  it('gives a fault its error id as a field, with the stack Nest passes', () => {
    const { logger, lines } = make();
    logger.error('0f8e2a4c-1111-4222-8333-944455556666 GET /x: Error: boom', 'Error: boom\n  at x', 'Errors');
    expect(lines()[0]).toMatchObject({ level: 'error', context: 'Errors', errorId: '0f8e2a4c-1111-4222-8333-944455556666', stack: 'Error: boom\n  at x' });
  });

  it('demotes Nest start-up chatter (mapped routes) to debug and honours the level', () => {
    const quiet = make('log');
    quiet.logger.log('Mapped {/health, GET} route', 'RouterExplorer');
    quiet.logger.debug('detail', 'X');
    expect(quiet.lines()).toEqual([]);
    const loud = make('debug');
    loud.logger.log('Mapped {/health, GET} route', 'RouterExplorer');
    expect(loud.lines()).toEqual([expect.objectContaining({ level: 'debug', context: 'RouterExplorer' })]);
  });
});
