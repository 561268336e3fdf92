import { parseGroupInput } from './group-criteria';

const reader = (fields: Record<string, unknown>) => (name: string) => {
  const key = Object.keys(fields).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : fields[key];
};

describe('resource group criteria (op 50)', () => {
  it('reads a dynamic group with numbered criteria', () => {
    const group = parseGroupInput(
      reader({
        critgroup: 'Linux web', critdesc: 'web servers', andor: 'or', NoOfCriteria: '2', NoHelpDeskRetrieval: 'true',
        condition_1: 'RESOURCENAME', operator_1: 'starts with', valuefield_1: 'web-',
        condition_2: 'LOGINNAME', operator_2: 'NOT_CONTAINS', valuefield_2: 'root',
        condition_3: 'DNSNAME', operator_3: 'EQUALS', valuefield_3: 'ignored beyond NoOfCriteria',
      }),
    );
    expect(group).toEqual({
      name: 'Linux web',
      description: 'web servers',
      kind: 'dynamic',
      matchMode: 'or',
      noHelpdeskRetrieval: true,
      criteria: [
        { field: 'RESOURCENAME', operator: 'STARTS WITH', value: 'web-' },
        { field: 'LOGINNAME', operator: 'NOT CONTAINS', value: 'root' },
      ],
    });
  });

  it('accepts a number for NoOfCriteria and maps ACCOUNTNAME to LOGINNAME', () => {
    const group = parseGroupInput(reader({ critgroup: 'g', NoOfCriteria: 1, condition_1: 'accountname', operator_1: 'ENDS WITH', valuefield_1: 'svc' }));
    expect(group.criteria).toEqual([{ field: 'LOGINNAME', operator: 'ENDS WITH', value: 'svc' }]);
    expect(group.matchMode).toBe('and');
  });

  it('makes a static group on GROUPTYPE static', () => {
    expect(parseGroupInput(reader({ critgroup: 's', GROUPTYPE: 'Static' }))).toMatchObject({ kind: 'static', criteria: [] });
  });

  it.each([
    [{}, 'critgroup (the group name) is required'],
    [{ critgroup: 'g' }, 'NoOfCriteria is required'],
    [{ critgroup: 'g', NoOfCriteria: 'two' }, 'NoOfCriteria must be a whole number from 1 to 20'],
    [{ critgroup: 'g', NoOfCriteria: '0' }, 'NoOfCriteria must be a whole number from 1 to 20'],
    [{ critgroup: 'g', NoOfCriteria: '2', condition_1: 'RESOURCENAME', operator_1: 'CONTAINS', valuefield_1: 'a' }, 'condition_2 is required'],
    [{ critgroup: 'g', NoOfCriteria: '1', condition_1: 'PASSWORD', operator_1: 'CONTAINS', valuefield_1: 'a' }, 'condition_1 must be one of'],
    [{ critgroup: 'g', NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'LIKE', valuefield_1: 'a' }, 'operator_1 must be one of'],
    [{ critgroup: 'g', NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'CONTAINS' }, 'valuefield_1 is required'],
    [{ critgroup: 'g', andor: 'xor', NoOfCriteria: '1' }, 'andor must be and or or'],
    [{ critgroup: 'g', NoHelpDeskRetrieval: 'maybe' }, 'NoHelpDeskRetrieval must be true or false'],
  ])('refuses malformed input %p', (fields, message) => {
    expect(() => parseGroupInput(reader(fields))).toThrow(message);
  });
});
