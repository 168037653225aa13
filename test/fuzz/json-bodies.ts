import type { FuzzCase, Surface } from './generators';

/**
 * Every JSON body the gateway reads, valid, with the fields it cannot do without (POST /v1/lists
 * takes multipart only). The fuzz's null family and the e2e tables send each field of each body
 * as null, as another type, and left out: a 400 {error, code: bad_request} every time, but for an
 * optional field left out.
 */
export interface JsonBody {
  surface: Surface;
  method: string;
  /** `:id` stands for a key of the caller's account. */
  path: string;
  auth: FuzzCase['auth'];
  valid: Record<string, unknown>;
  required: string[];
}

export const JSON_BODIES: JsonBody[] = [
  {
    surface: 'batch',
    method: 'POST',
    path: '/v1/email-validation/batch',
    auth: 'secret',
    valid: { emails: ['jane@acme.test'] },
    required: ['emails'],
  },
  {
    surface: 'feedback',
    method: 'POST',
    path: '/v1/email-validation/feedback',
    auth: 'secret',
    valid: { email: 'jane@acme.test', outcome: 'delivered' },
    required: ['email', 'outcome'],
  },
  {
    surface: 'widget-keyless',
    method: 'POST',
    path: '/v1/widget/verify',
    auth: 'none',
    valid: { email: 'jane@acme.test', deviceId: 'null-family-device' },
    required: ['email'],
  },
  {
    surface: 'widget-settings',
    method: 'PUT',
    path: '/v1/widget/settings',
    auth: 'settings',
    valid: {
      allowedOrigins: ['https://shop.example'],
      defaults: { blockDisposable: true, blockFree: false, lang: 'en', messages: { invalid: 'Not this one' } },
    },
    required: [],
  },
  {
    surface: 'signup',
    method: 'POST',
    path: '/v1/accounts',
    auth: 'none',
    valid: { email: 'null.family@catchall.test', name: 'Null Family' },
    required: ['email'],
  },
  {
    surface: 'keys',
    method: 'POST',
    path: '/v1/keys',
    auth: 'secret',
    valid: { name: 'null family', scope: 'verify', type: 'secret' },
    required: ['name', 'scope'],
  },
  {
    surface: 'keys',
    method: 'PATCH',
    path: '/v1/keys/:id',
    auth: 'secret',
    valid: { name: 'null family', scope: 'verify' },
    required: [],
  },
];

/** Valid arguments of each MCP tool that takes any (libs/product/mcp/src/tools.ts), every argument given. */
export const TOOL_ARGUMENTS: Record<string, Record<string, unknown>> = {
  verify_email: { email: 'jane@acme.test' },
  verify_emails: { emails: ['jane@acme.test'] },
  find_email: { firstName: 'Jane', lastName: 'Doe', fullName: 'Jane Doe', domain: 'acme.test' },
  domain_insight: { domain: 'acme.test' },
  report_outcome: { email: 'jane@acme.test', outcome: 'delivered' },
  create_list: {
    csv: 'email\njane@acme.test\n',
    name: 'null family',
    emailColumn: 'email',
    webhookUrl: 'https://hooks.example.com/mailguard',
  },
  list_status: { id: 'lst_nullfamily' },
  list_results: { id: 'lst_nullfamily', status: 'valid', page: 1 },
};

/** Every field of a body with its valid value, nested ones included (`defaults.lang`, `emails.0`). */
export function fields(value: object, prefix: string[] = []): Array<{ path: string[]; value: unknown }> {
  return Object.entries(value).flatMap(([key, child]) => [
    { path: [...prefix, key], value: child as unknown },
    ...(typeof child === 'object' && child !== null ? fields(child, [...prefix, key]) : []),
  ]);
}

/** The body with the field at `path` set to `value`, or left out when `value` is undefined. */
export function withField(body: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  const parent = path.slice(0, -1).reduce<Record<string, unknown>>((node, key) => node[key] as never, copy);
  const last = path[path.length - 1];
  if (value !== undefined) parent[last] = value;
  else if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete parent[last];
  return copy;
}

/** A value of another JSON type than `value`. */
export function wrongType(value: unknown): unknown {
  return typeof value === 'string' ? 42 : 'forty-two';
}
