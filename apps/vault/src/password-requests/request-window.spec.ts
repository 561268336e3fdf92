import { fromDateTimeLocal, requestWindow } from './request-window';

const NOW = new Date(2026, 10, 28, 9, 0);

describe('a request window (PAM360 ACCESS later)', () => {
  it('has none for ACCESS now or no ACCESS', () => {
    expect(requestWindow({}, NOW)).toBeUndefined();
    expect(requestWindow({ ACCESS: 'now' }, NOW)).toBeUndefined();
  });

  it('reads STARTTIME and ENDTIME as DD/mm/yyyy HH:mm in the server time zone', () => {
    expect(requestWindow({ ACCESS: 'later', STARTTIME: '28/11/2026 10:00', ENDTIME: '28/11/2026 12:30' }, NOW)).toEqual({
      start: new Date(2026, 10, 28, 10, 0),
      end: new Date(2026, 10, 28, 12, 30),
    });
  });

  it.each([
    [{ ACCESS: 'soon' }, 'ACCESS must be now or later'],
    [{ ACCESS: 'now', STARTTIME: '28/11/2026 10:00' }, 'STARTTIME and ENDTIME need ACCESS later'],
    [{ ACCESS: 'later', ENDTIME: '28/11/2026 10:00' }, 'STARTTIME is required with ACCESS later, as DD/mm/yyyy HH:mm'],
    [{ ACCESS: 'later', STARTTIME: '2026-11-28 10:00', ENDTIME: '28/11/2026 10:00' }, 'STARTTIME is required with ACCESS later'],
    [{ ACCESS: 'later', STARTTIME: '31/02/2027 10:00', ENDTIME: '01/03/2027 10:00' }, 'STARTTIME is not a date and time: 31/02/2027 10:00'],
    [{ ACCESS: 'later', STARTTIME: '28/11/2026 25:00', ENDTIME: '29/11/2026 10:00' }, 'STARTTIME is not a date and time'],
    [{ ACCESS: 'later', STARTTIME: '28/11/2026 12:00', ENDTIME: '28/11/2026 11:00' }, 'ENDTIME must be after STARTTIME'],
    [{ ACCESS: 'later', STARTTIME: '27/11/2026 07:00', ENDTIME: '28/11/2026 08:00' }, 'ENDTIME is in the past'],
    [{ ACCESS: 'later', STARTTIME: '28/11/2026 10:00', ENDTIME: '30/12/2026 10:00' }, 'at most 31 days'],
  ])('refuses %j: %s', (fields, message) => {
    expect(() => requestWindow(fields, NOW)).toThrow(message);
  });

  it('turns a browser datetime-local value into the API format', () => {
    expect(fromDateTimeLocal('2026-11-28T10:05')).toBe('28/11/2026 10:05');
    expect(fromDateTimeLocal('junk')).toBe('junk');
  });
});
