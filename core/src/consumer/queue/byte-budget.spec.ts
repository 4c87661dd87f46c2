import { describe, expect, it } from 'vitest';
import { flush } from '../runtime.fixture';
import { ByteBudget } from './byte-budget';

/** Whether the promise has settled once every pending microtask and one event-loop turn ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await flush();
  return done;
}

describe('ByteBudget (the app-wide cap on cached bytes)', () => {
  it('reserves at most the room left, and nothing when full', () => {
    const budget = new ByteBudget(1_000);
    expect(budget.reserve(600)).toBe(600);
    expect(budget.room()).toBe(400);
    // Concurrent pulls cannot together reserve more than the limit.
    expect(budget.reserve(600)).toBe(400);
    expect(budget.inUse).toBe(1_000);
    expect(budget.reserve(1)).toBe(0);
    expect(budget.room()).toBe(0);
  });

  it('settles a reservation with what arrived: less gives room back, one message more may overshoot the limit', () => {
    const budget = new ByteBudget(1_000);
    const reserved = budget.reserve(800);
    budget.settle(reserved, 300);
    expect(budget.inUse).toBe(300);
    const second = budget.reserve(700);
    expect(second).toBe(700);
    // The broker returns at least one message: a pull may bring more than it reserved.
    budget.settle(second, 900);
    expect(budget.inUse).toBe(1_200);
    expect(budget.room()).toBe(-200);
    expect(budget.reserve(10)).toBe(0);
  });

  it('counts the peak in use, reservations and overshoots included, and keeps it after releases', () => {
    const budget = new ByteBudget(1_000);
    const reserved = budget.reserve(700);
    expect(budget.peakInUse).toBe(700);
    budget.settle(reserved, 100);
    expect(budget.peakInUse).toBe(700);
    budget.settle(budget.reserve(900), 1_100);
    expect(budget.inUse).toBe(1_200);
    expect(budget.peakInUse).toBe(1_200);
    budget.release(1_200);
    expect(budget.inUse).toBe(0);
    expect(budget.peakInUse).toBe(1_200);
  });

  it('ignores a release of nothing', () => {
    const budget = new ByteBudget(100);
    budget.reserve(50);
    budget.release(0);
    budget.release(-10);
    expect(budget.inUse).toBe(50);
  });

  it('answers waitForRoom at once when the room is there', async () => {
    const budget = new ByteBudget(1_000);
    budget.reserve(500);
    expect(await settled(budget.waitForRoom(500))).toBe(true);
  });

  it('wakes a waiter only once the room it asked for is free (a low watermark), by releases', async () => {
    const budget = new ByteBudget(1_000);
    budget.reserve(1_000);
    const waiting = budget.waitForRoom(300);
    budget.release(100);
    expect(await settled(waiting)).toBe(false);
    budget.release(100);
    expect(await settled(waiting)).toBe(false);
    budget.release(100);
    expect(await settled(waiting)).toBe(true);
  });

  it('wakes a waiter when a pull settles for less than it reserved, not when it settles for as much or more', async () => {
    const budget = new ByteBudget(1_000);
    const first = budget.reserve(500);
    const second = budget.reserve(500);
    const waiting = budget.waitForRoom(200);
    budget.settle(first, 500);
    expect(await settled(waiting)).toBe(false);
    budget.settle(second, 250);
    expect(await settled(waiting)).toBe(true);
  });

  it('wakes each of two waiters once the room it asked for is free, and a later wait starts afresh', async () => {
    const budget = new ByteBudget(1_000);
    budget.reserve(1_000);
    const big = budget.waitForRoom(800);
    const small = budget.waitForRoom(100);
    budget.release(100);
    expect(await settled(small)).toBe(true);
    budget.release(700);
    expect(await settled(big)).toBe(true);
    const next = budget.waitForRoom(900);
    expect(await settled(next)).toBe(false);
    budget.release(100);
    expect(await settled(next)).toBe(true);
  });
});
