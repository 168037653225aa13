import { verify, type AccountDefaults } from './client';
import { BUILT_IN, LANGS, type BlockReason, type Lang, type MessageKind } from './messages';
import { addressKey, decide, localResult, type GuardStatus, type WidgetResult } from './status';
import { Decorations } from './ui';

/** `Guard.init` options: docs/widget.md#options, every one optional. */
export interface GuardOptions {
  apiKey?: string;
  apiUrl?: string;
  selector?: string;
  blockDisposable?: boolean;
  blockFree?: boolean;
  blockSubmit?: boolean;
  redHighlight?: boolean;
  showTooltip?: boolean;
  showIcon?: boolean;
  lang?: Lang;
  messages?: Partial<Record<MessageKind, string>>;
  onValid?: (event: { email: string; result: WidgetResult }) => void;
  onInvalid?: (event: { email: string; reason: BlockReason; result: WidgetResult }) => void;
  onWarning?: (event: { email: string; result: WidgetResult }) => void;
}

/** What `Guard.validate` resolves to (docs/widget.md). */
export interface GuardOutcome {
  email: string;
  status: GuardStatus;
  reason: string | null;
  result: WidgetResult | null;
}

type Lookup = { ok: true; result: WidgetResult; token: string | null } | { ok: false };

interface Field {
  input: HTMLInputElement;
  ui: Decorations;
  token: HTMLInputElement | null;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by every change: only the latest check's answer is shown. */
  seq: number;
  /** The trimmed value the shown status belongs to. */
  value: string | null;
  outcome: GuardOutcome | null;
  pending: Promise<GuardOutcome> | null;
  /** The last value and status reported to the callbacks, so a re-check does not report twice. */
  reported: string | null;
  off: () => void;
}

const DEBOUNCE_MS = 500;
/** How long a submit waits for a check still running before it lets the form through. */
const SUBMIT_WAIT_MS = 3_000;
const TOKEN_FIELD = 'guard_token';
const BLOCKED: GuardStatus[] = ['invalid', 'disposable', 'free'];

/** `{apiUrl}` defaults to where this script was loaded from (docs/widget.md), so it is read while it runs. */
const SCRIPT_SRC =
  typeof document === 'undefined'
    ? ''
    : ((document.currentScript as HTMLScriptElement | null)?.src ??
      document.querySelector<HTMLScriptElement>('script[src*="/widget/widget.js"]')?.src ??
      '');

function scriptBase(src: string): string {
  if (!src) return location.origin;
  const url = new URL(src, location.href);
  const path = url.pathname.replace(/\/v1\/widget\/widget\.js$/, '').replace(/\/+$/, '');
  return url.origin + path;
}

function isBlocked(status: GuardStatus | null): boolean {
  return status !== null && BLOCKED.includes(status);
}

export class Guard {
  private options: GuardOptions = {};
  private account: AccountDefaults = {};
  private readonly fields = new Map<HTMLInputElement, Field>();
  private readonly cache = new Map<string, Promise<Lookup>>();
  private live: HTMLElement | null = null;
  private resize: ResizeObserver | null = null;
  private releasing: HTMLFormElement | null = null;
  private active = false;
  private warned = false;

  init(options: GuardOptions = {}): void {
    if (this.active) this.destroy();
    this.options = { ...options };
    this.account = {};
    this.active = true;
    document.addEventListener('submit', this.onSubmit, true);
    window.addEventListener('resize', this.onResize);
    this.resize = typeof ResizeObserver === 'function' ? new ResizeObserver(this.onResize) : null;
    // Called from <head>, before the form exists: the inputs are looked for once the page is parsed.
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', this.onReady);
    else this.onReady();
  }

  private readonly onReady = (): void => {
    document.removeEventListener('DOMContentLoaded', this.onReady);
    if (!this.active) return;
    const live = document.createElement('div');
    live.setAttribute('aria-live', 'polite');
    live.setAttribute('role', 'status');
    live.setAttribute('data-guard-live', '');
    Object.assign(live.style, {
      position: 'absolute',
      width: '1px',
      height: '1px',
      overflow: 'hidden',
      clip: 'rect(0 0 0 0)',
      whiteSpace: 'nowrap',
    });
    document.body.appendChild(live);
    this.live = live;
    this.reattach();
  };

  /** Protects inputs added since the last scan and lets go of those removed from the page. */
  reattach(): void {
    if (!this.active) return;
    for (const field of this.fields.values()) if (!field.input.isConnected) this.detach(field);
    for (const element of document.querySelectorAll(this.options.selector ?? 'input[type="email"]')) {
      if (element instanceof HTMLInputElement && !this.fields.has(element)) this.attach(element);
    }
  }

