import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { WebhookOutbox } from './webhook-outbox';

/**
 * Sends the outbox's due deliveries now and every `outbox.pollMs`, one round at a time (a round
 * still running when the timer fires is not doubled). `stop` clears the timer and waits for the
 * round in flight, so no attempt outlives the process's database connection.
 */
export function startWebhookSender(
  outbox: WebhookOutbox,
  onError: (error: unknown) => void,
): { stop(): Promise<void> } {
  let round: Promise<void> | null = null;
  const tick = () => {
    round ??= outbox
      .sendDue()
      .then(() => undefined, onError)
      .finally(() => (round = null));
  };
  tick();
  const timer = setInterval(tick, outbox.pollMs).unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await round;
    },
  };
}

/** The webhook sender of a process that runs the lists queue (list-workers, or the one process), start to shutdown. */
@Injectable()
export class WebhookSender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private sender: { stop(): Promise<void> } | null = null;

  constructor(private readonly outbox: WebhookOutbox) {}

  onApplicationBootstrap(): void {
    this.sender = startWebhookSender(this.outbox, (error) =>
      this.logger.warn(`could not send the due webhooks; trying again at the next poll: ${String(error)}`),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sender?.stop();
  }
}
