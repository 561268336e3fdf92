import { readField } from './input-data';
import { ParsedRequest } from './parsed-request';

const withInput = (inputData: string, query: Record<string, string> = {}): ParsedRequest =>
  ({ query: { INPUT_DATA: inputData, ...query }, body: {} }) as unknown as ParsedRequest;

describe('readField', () => {
  it('takes a JSON null as a field not given, so the query string or the reader\'s default decides', () => {
    expect(readField(withInput('{"operation":{"Details":{"TICKETID":null}}}'), 'TICKETID')).toBeUndefined();
    expect(readField(withInput('{"operation":{"Details":{"TICKETID":null}}}', { TICKETID: 'CHG-1' }), 'TICKETID')).toBe('CHG-1');
    expect(readField(withInput('{"operation":{"Details":{"TICKETID":"CHG-2"}}}', { TICKETID: 'CHG-1' }), 'TICKETID')).toBe('CHG-2');
    expect(readField(withInput('{"operation":{"Details":{"REASON":""}}}'), 'REASON')).toBe('');
  });
});
