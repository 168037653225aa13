import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { AppError, assertPlainText, jsonDepth, MAX_JSON_DEPTH } from '@mailguard/errors';

/** Body fields that hold addresses to judge: a malformed one gets a verdict (invalid_syntax), not a 400. */
const ADDRESS_FIELDS = new Set(['email', 'emails']);
/** The path parameter of a single check, for the same reason. */
const ADDRESS_PARAMS = new Set(['email']);

/**
 * The input policy at the edge, before any DTO class is built: a JSON body nests at most
 * MAX_JSON_DEPTH deep (class-transformer recurses), and every string of every body, query and path
 * parameter is plain text (libs/foundation/errors/src/input-policy.ts) — but for the addresses to check.
 */
@Injectable()
export class InputPolicyPipe implements PipeTransform {
  transform(value: unknown, { type, data }: ArgumentMetadata): unknown {
    if (type === 'body') {
      if (jsonDepth(value) > MAX_JSON_DEPTH)
        throw new AppError('bad_request', `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
      if (typeof value === 'object' && value !== null) assertPlainFields(value, ADDRESS_FIELDS);
    } else if ((type === 'query' || type === 'param') && !(type === 'param' && data && ADDRESS_PARAMS.has(data))) {
      assertStrings(data ?? type, value);
    }
    return value;
  }
}

/** Every string of an object's fields is plain text, but for the fields named in `except`. */
export function assertPlainFields(value: object, except: ReadonlySet<string>): void {
  for (const [field, child] of Object.entries(value)) if (!except.has(field)) assertStrings(field, child);
}

function assertStrings(field: string, value: unknown): void {
  const stack: Array<[string, unknown]> = [[field, value]];
  while (stack.length > 0) {
    const [name, node] = stack.pop() as [string, unknown];
    if (typeof node === 'string') assertPlainText(name, node);
    else if (typeof node === 'object' && node !== null)
      for (const [key, child] of Object.entries(node))
        stack.push([Array.isArray(node) ? name : `${name}.${key}`, child]);
  }
}
