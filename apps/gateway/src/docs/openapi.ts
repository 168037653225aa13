/**
 * The OpenAPI 3 document of the public API (API.md §4): all 22 endpoints, generated from one table
 * so that the document and the contract are read side by side.
 */

import { SUB_STATUSES } from '@mailguard/verdict';

type Scope = 'full' | 'verify' | 'lists' | 'read-only';

interface Endpoint {
  number: number;
  module: 'validation' | 'finder' | 'widget' | 'keys' | 'credits';
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  /** null: no key needed. */
  scopes: Scope[] | null;
  success: { status: number; schema?: string; description: string };
  errors: number[];
  body?: string;
  params?: Array<{ name: string; in: 'path' | 'query'; required?: boolean; description: string }>;
}

const PAGE = [
  { name: 'page', in: 'query' as const, description: 'Page number, from 1' },
  { name: 'limit', in: 'query' as const, description: 'Page size, 1–100 (default 20)' },
];

const ENDPOINTS: Endpoint[] = [
  { number: 1, module: 'validation', method: 'get', path: '/email-validation/{email}', summary: 'Verify one address', scopes: ['full', 'verify'], success: { status: 200, schema: 'VerificationResult', description: 'The verification result' }, errors: [400, 401, 402, 403, 429, 503], params: [{ name: 'email', in: 'path', required: true, description: 'The address, URL-encoded (up to 1,024 characters)' }] },
  { number: 2, module: 'validation', method: 'post', path: '/email-validation/batch', summary: 'Verify up to 100 addresses', scopes: ['full', 'verify'], body: 'BatchRequest', success: { status: 200, schema: 'BatchResponse', description: 'Results in input order' }, errors: [400, 401, 402, 403, 429, 503] },
  { number: 3, module: 'validation', method: 'post', path: '/email-validation/feedback', summary: 'Report whether mail to a checked address was delivered', scopes: ['full', 'verify'], body: 'Feedback', success: { status: 202, description: '{ accepted: true }' }, errors: [400, 401, 403, 429] },
  { number: 4, module: 'validation', method: 'post', path: '/lists', summary: 'Upload a CSV list (multipart: file, emailColumn, name, webhookUrl)', scopes: ['full', 'lists'], success: { status: 202, schema: 'List', description: 'The list, queued' }, errors: [400, 401, 402, 403, 413, 429] },
  { number: 5, module: 'validation', method: 'get', path: '/lists', summary: 'Lists of the account', scopes: ['full', 'lists', 'read-only'], params: PAGE, success: { status: 200, description: '{ data: [List], page, limit, total }' }, errors: [401, 403, 429] },
  { number: 6, module: 'validation', method: 'get', path: '/lists/{id}', summary: 'One list and its progress', scopes: ['full', 'lists', 'read-only'], params: [{ name: 'id', in: 'path', required: true, description: 'List id (lst_…)' }], success: { status: 200, schema: 'List', description: 'The list' }, errors: [401, 403, 404, 429] },
  { number: 7, module: 'validation', method: 'get', path: '/lists/{id}/results', summary: 'Results of a list as JSON pages or CSV', scopes: ['full', 'lists', 'read-only'], params: [{ name: 'id', in: 'path', required: true, description: 'List id' }, { name: 'format', in: 'query', description: 'json or csv' }, { name: 'status', in: 'query', description: 'valid, risky, invalid or unknown' }, ...PAGE], success: { status: 200, description: 'JSON page of { row, email, result } or CSV' }, errors: [400, 401, 403, 404, 429] },
  { number: 8, module: 'validation', method: 'delete', path: '/lists/{id}', summary: 'Cancel a running list or delete a finished one', scopes: ['full', 'lists'], params: [{ name: 'id', in: 'path', required: true, description: 'List id' }], success: { status: 200, schema: 'List', description: 'Cancelled (204 when a finished list was deleted)' }, errors: [401, 403, 404, 429] },
  { number: 9, module: 'finder', method: 'get', path: '/email-finder', summary: "Find a person's professional address", scopes: ['full', 'verify'], params: [{ name: 'firstName', in: 'query', description: 'Given name' }, { name: 'lastName', in: 'query', description: 'Family name' }, { name: 'fullName', in: 'query', description: 'Instead of first and last name' }, { name: 'domain', in: 'query', required: true, description: 'Company domain or URL' }], success: { status: 200, description: '{ email, confidence, pattern, result, alternatives }' }, errors: [400, 401, 402, 403, 429] },
  { number: 10, module: 'finder', method: 'get', path: '/email-finder/domain/{domain}', summary: 'What is known about a domain', scopes: ['full', 'verify'], params: [{ name: 'domain', in: 'path', required: true, description: 'Domain' }], success: { status: 200, description: '{ domain, catchAll, pattern, provider, mx, confidence, addresses }' }, errors: [400, 401, 403, 429] },
  { number: 11, module: 'widget', method: 'get', path: '/widget/widget.js', summary: 'The Guard form widget (JavaScript)', scopes: null, success: { status: 200, description: 'application/javascript' }, errors: [] },
  { number: 12, module: 'widget', method: 'post', path: '/widget/verify', summary: 'Verify from the widget: the public tier without a key; with a widget key a paid check, answered with X-Guard-Token (the signed verdict) and X-Guard-Settings (the account defaults, base64url JSON)', scopes: null, body: 'WidgetVerify', success: { status: 200, schema: 'VerificationResult', description: 'The verification result' }, errors: [400, 401, 402, 403, 429] },
  { number: 13, module: 'widget', method: 'get', path: '/widget/settings', summary: 'Widget settings', scopes: ['full', 'read-only'], success: { status: 200, schema: 'WidgetSettings', description: '{ allowedOrigins, defaults }' }, errors: [401, 403, 429] },
  { number: 14, module: 'widget', method: 'put', path: '/widget/settings', summary: 'Change widget settings', scopes: ['full'], body: 'WidgetSettings', success: { status: 200, description: 'The settings' }, errors: [400, 401, 403, 429] },
  { number: 15, module: 'keys', method: 'post', path: '/accounts', summary: 'Sign up: an account, its first full key and its webhook secret (each shown once)', scopes: null, body: 'Signup', success: { status: 201, schema: 'SignupResponse', description: 'The account' }, errors: [400, 409, 429] },
  { number: 16, module: 'keys', method: 'get', path: '/keys', summary: 'Keys of the account', scopes: ['full', 'read-only'], success: { status: 200, description: '{ data: [KeyRecord] }' }, errors: [401, 403, 429] },
  { number: 17, module: 'keys', method: 'post', path: '/keys', summary: 'Create a key (shown in full once)', scopes: ['full'], body: 'CreateKey', success: { status: 201, schema: 'NewKey', description: 'The key record and the key' }, errors: [400, 401, 403, 429] },
  { number: 18, module: 'keys', method: 'patch', path: '/keys/{id}', summary: "Rename a key or change its scope", scopes: ['full'], body: 'UpdateKey', params: [{ name: 'id', in: 'path', required: true, description: 'Key id (key_…)' }], success: { status: 200, schema: 'KeyRecord', description: 'The key record' }, errors: [400, 401, 403, 404, 429] },
  { number: 19, module: 'keys', method: 'delete', path: '/keys/{id}', summary: 'Revoke a key', scopes: ['full'], params: [{ name: 'id', in: 'path', required: true, description: 'Key id' }], success: { status: 204, description: 'Revoked; the key answers 401 from then on' }, errors: [401, 403, 404, 429] },
  { number: 20, module: 'credits', method: 'get', path: '/credits', summary: 'Credit balance', scopes: ['full', 'verify', 'lists', 'read-only'], success: { status: 200, schema: 'Credits', description: 'Balance and held credits' }, errors: [401, 429] },
  { number: 21, module: 'credits', method: 'get', path: '/credits/usage', summary: 'Checks and credits per UTC day and kind', scopes: ['full', 'verify', 'lists', 'read-only'], params: [{ name: 'from', in: 'query', description: 'First day (YYYY-MM-DD, UTC, inclusive)' }, { name: 'to', in: 'query', description: 'Last day (inclusive)' }], success: { status: 200, description: '{ data: [{ date, kind, checks, credits }] }' }, errors: [400, 401, 429] },
  { number: 22, module: 'credits', method: 'get', path: '/credits/transactions', summary: 'The credit ledger', scopes: ['full', 'verify', 'lists', 'read-only'], params: PAGE, success: { status: 200, description: '{ data: [{ id, delta, reason, ref, createdAt, balanceAfter }], page, limit, total }' }, errors: [401, 429] },
];

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'API key missing, unknown or revoked',
  402: 'Credits insufficient; nothing was charged',
  403: "Key valid but outside its scope (or a widget key outside the widget)",
  404: 'No such resource (or one of another account)',
  409: 'An account with this email exists',
  413: 'Upload too large',
  429: 'Rate limit (or widget public tier) exhausted; see Retry-After',
  503: 'Postgres or Redis unavailable; retry shortly',
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const bool = { type: 'boolean' };
const str = { type: 'string' };
const int = { type: 'integer' };
const nullable = (schema: object) => ({ ...schema, nullable: true });

