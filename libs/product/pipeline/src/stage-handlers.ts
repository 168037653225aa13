import type { Type } from '@nestjs/common';
import { ConcludeGroupHandler, FeedHandler, WebhookHandler } from '@mailguard/lists';
import type { JobName, StageHandler } from '@mailguard/queue';
import { ConcludeHandler, InspectHandler, ProbeHandler } from './stages';

/**
 * The handler of every job, the one table of both drivers: the gateway in process registers them
 * all, a worker those of its queue (handlersOf). JobHandlersModule finds them at boot.
 */
export const STAGE_HANDLERS: Array<Type<StageHandler<JobName>>> = [
  InspectHandler,
  ProbeHandler,
  ConcludeHandler,
  FeedHandler,
  ConcludeGroupHandler,
  WebhookHandler,
];
