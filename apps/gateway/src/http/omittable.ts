import { ValidateIf, type ValidationOptions } from 'class-validator';

/**
 * An optional body field: left out, it is not validated; sent, even as `null`, it is. class-validator's
 * IsOptional also skips `null`, which then reached the database as a not-null violation (a 500).
 */
export const IsOmittable = (options?: ValidationOptions): PropertyDecorator =>
  ValidateIf((_object, value) => value !== undefined, options);