const SCHEMAS = {
  Error: { type: 'object', required: ['error'], properties: { error: str, code: str } },
  VerificationResult: {
    type: 'object',
    properties: {
      email: str,
      domain: str,
      status: { type: 'string', enum: ['valid', 'risky', 'invalid'] },
      confidence: nullable({ type: 'integer', minimum: 0, maximum: 100 }),
      score: { type: 'integer', minimum: 0, maximum: 100 },
      reason: { type: 'string', enum: ['accepted_email', 'rejected_email', 'invalid_syntax', 'invalid_domain', 'no_mx', 'disabled', 'catch_all', 'disposable', 'full_inbox', 'role', 'unknown'] },
      subStatus: nullable({ type: 'string', enum: [...SUB_STATUSES], description: 'A finer cause inside reason (API.md §1.3)' }),
      isValid: bool,
      reachable: { type: 'string', enum: ['safe', 'risky', 'invalid', 'unknown'] },
      syntax: bool,
      smtp: { type: 'object', properties: { hostExists: bool, deliverable: bool, catchAll: bool, fullInbox: bool, disabled: bool } },
      isFree: bool,
      isRole: bool,
      isDisposable: bool,
      hasGravatar: bool,
      suggestion: nullable(str),
      verifiedAt: { type: 'string', format: 'date-time' },
      cached: bool,
      checks: { type: 'object', description: 'The nine checks, each with its own verdict (API.md §1)' },
    },
  },
  BatchRequest: { type: 'object', required: ['emails'], properties: { emails: { type: 'array', items: str, minItems: 1, maxItems: 100 } } },
  BatchResponse: { type: 'object', properties: { results: { type: 'array', items: ref('VerificationResult') } } },
  Feedback: { type: 'object', required: ['email', 'outcome'], properties: { email: str, outcome: { type: 'string', enum: ['delivered', 'bounced'] } } },
  List: { type: 'object', properties: { id: str, name: str, status: { type: 'string', enum: ['queued', 'processing', 'completed', 'failed', 'cancelled'] }, total: int, processed: int, duplicates: int, percent: int, etaSeconds: nullable(int), counts: { type: 'object' }, creditsHeld: int, creditsCharged: int, createdAt: str, startedAt: nullable(str), completedAt: nullable(str), error: nullable(str) } },
  WidgetVerify: { type: 'object', required: ['email'], properties: { email: str, deviceId: str } },
  WidgetSettings: {
    type: 'object',
    properties: {
      allowedOrigins: { type: 'array', items: str },
      defaults: { type: 'object', properties: { blockDisposable: { type: 'boolean' }, blockFree: { type: 'boolean' }, lang: { type: 'string', enum: ['en', 'it', 'es', 'fr', 'de'] }, messages: { type: 'object', additionalProperties: str } } },
    },
  },
  Signup: { type: 'object', required: ['email'], properties: { email: str, name: str } },
  SignupResponse: { type: 'object', properties: { account: { type: 'object', properties: { id: str, email: str, credits: int } }, apiKey: str, webhookSecret: str } },
  KeyRecord: { type: 'object', properties: { id: str, name: str, prefix: str, scope: { type: 'string', enum: ['full', 'verify', 'lists', 'read-only'] }, type: { type: 'string', enum: ['secret', 'widget'] }, createdAt: str, lastUsedAt: nullable(str), revokedAt: nullable(str) } },
  NewKey: { allOf: [ref('KeyRecord'), { type: 'object', properties: { key: str } }] },
  CreateKey: { type: 'object', required: ['name', 'scope'], properties: { name: str, scope: str, type: { type: 'string', enum: ['secret', 'widget'] } } },
  UpdateKey: { type: 'object', properties: { name: str, scope: str } },
  Credits: { type: 'object', properties: { balance: int, held: int, currency: { type: 'string', enum: ['credits'] } } },
};