  /** Checks an address by hand; the callbacks fire as for a typed one. */
  async validate(email: string): Promise<GuardOutcome> {
    const value = String(email ?? '').trim();
    const outcome = this.outcome(value, await this.lookup(value));
    this.report(outcome);
    return outcome;
  }

  destroy(): void {
    for (const field of this.fields.values()) this.detach(field);
    document.removeEventListener('submit', this.onSubmit, true);
    document.removeEventListener('DOMContentLoaded', this.onReady);
    window.removeEventListener('resize', this.onResize);
    this.resize?.disconnect();
    this.resize = null;
    this.live?.remove();
    this.live = null;
    this.cache.clear();
    this.active = false;
  }

  private attach(input: HTMLInputElement): void {
    const field: Field = {
      input,
      ui: new Decorations(input),
      token: null,
      timer: undefined,
      seq: 0,
      value: null,
      outcome: null,
      pending: null,
      reported: null,
      off: () => undefined,
    };
    const onInput = () => {
      clearTimeout(field.timer);
      field.seq++;
      field.pending = null;
      field.value = null;
      this.render(field, null, null);
      if (input.value.trim()) field.timer = setTimeout(() => void this.check(field), DEBOUNCE_MS);
    };
    const onBlur = () => {
      if (input.value.trim() && input.value.trim() !== field.value) void this.check(field);
    };
    input.addEventListener('input', onInput);
    input.addEventListener('blur', onBlur);
    // Some browsers' autofill announces itself only with `change`.
    input.addEventListener('change', onBlur);
    this.resize?.observe(input);
    field.off = () => {
      input.removeEventListener('input', onInput);
      input.removeEventListener('blur', onBlur);
      input.removeEventListener('change', onBlur);
      this.resize?.unobserve(input);
    };
    this.fields.set(input, field);
    if (input.value.trim()) void this.check(field);
  }

  private detach(field: Field): void {
    clearTimeout(field.timer);
    field.seq++;
    field.off();
    field.ui.remove();
    field.token?.remove();
    field.input.removeAttribute('data-guard-status');
    this.fields.delete(field.input);
  }

  private check(field: Field): Promise<GuardOutcome> {
    clearTimeout(field.timer);
    const email = field.input.value.trim();
    if (email === field.value && field.pending) return field.pending;
    if (email === field.value && field.outcome) return Promise.resolve(field.outcome);
    const seq = ++field.seq;
    field.value = email;
    field.outcome = null;
    this.render(field, { email, status: 'checking', reason: null, result: null }, null);
    const pending = this.lookup(email).then((lookup) => {
      const outcome = this.outcome(email, lookup);
      // Latest answer wins: a slower answer to an older value is dropped.
      if (seq === field.seq && this.fields.get(field.input) === field) {
        field.pending = null;
        field.outcome = outcome;
        this.render(field, outcome, lookup.ok ? lookup.token : null);
        this.report(outcome, field);
      }
      return outcome;
    });
    field.pending = pending;
    return pending;
  }

  /** One request per address per page; failures are not kept, so a later check asks again. */
  private lookup(email: string): Promise<Lookup> {
    const local = localResult(email);
    if (local) return Promise.resolve({ ok: true, result: local, token: null });
    const key = addressKey(email);
    let pending = this.cache.get(key);
    if (!pending) {
      pending = verify(
        this.options.apiUrl?.replace(/\/+$/, '') ?? scriptBase(SCRIPT_SRC),
        this.options.apiKey,
        email,
      ).then((answer): Lookup => {
        if (!answer.ok) {
          this.cache.delete(key);
          this.warn(answer.error);
          return { ok: false };
        }
        if (answer.defaults) this.account = answer.defaults;
        return { ok: true, result: answer.result, token: answer.token };
      });
      this.cache.set(key, pending);
    }
    return pending;
  }

  private outcome(email: string, lookup: Lookup): GuardOutcome {
    if (!lookup.ok) return { email, status: 'unverified', reason: null, result: null };
    const decision = decide(lookup.result, this.flag('blockDisposable', true), this.flag('blockFree', false));
    return { email, status: decision.status, reason: decision.reason, result: lookup.result };
  }

  /** Explicit `init` options win over the account's widget settings, which win over the built-ins. */
  private flag(
    name: 'blockDisposable' | 'blockFree' | 'blockSubmit' | 'redHighlight' | 'showTooltip' | 'showIcon',
    fallback: boolean,
  ): boolean {
    const own = this.options[name];
    if (typeof own === 'boolean') return own;
    const account = name === 'blockDisposable' || name === 'blockFree' ? this.account[name] : undefined;
    return typeof account === 'boolean' ? account : fallback;
  }

