import { firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { PauseGate } from './pause-gate';

describe('PauseGate', () => {
  it('stays closed while any reason holds it; each reason is released on its own', async () => {
    const gate = new PauseGate();
    expect(gate.whenOpen()).toBeUndefined();
    expect(gate.hold('user')).toBe(true);
    expect(gate.hold('user')).toBe(false);
    expect(gate.hold('offset-store')).toBe(true);
    const open = firstValueFrom(gate.whenOpen()!);
    let opened = false;
    void open.then(() => (opened = true));
    expect(gate.release('user')).toBe(true);
    await Promise.resolve();
    expect(opened).toBe(false);
    expect(gate.isHeld).toBe(true);
    expect(gate.release('user')).toBe(false);
    expect(gate.release('offset-store')).toBe(true);
    await open;
    expect(gate.whenOpen()).toBeUndefined();
  });

  it('publishes whether it is held, now and at every change', () => {
    const gate = new PauseGate();
    const seen: boolean[] = [];
    const subscription = gate.held$.subscribe((held) => seen.push(held));
    gate.hold('user');
    gate.hold('offset-store');
    gate.release('user');
    gate.release('offset-store');
    subscription.unsubscribe();
    expect(seen).toEqual([false, true, false]);
  });
});