export function openApiDocument(serverUrl = '/v1'): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of ENDPOINTS) {
    const responses: Record<string, unknown> = {
      [endpoint.success.status]: {
        description: endpoint.success.description,
        ...(endpoint.success.schema ? { content: { 'application/json': { schema: ref(endpoint.success.schema) } } } : {}),
      },
    };
    for (const status of endpoint.errors) responses[status] = { description: ERROR_TEXT[status], content: { 'application/json': { schema: ref('Error') } } };
    paths[endpoint.path] ??= {};
    paths[endpoint.path][endpoint.method] = {
      operationId: `endpoint${endpoint.number}`,
      tags: [endpoint.module],
      summary: endpoint.summary,
      description: `API.md §4 #${endpoint.number}. Scopes: ${endpoint.scopes ? endpoint.scopes.join(', ') : 'none (no key)'}.`,
      security: endpoint.scopes ? [{ apiKey: [] }] : [],
      parameters: (endpoint.params ?? []).map((param) => ({ name: param.name, in: param.in, required: param.required ?? false, description: param.description, schema: str })),
      ...(endpoint.body ? { requestBody: { required: true, content: { 'application/json': { schema: ref(endpoint.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'MailGuard API', version: '1.0.0', description: 'Email verification: single and batch checks, lists, finder, widget, keys and credits.' },
    servers: [{ url: serverUrl }],
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } }, schemas: SCHEMAS },
    paths,
  };
}

export const ENDPOINT_COUNT = ENDPOINTS.length;
