import type { Redis } from 'ioredis';

/**
 * Tells every gateway that a key changed (revoked or re-scoped), or every key of an account (its
 * status or balance changed by an operator: the message is `account:<id>`, see ApiKeys), so that
 * none keeps serving it from its in-process cache. Without Redis there is one gateway and nothing to tell.
 */
export interface KeyChanges {
  /** Resolves once the change is on its way to every subscribed gateway. */
  publish(hash: string): Promise<void>;
  /** `onChange(hash)` per changed key; `onGap()` when messages may have been missed (a reconnect). */
  subscribe(onChange: (hash: string) => void, onGap: () => void): Promise<void>;
  close(): void;
}

/** Redis pub/sub on its own connection (a subscribed connection can run no other command). */
export class RedisKeyChanges implements KeyChanges {
  private subscriber: Redis | null = null;
  private readonly channel: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.channel = `${prefix}keys:changed`;
  }

  async publish(hash: string): Promise<void> {
    await this.redis.publish(this.channel, hash);
  }

  async subscribe(onChange: (hash: string) => void, onGap: () => void): Promise<void> {
    const subscriber = this.redis.duplicate({
      enableOfflineQueue: true,
      lazyConnect: false,
      maxRetriesPerRequest: null,
    });
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined);
    subscriber.on('message', (channel: string, hash: string) => {
      if (channel === this.channel) onChange(hash);
    });
    // ioredis resubscribes after a reconnect by itself, but what was published meanwhile is lost.
    subscriber.on('ready', onGap);
    // A Redis that is down at start must not stop the gateway: it subscribes when Redis is back.
    const subscribed = subscriber.subscribe(this.channel).then(
      () => undefined,
      () => undefined,
    );
    await Promise.race([subscribed, new Promise<void>((resolve) => setTimeout(resolve, 3_000).unref())]);
  }

  close(): void {
    this.subscriber?.disconnect();
  }
}
