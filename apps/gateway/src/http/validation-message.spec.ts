import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { BatchDto } from '../validation/validation.dto';
import { validationMessage } from './validation-message';

/** The 400 messages of real DTOs, as the gateway's ValidationPipe builds them. */
async function messageFor(body: unknown): Promise<string> {
  const errors = await validate(plainToInstance(BatchDto, body) as object, { whitelist: true });
  return validationMessage(errors);
}

describe('validationMessage', () => {
  it('says in one sentence that a missing field is required', async () => {
    expect(await messageFor({})).toBe('emails is required');
    expect(await messageFor({ email: 'jane@example.com' })).toBe('emails is required');
  });

  it('names a mistyped field by its type, not by every rule it breaks', async () => {
    expect(await messageFor({ emails: 'jane@example.com' })).toBe('emails must be an array of addresses');
    expect(await messageFor({ emails: [42] })).toBe('every entry of emails must be a string');
  });

  it('keeps the rule that failed when the type is right', async () => {
    expect(await messageFor({ emails: [] })).toBe('emails must hold at least one address');
  });

  it('puts missing fields first and names nested ones by their path', () => {
    const message = validationMessage([
      { property: 'scope', value: 'x', constraints: { isIn: 'scope must be one of full, lists' }, children: [] },
      {
        property: 'defaults',
        value: {},
        children: [{ property: 'language', value: undefined, constraints: { isString: 'x' }, children: [] }],
      },
    ]);
    expect(message).toBe('defaults.language is required; scope must be one of full, lists');
  });
});
