// AlterClientQuotas validation with Kafka's errors and messages (ClientQuotaControlManager).
import { ErrorCode } from '../../../src/protocol/error-codes';
import { validateAlteration } from '../../../src/server/quotas/quota-entities';

const e = (entityType: string, entityName: string | null) => ({ entityType, entityName });
const set = (key: string, value: number) => ({ key, value, remove: false });

describe('validateAlteration', () => {
  it('turns a valid entry into a change: sets, removes, default entities as null', () => {
    expect(
      validateAlteration(
        [e('user', 'alice'), e('client-id', null)],
        [set('producer_byte_rate', 1024), { key: 'consumer_byte_rate', value: 0, remove: true }],
      ),
    ).toEqual({
      entity: { user: 'alice', 'client-id': null },
      set: { producer_byte_rate: 1024 },
      remove: ['consumer_byte_rate'],
    });
    expect(validateAlteration([e('ip', '::1')], [set('connection_creation_rate', 3)])).toMatchObject({
      entity: { ip: '::1' },
    });
  });

  it.each([
    [[], [set('producer_byte_rate', 1)], 'Invalid empty client quota entity'],
    [[e('user', 'a'), e('user', 'b')], [], 'duplicate entity entry user'],
    [[e('group', 'g')], [], 'Unhandled client quota entity type: group'],
    [[e('user', '')], [], 'Empty user not supported'],
    [[e('ip', '1.2.3.4'), e('user', 'a')], [], 'IP entity should not be combined'],
    [[e('ip', 'not-an-ip')], [], 'not-an-ip is not a valid IP'],
    [[e('user', 'a')], [set('connection_creation_rate', 1)], 'Invalid configuration key connection_creation_rate'],
    [[e('ip', null)], [set('producer_byte_rate', 1)], 'Invalid configuration key producer_byte_rate'],
    [[e('user', 'a')], [set('producer_byte_rate', 0)], 'Quota producer_byte_rate must be greater than 0'],
    [[e('user', 'a')], [set('producer_byte_rate', 1.5)], 'producer_byte_rate cannot be a fractional value.'],
    [[e('ip', null)], [set('connection_creation_rate', 2 ** 31)], 'too large for an INT'],
    [[e('user', 'a')], [set('producer_byte_rate', 1), set('producer_byte_rate', 2)], 'Duplicate quota key'],
    [[e('user', 'a')], [set('nope', 1)], 'Invalid configuration key nope'],
  ])('refuses %j %j with INVALID_REQUEST', (pairs, ops, message) => {
    const r = validateAlteration(pairs, ops);
    expect(r).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    expect((r as { errorMessage: string }).errorMessage).toContain(message);
  });

  it('takes fractional request percentages', () => {
    expect(validateAlteration([e('client-id', 'c')], [set('request_percentage', 12.5)])).toMatchObject({
      set: { request_percentage: 12.5 },
    });
  });
});
