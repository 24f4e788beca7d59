import { setTimeout as sleep } from 'node:timers/promises';
import { ConnectionMute } from '../../src/server/connection-throttle';

// The mute is a promise to the client (KIP-219): a timer that fires before the real clock has
// reached the end (libuv's loop time lags the clock) must not unmute early.
describe('ConnectionMute', () => {
  afterEach(() => jest.restoreAllMocks());

  it('waits out the rest when its timer fires before the clock reached the end', async () => {
    let now = 1_000;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
    let unmuted = 0;
    const mute = new ConnectionMute(() => unmuted++);
    expect(mute.mute(5)).toBe(true);
    now += 3; // the timer fires while the clock says 2 ms are left
    await sleep(30);
    expect(unmuted).toBe(0);
    expect(mute.muted).toBe(true);
    now += 2;
    await sleep(30);
    expect(unmuted).toBe(1);
    expect(mute.muted).toBe(false);
  });

  it('a shorter mute does not cut a longer one; cancel stops it', async () => {
    const now = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
    let unmuted = 0;
    const mute = new ConnectionMute(() => unmuted++);
    expect(mute.mute(1_000)).toBe(true);
    expect(mute.mute(10)).toBe(false);
    mute.cancel();
    expect(mute.muted).toBe(false);
    await sleep(20);
    expect(unmuted).toBe(0);
  });
});
