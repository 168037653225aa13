export { APP_CONFIG } from '@mailguard/config';
export { CoreModule, type CoreOptions } from './core.module';
export { DatabaseModule } from './database.module';
export { buildEgressPool, buildEngine, buildGate, superviseGate } from './engine';
export { EngineModule } from './engine.module';
export { ProberModule, probesHere } from './prober.module';
export { StoresModule } from './stores.module';
export { WebhooksModule } from './webhooks.module';
export { EGRESS, ENGINE, GATE, LOGGER, PROBER, OUTBOUND, PROCESS_NAME, REDIS, RESULT_CACHE } from './tokens';
