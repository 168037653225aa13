import type { ValidationError } from 'class-validator';

/** Constraints that judge a value's type or presence: when one fails, the others' messages only repeat it. */
const TYPE_CONSTRAINTS = /^is(Defined|Array|String|Int|Number|Boolean|Object|Enum|In|Email|Url|Uuid)$/;

/**
 * The 400's message for a body or query that fails its DTO: one sentence per field, the missing or
 * mistyped ones first — "emails is required", not the four rules an absent array breaks.
 */
export function validationMessage(errors: ValidationError[], parent = ''): string {
  const sentences: Array<{ missing: boolean; text: string }> = [];
  const visit = (error: ValidationError, path: string) => {
    const field = path ? `${path}.${error.property}` : error.property;
    const constraints = Object.entries(error.constraints ?? {});
    if (constraints.length > 0) {
      const missing = error.value === undefined;
      const typed = constraints.find(([name]) => TYPE_CONSTRAINTS.test(name));
      const text = missing ? `${field} is required` : (typed ?? constraints[0])[1];
      sentences.push({ missing, text });
    }
    for (const child of error.children ?? []) visit(child, field);
  };
  for (const error of errors) visit(error, parent);
  if (sentences.length === 0) return 'The request is invalid';
  return sentences
    .sort((a, b) => Number(b.missing) - Number(a.missing))
    .map((sentence) => sentence.text)
    .join('; ');
}
