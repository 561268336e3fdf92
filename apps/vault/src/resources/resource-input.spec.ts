import { parseAccountList } from '../accounts/account-list-input';
import { safeFileName, contentTypeOf } from '../files/file-store';
import { parseCustomFields } from './custom-fields';
import { canonicalType, checkTypeChange, isFileType } from './resource-types';

describe('resource types', () => {
  it('canonicalises known types and keeps custom ones', () => {
    expect(canonicalType(' file store ')).toBe('File Store');
    expect(canonicalType('My Appliance')).toBe('My Appliance');
    expect(isFileType('license store')).toBe(true);
    expect(isFileType('Key Store')).toBe(false);
  });

  it.each([
    ['Linux', 'Windows', undefined],
    ['File Store', 'file store', undefined],
    ['Linux', 'File Store', 'A Linux resource cannot be changed to File Store'],
    ['Key Store', 'Linux', 'A Key Store resource cannot be changed to another type'],
    ['MS Azure', 'AWS IAM', 'A MS Azure resource cannot be changed to another type'],
    ['Custom', 'License Store', 'A Custom resource cannot be changed to License Store'],
  ])('%s -> %s', (from, to, message) => {
    if (message) expect(() => checkTypeChange(from, to)).toThrow(message);
    else expect(() => checkTypeChange(from, to)).not.toThrow();
  });
});

describe('custom fields', () => {
  it('reads labels, values and types; numbers become text', () => {
    expect(parseCustomFields([{ customlabel: 'Port', CUSTOMVALUE: 22 }, { CUSTOMLABEL: 'Doc', CUSTOMVALUE: 'p', CUSTOMTYPE: 'File' }], 'resource')).toEqual([
      { label: 'Port', value: '22', type: 'Character' },
      { label: 'Doc', value: 'p', type: 'File' },
    ]);
  });

  it('refuses more than 20, duplicates and bad shapes by field name', () => {
    const many = Array.from({ length: 21 }, (_, i) => ({ CUSTOMLABEL: `l${i}` }));
    expect(() => parseCustomFields(many, 'account')).toThrow('ACCOUNTCUSTOMFIELD has 21 entries: at most 20 custom fields are allowed at account level');
    expect(() => parseCustomFields([{ CUSTOMLABEL: 'a' }, { CUSTOMLABEL: 'A' }], 'resource')).toThrow('RESOURCECUSTOMFIELD has the label "A" twice');
    expect(() => parseCustomFields([{ CUSTOMLABEL: 'a', CUSTOMVALUE: { x: 1 } }], 'resource')).toThrow('RESOURCECUSTOMFIELD[0].CUSTOMVALUE must be text');
  });
});

describe('ACCOUNTLIST', () => {
  it('reads entries in any case and keeps passwords exactly as sent', () => {
    expect(parseAccountList([{ accountname: ' web ', password: ' spaced ', notes: 'n' }])).toEqual([
      { name: 'web', password: ' spaced ', policy: undefined, notes: 'n', customFields: [] },
    ]);
  });

  it('refuses an empty list, missing fields and file custom fields', () => {
    expect(() => parseAccountList([])).toThrow('ACCOUNTLIST is empty');
    expect(() => parseAccountList([{ PASSWORD: 'p' }])).toThrow('ACCOUNTLIST[0].ACCOUNTNAME is required');
    expect(() => parseAccountList([{ ACCOUNTNAME: 'a', PASSWORD: 'p', ACCOUNTCUSTOMFIELD: [{ CUSTOMLABEL: 'f', CUSTOMTYPE: 'file' }] }])).toThrow(
      'ACCOUNTLIST[0]: file custom fields are not accepted here',
    );
  });
});

describe('stored file names and types', () => {
  it('keeps the base name only, without control characters or quotes', () => {
    expect(safeFileName('C:\\Users\\me\\key"s.pem')).toBe('keys.pem');
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('\u0000')).toBe('file');
  });

  it('prefers a specific sent type, else guesses from the extension', () => {
    expect(contentTypeOf('a.pdf', 'application/octet-stream')).toBe('application/pdf');
    expect(contentTypeOf('a.bin', 'image/png')).toBe('image/png');
    expect(contentTypeOf('a.unknown')).toBe('application/octet-stream');
  });
});
