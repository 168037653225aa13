import { GateAbortedError, MemorySessionGate } from './session-gate';

const far = () => ({ until: Date.now() + 60_000 });

describe('MemorySessionGate', () => {
  it('holds callers beyond the limit until a slot is given back, in order', async () => {
    const gate = new MemorySessionGate(2);
    const waits: number[] = [];
    gate.observe({ waited: (_host, ms) => waits.push(ms) });
    const first = await gate.acquire('mx.a', far());
    const second = await gate.acquire('mx.a', far());
    const order: string[] = [];
    const third = gate.acquire('mx.a', far()).then((lease) => {
      order.push('third');
      return lease;
    });
    const fourth = gate.acquire('mx.a', far()).then((lease) => {
      order.push('fourth');
      return lease;
    });
    const other = await gate.acquire('mx.b', far());
    expect(order).toEqual([]);
    expect(gate.snapshot().hosts).toEqual(expect.arrayContaining([{ host: 'mx.a', slotsHeld: 2, sessionsOpen: 0 }]));
    first.release();
    // A second release of the same lease gives back nothing more.
    first.release();
    (await third).release();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    expect(waits).toHaveLength(5);
    for (const lease of [second, await fourth, other]) lease.release();
    await gate.leases.idle();
    expect(gate.snapshot().hosts).toEqual([]);
  });

  it('gives up when the deadline passes while waiting, and forgets the waiter', async () => {
    const gate = new MemorySessionGate(1);
    const held = await gate.acquire('mx.a', far());
    const controller = new AbortController();
    const waiting = gate.acquire('mx.a', { ...far(), signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(GateAbortedError);
    held.release();
    const next = await gate.acquire('mx.a', far());
    next.release();
  });

  it('counts open sessions apart from slots held', async () => {
    const gate = new MemorySessionGate(3);
    const lease = await gate.acquire('mx.a', far());
    await gate.acquire('mx.a', far()).then((other) => other.release());
    lease.connected();
    expect(gate.snapshot().hosts).toEqual([{ host: 'mx.a', slotsHeld: 1, sessionsOpen: 1 }]);
    lease.release();
    lease.connected();
    expect(gate.snapshot().hosts).toEqual([]);
  });

  it('knows the cool-downs in force and forgets them once over', async () => {
    jest.useFakeTimers();
    try {
      const gate = new MemorySessionGate(1);
      await gate.coolDown('mx.a', 1_000, 'busy');
      expect(gate.snapshot().coolDowns).toEqual([{ host: 'mx.a', reason: 'busy' }]);
      await expect(gate.acquire('mx.a', far())).rejects.toMatchObject({ reason: 'busy' });
      jest.advanceTimersByTime(1_001);
      expect(gate.snapshot().coolDowns).toEqual([]);
      (await gate.acquire('mx.a', far())).release();
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('the wall clock jumping', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('neither stretches nor ends a cool-down: it lasts what it was set for', async () => {
    const gate = new MemorySessionGate(1);
    await gate.coolDown('mx.back', 30_000, 'busy');
    await gate.coolDown('mx.ahead', 30_000, 'busy');
    jest.setSystemTime(Date.now() - 3_600_000);
    jest.advanceTimersByTime(30_001);
    expect(gate.snapshot().coolDowns).toEqual([]);
    await gate.coolDown('mx.ahead', 30_000, 'busy');
    jest.setSystemTime(Date.now() + 3_600_000);
    expect(gate.snapshot().coolDowns).toEqual([{ host: 'mx.ahead', reason: 'busy' }]);
  });
});

describe('a forgotten lease', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs out a little after its session deadline, frees the slot for a waiter and is reported', async () => {
    const gate = new MemorySessionGate(1, 500);
    const expired: string[] = [];
    gate.observe({ expired: (host) => expired.push(host) });
    await gate.acquire('mx.a', { until: Date.now() + 1_000 });
    const waiter = gate.acquire('mx.a', far());
    jest.advanceTimersByTime(1_499);
    expect(expired).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(expired).toEqual(['mx.a']);
    const next = await waiter;
    expect(gate.snapshot().hosts).toEqual([{ host: 'mx.a', slotsHeld: 1, sessionsOpen: 0 }]);
    next.release();
  });

  it('runs out from its new end once extended (a session kept for the next probe), and not before', async () => {
    const gate = new MemorySessionGate(1, 500);
    const expired: string[] = [];
    gate.observe({ expired: (host) => expired.push(host) });
    const lease = await gate.acquire('mx.a', { until: Date.now() + 1_000 });
    jest.advanceTimersByTime(900);
    lease.extend(Date.now() + 5_000);
    jest.advanceTimersByTime(5_499);
    expect(expired).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(expired).toEqual(['mx.a']);
    // A lease already given back is not extended into a second life.
    lease.extend(Date.now() + 5_000);
    jest.advanceTimersByTime(10_000);
    expect(expired).toEqual(['mx.a']);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('is not reported when it was given back in time', async () => {
    const gate = new MemorySessionGate(1, 500);
    const expired: string[] = [];
    gate.observe({ expired: (host) => expired.push(host) });
    const lease = await gate.acquire('mx.a', { until: Date.now() + 1_000 });
    lease.release();
    jest.advanceTimersByTime(10_000);
    expect(expired).toEqual([]);
    expect(jest.getTimerCount()).toBe(0);
  });
});
