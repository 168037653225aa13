import { Guard, type GuardOptions } from './guard';

/** The global of docs/widget.md#methods: `Guard.init`, `reattach`, `validate`, `destroy`. */
const guard = new Guard();
const api = {
  init: (options?: GuardOptions) => guard.init(options),
  reattach: () => guard.reattach(),
  validate: (email: string) => guard.validate(email),
  destroy: () => guard.destroy(),
};

(globalThis as unknown as { Guard: typeof api }).Guard = api;
