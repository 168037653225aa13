/**
 * What a service process must never print (its logs are read by operators, shipped, kept): a whole
 * address (a masked one reads `h:<8 hex>@domain`), an API key, a webhook secret, a bearer or basic
 * credential. Written here on its own, not taken from the logger's rules, so a rule the logger lost
 * is caught.
 */
const LEAKS: Array<[string, RegExp]> = [
  ['address', /(?:h:[0-9a-f]{8}|[A-Za-z0-9._%+-]+)(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/gi],
  ['API key', /mg_(?:live|widget)_[A-Za-z0-9]{32}/g],
  ['webhook secret', /whsec_[A-Za-z0-9]{32}/g],
  ['credential', /\b(?:Bearer|Basic) (?!\[redacted\])\S+/g],
];

/** Every leak in a process's output, named by its kind. */
export function leaksIn(output: string): string[] {
  return LEAKS.flatMap(([kind, pattern]) =>
    [...output.matchAll(pattern)]
      .map(([match]) => match)
      .filter((match) => kind !== 'address' || !match.startsWith('h:'))
      .map((match) => `${kind}: ${match}`),
  );
}
