import { GateAbortedError, MemorySessionGate } from './session-gate';

describe('MemorySessionGate', () => {
  it('holds callers beyond the limit until a slot is given back, in order', async () => {
    const gate = new MemorySessionGate(2);
    const first = await gate.acquire('mx.a');
    await gate.acquire('mx.a');
    const order: string[] = [];
    const third = gate.acquire('mx.a').then((release) => {
      order.push('third');
      return release;
    });
    const fourth = gate.acquire('mx.a').then(() => order.push('fourth'));
    const other = await gate.acquire('mx.b');
    expect(order).toEqual([]);
    first();
    first();
    (await third)();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    expect(gate.waits).toBeGreaterThanOrEqual(2);
    other();
  });

  it('gives up when the deadline passes while waiting', async () => {
    const gate = new MemorySessionGate(1);
    await gate.acquire('mx.a');
    const controller = new AbortController();
    const waiting = gate.acquire('mx.a', controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(GateAbortedError);
  });
});
