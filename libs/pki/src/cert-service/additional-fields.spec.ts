import { AppError } from '@app/http';
import { checkFieldName, parseFieldData, resolveFieldValues } from './additional-fields';

const owner = { id: 1, name: 'Owner', options: null };
const tier = { id: 2, name: 'Tier', options: ['Gold', 'Silver'] };

const messageOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as Error).message;
  }
  throw new Error('did not throw');
};

describe('additional fields of certificates', () => {
  it('reads KMP pairs, numbers and flags as text, a missing value as a clearing', () => {
    expect(parseFieldData([{ ADDITIONALFIELDNAME: ' Owner ', ADDITIONALFIELDVALUE: 'alice' }, { ADDITIONALFIELDNAME: 'Tier', ADDITIONALFIELDVALUE: 3 }, { ADDITIONALFIELDNAME: 'x' }])).toEqual([
      { name: 'Owner', value: 'alice' },
      { name: 'Tier', value: '3' },
      { name: 'x', value: '' },
    ]);
  });

  it('names the entry that is wrong', () => {
    expect(messageOf(() => parseFieldData([{ ADDITIONALFIELDVALUE: 'v' }]))).toBe('sslAdditionalFieldData[0].ADDITIONALFIELDNAME is required');
    expect(messageOf(() => parseFieldData([{ ADDITIONALFIELDNAME: 'a', ADDITIONALFIELDVALUE: {} }]))).toBe('sslAdditionalFieldData[0].ADDITIONALFIELDVALUE must be text');
    expect(messageOf(() => parseFieldData(['x']))).toBe('sslAdditionalFieldData[0].ADDITIONALFIELDNAME is required');
  });

  it('matches names and options in any case and keeps the defined spelling', () => {
    expect(resolveFieldValues([owner, tier], [{ name: 'tier', value: 'gold' }, { name: 'OWNER', value: 'Alice' }])).toEqual([
      { field: tier, value: 'Gold' },
      { field: owner, value: 'Alice' },
    ]);
  });

  it('refuses an unknown field, a value outside the drop-down, and a field given twice', () => {
    expect(messageOf(() => resolveFieldValues([owner, tier], [{ name: 'Colour', value: 'red' }]))).toBe('No additional field named Colour (defined: Owner, Tier)');
    expect(messageOf(() => resolveFieldValues([], [{ name: 'Colour', value: 'red' }]))).toBe('No additional field named Colour (none is defined; an administrator defines them with the admin command certificate-field)');
    expect(messageOf(() => resolveFieldValues([tier], [{ name: 'Tier', value: 'Bronze' }]))).toBe('Bronze is not an option of additional field Tier (options: Gold, Silver)');
    expect(messageOf(() => resolveFieldValues([owner], [{ name: 'Owner', value: 'a' }, { name: 'owner', value: 'b' }]))).toBe('Additional field Owner is given twice');
  });

  it('checks field names', () => {
    expect(checkFieldName(' Owner ')).toBe('Owner');
    expect(() => checkFieldName('a,b')).toThrow(AppError);
    expect(() => checkFieldName('')).toThrow(AppError);
  });
});
