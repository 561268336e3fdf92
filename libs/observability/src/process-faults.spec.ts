import { Logger } from '@nestjs/common';
import { processMetrics } from './metrics.service';
import { installProcessFaultHandlers, recordProcessFault } from './process-faults';

describe('process faults', () => {
  afterEach(() => jest.restoreAllMocks());

  const count = async (kind: string) => {
    const metric = await processMetrics().getSingleMetric('credvault_process_faults_total')?.get();
    return metric?.values.find((v) => v.labels.kind === kind)?.value ?? 0;
  };

  it('logs an escaped error with its stack and counts it by kind in /metrics', async () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const before = await count('uncaught_exception');
    recordProcessFault('uncaught_exception', new TypeError('boom'));
    recordProcessFault('unhandled_rejection', 'a string');
    expect(await count('uncaught_exception')).toBe(before + 1);
    expect(await count('unhandled_rejection')).toBeGreaterThanOrEqual(1);
    expect(error).toHaveBeenCalledWith(expect.stringMatching(/^Uncaught exception \(the process keeps serving\): TypeError: boom\n\s+at /));
    expect(error).toHaveBeenCalledWith('Unhandled rejection (the process keeps serving): non-error value of type string');
    expect(await processMetrics().metrics()).toMatch(/credvault_process_faults_total\{kind="uncaught_exception"\} \d+/);
  });

  it('installs its handlers once, however many services start in the process', () => {
    const before = process.listenerCount('uncaughtException');
    const remove = installProcessFaultHandlers();
    installProcessFaultHandlers();
    expect(process.listenerCount('uncaughtException')).toBe(before + 1);
    remove();
    expect(process.listenerCount('uncaughtException')).toBe(before);
  });
});
