import { Module } from '@nestjs/common';
import { Metrics } from '@mailguard/metrics';
import { PROCESS_NAME } from './tokens';

/** The process's metrics registry, labelled with its name. */
@Module({
  providers: [{ provide: Metrics, inject: [PROCESS_NAME], useFactory: (name: string) => new Metrics(name) }],
  exports: [Metrics],
})
export class MetricsModule {}
