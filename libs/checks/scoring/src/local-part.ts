import { isRoleLocalPart } from '@mailguard/email';
import { FIRST_NAMES, hasMisspeltName, readsAsNames, SURNAMES, unusualLetterPairs, type Learned } from './names';

/**
 * What a local part says by itself, whatever its domain: how much it looks like a person's name,
 * and the flaws that mark it as made up. The weights are in catch-all-confidence.ts.
 */
export type NameShape = 'first_last' | 'two_part' | 'short';
export type Flaw = 'junk_word' | 'random_looking' | 'misspelt_name' | 'long_unstructured';

/** first.last-like with a known given name; two alphabetic parts; or an initial with a name, a given name alone, names joined. */
export function nameShape(local: string, learned?: Learned): NameShape | null {
  const parts = local.split(/[._-]/).filter(Boolean);
  const alpha = parts.every((part) => /^[a-z]+$/.test(part));
  if (parts.length === 2 && alpha) {
    const [first, last] = parts;
    if (FIRST_NAMES.has(first) && last.length >= 2) return 'first_last';
    if (first.length === 1 && last.length >= 2) return 'short';
    if (first.length >= 2 && first.length <= 15 && last.length >= 2 && last.length <= 20) return 'two_part';
  }
  if (parts.length === 1 && alpha) {
    const [word] = parts;
    // A first name alone, or names with an initial (jsmith, smithj, johns) or joined (johnsmith).
    if (FIRST_NAMES.has(word) || readsAsNames(word, 1, learned)) return 'short';
    // firstlast, firstl: a known first name followed by a surname or an initial.
    for (let cut = 3; cut < word.length; cut++)
      if (FIRST_NAMES.has(word.slice(0, cut)) && word.length - cut <= 12) return 'short';
  }
  return null;
}

const JUNK =
  /^(test|testing|tester|asdf|qwert|qwerty|zxcv|abc|abcd|xyz|foo|foobar|bar|fake|spam|none|null|nobody|noone|example|sample|temp|dummy|user|demo)\d*$|asdf|sdfsdf|qwert|zxcv|(.)\2\2/;

function looksRandom(local: string): boolean {
  const letters = local.replace(/[^a-z]/g, '');
  const digits = local.replace(/[^0-9]/g, '').length;
  if (local.length >= 6 && digits / local.length > 0.3) return true;
  if (/[bcdfghjklmnpqrstvwxz]{5,}/.test(local)) return true;
  if (/^[0-9a-f]{8,}$/.test(local) && digits > 0) return true;
  // People put numbers after a name (jsmith85), not inside or before a run of letters (mm3aak0, 7rkpkk),
  // nor after a short word that is no name (me58, mail8): a handle, not a staff address.
  if (/[a-z][0-9]+[a-z]/.test(local) || /^[0-9]+[a-z]{3,}/.test(local)) return true;
  const handle = /^([a-z]{1,4})[0-9]+$/.exec(local);
  if (handle && !FIRST_NAMES.has(handle[1]) && !SURNAMES.has(handle[1])) return true;
  // Letter pairs no name has (xq, jpf, wzr) read as keyboard noise or a generated string…
  const { unusual, pairs } = unusualLetterPairs(local);
  if (unusual >= 2 && unusual / pairs >= 0.3) return true;
  // …and so do few vowels in a long run of letters.
  const vowels = letters.replace(/[^aeiouy]/g, '').length;
  return letters.length >= 8 && vowels / letters.length < 0.2;
}

/**
 * The marks of a made-up address: junk words, random strings, a misspelt name (of the lists' names
 * or of `learned` ones), a long run without separators.
 */
export function localPartFlaws(local: string, learned?: Learned): Flaw[] {
  const name = nameShape(local, learned) !== null;
  const junk = JUNK.test(local);
  // A role word (ftp, system, mail) is spelt as it is: neither noise nor a name misspelt.
  const word = isRoleLocalPart(local);
  const flaws: Flaw[] = [];
  if (junk) flaws.push('junk_word');
  if (!name && !junk && !word && looksRandom(local)) flaws.push('random_looking');
  if (!word && hasMisspeltName(local, learned)) flaws.push('misspelt_name');
  if (!name && local.length > 20 && !/[._-]/.test(local)) flaws.push('long_unstructured');
  return flaws;
}
