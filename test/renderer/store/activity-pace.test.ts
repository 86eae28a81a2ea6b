/**
 * The activity strips' pacing: the first call after a quiet spell shows on the next frame; under a
 * stream, the strips change at most every ACTIVITY_EVERY_MS (well within a second) and lose
 * nothing in between.
 */
import { describe, expect, it } from 'vitest';
import { ACTIVITY_EVERY_MS } from '../../../renderer/src/store/activity/activity-slice';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { auditRow, fakeApi, manualClock, manualFrames } from './fake-api';

function paced() {
  const frames = manualFrames();
  const time = manualClock();
  const store = createRootStore(fakeApi().api, { frame: frames.schedule, clock: time.clock });
  let updates = 0;
  store.subscribe((s, before) => {
    if (s.activity !== before.activity) updates++;
  });
  const calls = () => store.getState().activity.github?.calls ?? 0;
  return { frames, time, store, calls, updates: () => updates };
}

describe('activity pacing', () => {
  it('shows the first call after a quiet spell on the next frame', () => {
    const { frames, store, calls } = paced();
    store.getState().activityBatch([auditRow(1)]);
    expect(calls()).toBe(0);
    frames.runFrame();
    expect(calls()).toBe(1);
  });

  it('folds a steady stream at most every ACTIVITY_EVERY_MS, every row counted', () => {
    const { frames, time, store, calls, updates } = paced();
    let id = 0;
    // One second of 60 frames with a batch of 17 rows before each.
    for (let f = 0; f < 60; f++) {
      store.getState().activityBatch(Array.from({ length: 17 }, () => auditRow(++id)));
      frames.runFrame();
      time.advance(1000 / 60);
      frames.runFrame();
    }
    expect(ACTIVITY_EVERY_MS).toBeLessThanOrEqual(250);
    expect(updates()).toBeLessThanOrEqual(Math.ceil(1000 / ACTIVITY_EVERY_MS) + 1);
    expect(updates()).toBeGreaterThanOrEqual(3);
    // What arrived since the last fold shows once its time is up, nothing dropped.
    time.advance(ACTIVITY_EVERY_MS);
    frames.runFrame();
    expect(calls()).toBe(60 * 17);
  });

  it('never holds a row back longer than ACTIVITY_EVERY_MS and a frame', () => {
    const { frames, time, store, calls } = paced();
    store.getState().activityBatch([auditRow(1)]);
    frames.runFrame();
    time.advance(10);
    store.getState().activityBatch([auditRow(2)]);
    frames.runFrame();
    expect(calls()).toBe(1);
    time.advance(ACTIVITY_EVERY_MS - 10 - 1);
    frames.runFrame();
    expect(calls()).toBe(1);
    time.advance(1);
    frames.runFrame();
    expect(calls()).toBe(2);
  });
});
