// The parallel slots: each running request holds a slot number of its own; a free slot whose engine is ready goes
// before one that is restarting; a waiting request takes the slot that frees.
import { describe, expect, it } from 'vitest';
import { QueueFull, Slots } from './slots.ts';

const gate = () => {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
};

describe('Slots', () => {
  it('gives each running request its own slot, prefers ready ones, and hands a freed slot to the next in line', async () => {
    const ready = new Set([1]);
    const slots = new Slots(2, 1, (s) => ready.has(s));
    const a = gate();
    const b = gate();
    const got: number[] = [];
    const ra = slots.run(async (s) => (got.push(s), a.p));
    const rb = slots.run(async (s) => (got.push(s), b.p));
    await Promise.resolve();
    expect(got).toEqual([1, 0]); // slot 0 is not ready: the first request takes slot 1
    const rc = slots.run(async (s) => void got.push(s));
    await expect(slots.run(async () => undefined)).rejects.toBeInstanceOf(QueueFull);
    expect(slots.busy).toEqual({ running: 2, waiting: 1 });
    b.open();
    await rb;
    await rc;
    expect(got).toEqual([1, 0, 0]);
    a.open();
    await ra;
    expect(slots.busy).toEqual({ running: 0, waiting: 0 });
  });
});
