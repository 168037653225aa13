export { ApiKeys, base62, generateKey, hashKey, KEY_PREFIX, newId, SCOPES, type Authenticated } from './api-keys';
export { RedisKeyChanges, type KeyChanges } from './key-changes';
