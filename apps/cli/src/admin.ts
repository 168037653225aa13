import { createInterface } from 'node:readline/promises';
import type { AuditEntryView, OperatorAccountView, Page } from '@mailguard/accounts';
import type { AdminAction } from './args';
import { refusal } from './backend';
import { UsageError } from './args';

/**
 * `mailguard admin …`: the operator console of a running service (docs/operations.md#operator-console),
 * at MAILGUARD_API_URL (its host, or its REST base ending in /v1) with ADMIN_TOKEN as a bearer token.
 */
export class AdminClient {
  private readonly base: string;

  constructor(
    apiUrl: string,
    private readonly token: string,
  ) {
    this.base = apiUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T | null> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const reason =
        error instanceof Error ? (error.cause instanceof Error ? error.cause : error).message : String(error);
      throw new UsageError(`cannot reach ${this.base}: ${reason}`);
    }
    const text = await response.text();
    if (!response.ok) {
      if (response.status === 404 && path.startsWith('/admin/accounts?'))
        throw new UsageError(`${this.base} has no operator console: is ADMIN_TOKEN set on the service?`);
      throw refusal(response.status, text);
    }
    return text === '' ? null : (JSON.parse(text) as T);
  }
}

const query = (params: Record<string, string | number | null>) =>
  new URLSearchParams(
    Object.entries(params).flatMap(([name, value]): Array<[string, string]> =>
      value === null ? [] : [[name, String(value)]],
    ),
  ).toString();

function accountLine(account: OperatorAccountView): string {
  return [
    account.id,
    account.email,
    account.status,
    `balance ${account.balance}`,
    `held ${account.held}`,
    `last active ${account.lastActiveAt ?? 'never'}`,
  ].join('  ');
}

function auditLine(entry: AuditEntryView): string {
  return [
    entry.createdAt,
    entry.actor,
    entry.action,
    entry.target ?? '-',
    entry.detail ?? '',
    entry.clientIp ? `from ${entry.clientIp}` : '',
  ]
    .filter(Boolean)
    .join('  ');
}

/** Asks for the account id again before an erasure, on a terminal; refuses without --yes otherwise. */
async function confirmErase(account: string): Promise<void> {
  if (!process.stdin.isTTY)
    throw new UsageError(`erasing ${account} cannot be undone: add --yes to confirm (stdin is not a terminal)`);
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const typed = await prompt.question(`Erasing ${account} cannot be undone. Type its id to confirm: `);
    if (typed.trim() !== account) throw new UsageError('not confirmed: nothing erased');
  } finally {
    prompt.close();
  }
}

/** Runs one admin action; the text (or JSON) to print. */
export async function runAdmin(client: AdminClient, action: AdminAction, json: boolean): Promise<string> {
  const out = (value: unknown, text: string) => (json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
  const id = (account: string) => encodeURIComponent(account);
  switch (action.kind) {
    case 'accounts': {
      const page = (await client.call<Page<OperatorAccountView>>(
        'GET',
        `/admin/accounts?${query({ email: action.email, page: action.page, limit: action.limit })}`,
      )) as Page<OperatorAccountView>;
      const footer = `${page.total} account(s); page ${page.page} of ${Math.max(1, Math.ceil(page.total / page.limit))}`;
      return out(page, [...page.data.map(accountLine), footer].join('\n'));
    }
    case 'grant': {
      const row = (await client.call<{ id: string; kind: string; delta: number; balanceAfter: number }>(
        'POST',
        `/admin/accounts/${id(action.account)}/credits`,
        { amount: action.amount, reason: action.reason },
      )) as { id: string; kind: string; delta: number; balanceAfter: number };
      return out(row, `${row.id}  ${row.kind} ${row.delta > 0 ? '+' : ''}${row.delta}  balance ${row.balanceAfter}`);
    }
    case 'suspend':
    case 'unsuspend': {
      const account = (await client.call<OperatorAccountView>(
        'POST',
        `/admin/accounts/${id(action.account)}/${action.kind}`,
        {
          ...(action.reason === null ? {} : { reason: action.reason }),
        },
      )) as OperatorAccountView;
      return out(account, accountLine(account));
    }
    case 'erase': {
      if (!action.yes) await confirmErase(action.account);
      await client.call(
        'DELETE',
        `/admin/accounts/${id(action.account)}`,
        action.reason === null ? undefined : { reason: action.reason },
      );
      return out({ id: action.account, status: 'erased' }, `${action.account} erased`);
    }
    case 'audit': {
      const page = (await client.call<Page<AuditEntryView>>(
        'GET',
        `/admin/audit?${query({ accountId: action.account, page: action.page, limit: action.limit })}`,
      )) as Page<AuditEntryView>;
      return out(page, [...page.data.map(auditLine), `${page.total} entr${page.total === 1 ? 'y' : 'ies'}`].join('\n'));
    }
  }
}
