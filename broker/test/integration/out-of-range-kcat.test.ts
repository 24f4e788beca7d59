// librdkafka (kcat) consuming from an offset the partition no longer or not yet has: the broker's
// OFFSET_OUT_OF_RANGE must reach the client so it applies auto.offset.reset and goes on. With a
// null record set in the error partition librdkafka dropped the whole response ("invalid
// MessageSetSize -1") and refetched forever.
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { kcat, startTestBroker } from './helpers';

/** kcat is killed after this long; a client that spins on the error never exits by itself. */
const KCAT_TIMEOUT_MS = 15_000;
/** Per test: above the kcat limit, so a spinning client fails the assertions, not the test runner. */
const TEST_TIMEOUT_MS = 20_000;

describeWithTools('kcat')('kcat at an out-of-range offset', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await startTestBroker('memory://');
  });
  afterAll(() => broker.stop());

  const produce = async (topic: string, lines: string[]) => {
    const p = await kcat(broker, ['-P', '-t', topic], { input: lines.join('\n') + '\n' });
    expect(p.code).toBe(0);
  };
  const consume = (topic: string, offset: string, reset: string) =>
    kcat(
      broker,
      ['-C', '-t', topic, '-p', '0', '-o', offset, '-e', '-X', `auto.offset.reset=${reset}`, '-f', '%o:%s\n'],
      { timeoutMs: KCAT_TIMEOUT_MS },
    );

  it(
    'resets an offset past the end to the earliest and reads the records',
    async () => {
      await produce('oor-end', ['a', 'b', 'c']);
      const c = await consume('oor-end', '1000', 'earliest');
      expect(c.code).toBe(0);
      expect(c.stdout.trim().split('\n')).toEqual(['0:a', '1:b', '2:c']);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'resets an offset below the log start (after DeleteRecords) to the earliest kept record',
    async () => {
      await produce('oor-start', ['a', 'b', 'c']);
      await broker.context.storage.deleteRecords('oor-start', 0, 2);
      const c = await consume('oor-start', '0', 'earliest');
      expect(c.code).toBe(0);
      expect(c.stdout.trim().split('\n')).toEqual(['2:c']);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'resets to the end with auto.offset.reset=latest and stops there',
    async () => {
      await produce('oor-latest', ['a', 'b', 'c']);
      const c = await consume('oor-latest', '1000', 'latest');
      expect(c.code).toBe(0);
      expect(c.stdout.trim()).toBe('');
    },
    TEST_TIMEOUT_MS,
  );
});
