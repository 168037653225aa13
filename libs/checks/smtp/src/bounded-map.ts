/**
 * What a prober remembers per MX host, at most `maxHosts` of them: past that the host heard from
 * longest ago goes (a Map keeps insertion order, and `set` moves a host to the end).
 */
export class BoundedMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly maxHosts: number) {}

  get(host: string): V | undefined {
    return this.entries.get(host);
  }

  set(host: string, value: V): void {
    this.entries.delete(host);
    if (this.entries.size >= this.maxHosts) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(host, value);
  }

  delete(host: string): void {
    this.entries.delete(host);
  }

  get size(): number {
    return this.entries.size;
  }
}
