import { auditRange } from './audit-range';

describe('audit time range', () => {
  const now = new Date(2026, 10, 21, 15, 30);
  it('TODAY starts at midnight', () => {
    expect(auditRange('TODAY', undefined, undefined, now)).toEqual({ from: new Date(2026, 10, 21), to: null });
  });
  it('YESTERDAY is the whole previous day', () => {
    expect(auditRange('YESTERDAY', undefined, undefined, now)).toEqual({ from: new Date(2026, 10, 20), to: new Date(2026, 10, 21) });
  });
  it('LAST_7_DAYS is today and the six days before', () => {
    expect(auditRange('LAST_7_DAYS', undefined, undefined, now)).toEqual({ from: new Date(2026, 10, 15), to: null });
  });
  it('reads FROMDATE/TODATE; a TODATE without time includes the day', () => {
    expect(auditRange(undefined, '2026-11-01', '2026-11-02', now)).toEqual({ from: new Date(2026, 10, 1), to: new Date(2026, 10, 3) });
    expect(auditRange(undefined, '2026-11-01 08:15:30.5', undefined, now)).toEqual({ from: new Date(2026, 10, 1, 8, 15, 30, 500), to: null });
  });
  it('is unbounded without any', () => {
    expect(auditRange(undefined, undefined, undefined, now)).toEqual({ from: null, to: null });
  });
  it.each([
    ['TODAY', '2026-11-01', undefined, 'Give DURATION or FROMDATE/TODATE, not both'],
    [undefined, '01/11/2026', undefined, 'FROMDATE must be yyyy-mm-dd or yyyy-mm-dd hh:mm:ss'],
    [undefined, '2026-02-30', undefined, 'FROMDATE is not a valid date'],
    [undefined, '2026-11-05', '2026-11-01', 'FROMDATE must be before TODATE'],
  ])('refuses %p %p %p', (duration, from, to, message) => {
    expect(() => auditRange(duration, from, to, now)).toThrow(message);
  });
});