  private message(kind: MessageKind): string | null {
    const custom = this.options.messages?.[kind] ?? this.account.messages?.[kind];
    if (typeof custom === 'string') return custom || null;
    if (kind === 'valid' || kind === 'warning') return null;
    const lang = this.options.lang ?? this.account.lang;
    return BUILT_IN[lang && (LANGS as readonly string[]).includes(lang) ? lang : 'en'][kind];
  }

  private render(field: Field, outcome: GuardOutcome | null, token: string | null): void {
    const { input, ui } = field;
    const status = outcome?.status ?? null;
    if (status) input.setAttribute('data-guard-status', status);
    else input.removeAttribute('data-guard-status');
    const blocked = isBlocked(status);
    ui.invalid(blocked);
    ui.highlight(blocked && this.flag('redHighlight', true));
    ui.showIcon(this.flag('showIcon', true) ? status : null);
    const text = blocked
      ? this.message(outcome?.reason as BlockReason)
      : status === 'valid'
        ? this.message('valid')
        : status === 'risky'
          ? this.message('warning')
          : null;
    ui.showTooltip(
      this.flag('showTooltip', true) ? text : null,
      blocked ? 'error' : status === 'risky' ? 'warning' : 'success',
    );
    if (this.live && status !== 'checking') this.live.textContent = text ?? '';
    this.keepToken(field, token);
  }

  /** With a widget key, the form carries the service's signed verdict for the site's server. */
  private keepToken(field: Field, token: string | null): void {
    if (!field.token && token && field.input.form) {
      field.token = document.createElement('input');
      field.token.type = 'hidden';
      field.token.name = TOKEN_FIELD;
      field.input.insertAdjacentElement('afterend', field.token);
    }
    if (field.token) field.token.value = token ?? '';
  }

  private report(outcome: GuardOutcome, field?: Field): void {
    const { email, status, reason, result } = outcome;
    if (!result) return;
    if (field) {
      const mark = `${email}\n${status}`;
      if (field.reported === mark) return;
      field.reported = mark;
    }
    try {
      if (status === 'valid') this.options.onValid?.({ email, result });
      else if (status === 'risky') this.options.onWarning?.({ email, result });
      else if (isBlocked(status)) this.options.onInvalid?.({ email, reason: reason as BlockReason, result });
    } catch (error) {
      // A failing page callback must not stop the widget.
      console.error('Guard: a callback threw', error);
    }
  }

  private warn(error: string): void {
    if (this.warned) return;
    this.warned = true;
    console.warn(`Guard: the address could not be verified (${error}); the form is not blocked.`);
  }

  private readonly onResize = (): void => {
    for (const field of this.fields.values()) field.ui.place();
  };

  private readonly onSubmit = (event: Event): void => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !this.active) return;
    if (this.releasing === form) return;
    const fields = [...this.fields.values()].filter((field) => field.input.form === form && !field.input.disabled);
    const unchecked = fields.filter(
      (field) => field.input.value.trim() && (field.input.value.trim() !== field.value || field.pending),
    );
    if (!this.flag('blockSubmit', true)) {
      for (const field of unchecked) void this.check(field);
      return;
    }
    const blocked = () =>
      fields.find((field) => isBlocked(field.outcome?.status ?? null) && field.value === field.input.value.trim());
    const stop = () => {
      event.preventDefault();
      event.stopImmediatePropagation();
    };
    const first = blocked();
    if (first) {
      stop();
      first.input.focus();
      return;
    }
    if (unchecked.length === 0) return;
    // Hold the submission until the checks answer (or the wait runs out), then send it on.
    stop();
    const submitter = (event as SubmitEvent).submitter;
    const checks = Promise.all(unchecked.map((field) => this.check(field)));
    void Promise.race([checks, new Promise((resolve) => setTimeout(resolve, SUBMIT_WAIT_MS))]).then(() => {
      const stillBlocked = this.active ? blocked() : undefined;
      if (stillBlocked) {
        stillBlocked.input.focus();
        return;
      }
      this.releasing = form;
      try {
        // Browsers without requestSubmit (Safari before 16) send the form without a second submit event.
        if (typeof form.requestSubmit === 'function')
          form.requestSubmit(
            submitter instanceof HTMLElement && submitter.closest('form') === form ? submitter : undefined,
          );
        else HTMLFormElement.prototype.submit.call(form);
      } finally {
        this.releasing = null;
      }
    });
  };
}
