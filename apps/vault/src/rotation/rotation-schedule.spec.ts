import { AppError } from '@app/http';
import { formatTime, nextRun, parseRotationSchedule } from './rotation-schedule';

const reader = (fields: Record<string, unknown>) => (name: string) => fields[name];
const message = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as AppError).message;
  }
  return 'no error';
};

describe('parseRotationSchedule', () => {
  it('reads every field', () => {
    const s = parseRotationSchedule(
      reader({ ENABLED: 'true', INTERVAL: '0.05', INTERVALUNIT: 'Minutes', STARTTIME: '2027-01-02 03:04', RETRIES: '2', RETRYINTERVAL: '1.5', NOTIFY: 'a@x.org, b@y.org' }),
    );
    expect(s).toEqual({
      enabled: true,
      interval: 0.05,
      unit: 'minutes',
      startTime: new Date(Date.UTC(2027, 0, 2, 3, 4)),
      retries: 2,
      retryIntervalMinutes: 1.5,
      notify: ['a@x.org', 'b@y.org'],
    });
  });

  it('names the field at fault', () => {
    expect(message(() => parseRotationSchedule(reader({})))).toMatch(/^ENABLED is required/);
    expect(message(() => parseRotationSchedule(reader({ ENABLED: 'yes please' })))).toMatch(/^ENABLED must be/);
    expect(message(() => parseRotationSchedule(reader({ ENABLED: 'true' })))).toMatch(/^INTERVAL is required/);
    expect(message(() => parseRotationSchedule(reader({ ENABLED: 'true', INTERVAL: '-1' })))).toMatch(/^INTERVAL must be a positive/);
    expect(message(() => parseRotationSchedule(reader({ ENABLED: 'true', INTERVAL: '1', INTERVALUNIT: 'weeks' })))).toMatch(/^INTERVALUNIT must be one of/);
    expect(message(() => parseRotationSchedule(reader({ ENABLED: 'true', INTERVAL: '1', INTERVALUNIT: 'constructor' })))).toMatch(/^INTERVALUNIT must be one of/);
    expect(message(() => parseRotationSchedule(reader({ ENABLED: 'true', INTERVAL: '0.001', INTERVALUNIT: 'minutes' })))).toMatch(/^INTERVAL must be from/);
    expect(message(() => parseRotationSchedule(reader({ ENABLED: 'true', INTERVAL: '1', STARTTIME: '2027-02-30 10:00' })))).toMatch(/^STARTTIME/);
    expect(message(() => parseRotationSchedule(reader({ ENABLED: 'true', INTERVAL: '1', RETRIES: '1.5' })))).toMatch(/^RETRIES/);
    expect(message(() => parseRotationSchedule(reader({ ENABLED: 'true', INTERVAL: '1', NOTIFY: 'root' })))).toMatch(/^NOTIFY: root/);
  });

  it('keeps what a partial update leaves out', () => {
    const current = parseRotationSchedule(reader({ ENABLED: 'true', INTERVAL: '2', INTERVALUNIT: 'hours', RETRIES: '3', NOTIFY: 'a@x.org' }));
    expect(parseRotationSchedule(reader({ ENABLED: 'false' }), current)).toMatchObject({ enabled: false, interval: 2, unit: 'hours', retries: 3, notify: ['a@x.org'] });
  });
});

describe('nextRun', () => {
  const now = new Date(Date.UTC(2027, 0, 10, 12, 0));
  it('is one period from now without a start time', () => {
    expect(nextRun({ interval: 2, unit: 'hours' }, now)).toEqual(new Date(Date.UTC(2027, 0, 10, 14, 0)));
  });
  it('is the start time while it is ahead', () => {
    const start = new Date(Date.UTC(2027, 0, 11, 0, 0));
    expect(nextRun({ interval: 1, unit: 'days', startTime: start }, now)).toEqual(start);
  });
  it('skips missed periods and stays on the start time grid', () => {
    const start = new Date(Date.UTC(2027, 0, 1, 3, 30));
    expect(nextRun({ interval: 1, unit: 'days', startTime: start }, now)).toEqual(new Date(Date.UTC(2027, 0, 11, 3, 30)));
    expect(formatTime(nextRun({ interval: 1, unit: 'days' }, now, new Date(Date.UTC(2027, 0, 10, 11, 0))))).toBe('2027-01-11 11:00');
  });
});
