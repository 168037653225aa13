import { useState } from 'preact/hooks';
import { call, type KeyRecord, type Scope } from '../api';
import type { Session } from '../main';
import { Problem, ReadOnly, Secret, useLoad, when } from '../ui';

const SCOPES: Scope[] = ['full', 'verify', 'lists', 'read-only'];

function CreateKey({ session, onCreated }: { session: Session; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<Scope>('verify');
  const [type, setType] = useState<'secret' | 'widget'>('secret');
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<(KeyRecord & { key: string }) | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      setCreated(
        await call<KeyRecord & { key: string }>(session.key, 'POST', '/keys', { body: { name, scope, type } }),
      );
      setName('');
      onCreated();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <form onSubmit={submit} class="inline">
        <label for="key-name">Name</label>
        <input
          id="key-name"
          required
          maxLength={100}
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <label for="key-scope">Scope</label>
        <select id="key-scope" value={scope} onChange={(event) => setScope(event.currentTarget.value as Scope)}>
          {SCOPES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
        <label for="key-type">Type</label>
        <select
          id="key-type"
          value={type}
          onChange={(event) => setType(event.currentTarget.value as 'secret' | 'widget')}
        >
          <option value="secret">secret (server side)</option>
          <option value="widget">widget (in web pages)</option>
        </select>
        <button type="submit">Create key</button>
      </form>
      <Problem error={error} scope={session.scope} />
      {created && (
        <div class="created" aria-live="polite">
          <p class="warning">Copy the key "{created.name}" now: it will not be shown again.</p>
          <Secret id="created-key" label={`New ${created.type} key`} value={created.key} />
        </div>
      )}
    </section>
  );
}

const REVOKED_OWN =
  'You revoked the key you were signed in with, so you have been signed out. Sign in with another key.';

function KeyRow({
  session,
  record,
  canWrite,
  onChanged,
  onSignOut,
}: {
  session: Session;
  record: KeyRecord;
  canWrite: boolean;
  onChanged: () => void;
  onSignOut: (message: string) => void;
}) {
  /** The key this tab is signed in with: its prefix is the first 12 characters of the key. */
  const inUse = session.kind === 'key' && !record.revokedAt && session.key.startsWith(record.prefix);
  const [mode, setMode] = useState<'view' | 'edit' | 'revoke'>('view');
  const [name, setName] = useState(record.name);
  const [scope, setScope] = useState<Scope>(record.scope);
  const [error, setError] = useState<unknown>(null);
  const act = async (run: () => Promise<unknown>, revoking = false) => {
    setError(null);
    try {
      await run();
      if (revoking && inUse) {
        onSignOut(REVOKED_OWN);
        return;
      }
      setMode('view');
      onChanged();
    } catch (failure) {
      setError(failure);
    }
  };
  const save = (event: Event) => {
    event.preventDefault();
    void act(() => call(session.key, 'PATCH', `/keys/${record.id}`, { body: { name, scope } }));
  };
  const revoked = record.revokedAt !== null;
  return (
    <tr data-key={record.prefix} class={inUse ? 'in-use' : undefined} aria-current={inUse ? 'true' : undefined}>
      <td data-label="Name">
        {mode === 'edit' ? (
          <form id={`edit-${record.id}`} onSubmit={save}>
            <label for={`name-${record.id}`} class="visually-hidden">
              Name of {record.prefix}
            </label>
            <input
              id={`name-${record.id}`}
              required
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          </form>
        ) : (
          record.name
        )}
        {inUse && (
          <strong class="badge" id="key-in-use">
            {' '}
            in use by you
          </strong>
        )}
      </td>
      <td class="mono" data-label="Prefix">
        {record.prefix}…
      </td>
      <td data-label="Scope">
        {mode === 'edit' ? (
          <>
            <label for={`scope-${record.id}`} class="visually-hidden">
              Scope of {record.prefix}
            </label>
            <select
              id={`scope-${record.id}`}
              form={`edit-${record.id}`}
              value={scope}
              onChange={(event) => setScope(event.currentTarget.value as Scope)}
            >
              {SCOPES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </>
        ) : (
          record.scope
        )}
      </td>
      <td data-label="Type">{record.type}</td>
      <td data-label="Created">{when(record.createdAt)}</td>
      <td data-label="Last used">{when(record.lastUsedAt)}</td>
      <td data-label="Revoked">{revoked ? when(record.revokedAt) : 'active'}</td>
      <td class="actions">
        {canWrite && !revoked && mode === 'view' && (
          <>
            <button type="button" onClick={() => setMode('edit')} aria-label={`Edit ${record.name}`}>
              Edit
            </button>
            <button type="button" class="danger" onClick={() => setMode('revoke')} aria-label={`Revoke ${record.name}`}>
              Revoke
            </button>
          </>
        )}
        {mode === 'edit' && (
          <>
            <button type="submit" form={`edit-${record.id}`}>
              Save
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </>
        )}
        {mode === 'revoke' && (
          <div role="group" aria-label="Confirm revocation">
            <span>
              Revoke "{record.name}"? It stops working at once.
              {inUse && ' It is the key you are signed in with: you will be signed out.'}
            </span>
            <button
              type="button"
              class="danger"
              onClick={() => void act(() => call(session.key, 'DELETE', `/keys/${record.id}`), true)}
            >
              Yes, revoke
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Keep it
            </button>
          </div>
        )}
        <Problem error={error} scope={session.scope} />
      </td>
    </tr>
  );
}

export function Keys({ session, onSignOut }: { session: Session; onSignOut: (message: string) => void }) {
  const canRead = session.scope === 'full' || session.scope === 'read-only';
  const canWrite = session.scope === 'full';
  const keys = useLoad(
    () => (canRead ? call<{ data: KeyRecord[] }>(session.key, 'GET', '/keys') : Promise.resolve(null)),
    [],
  );
  return (
    <>
      <h1>API keys</h1>
      {!canRead && <ReadOnly scope={session.scope} needs="listing and managing keys needs a full or read-only key." />}
      {canRead && !canWrite && (
        <ReadOnly scope={session.scope} needs="creating, changing and revoking keys needs a full key." />
      )}
      {canWrite && <CreateKey session={session} onCreated={keys.reload} />}
      <Problem error={keys.error} scope={session.scope} onRetry={keys.reload} />
      {keys.data && (
        <section aria-labelledby="keys-title">
          <h2 id="keys-title">Your keys</h2>
          <div>
            <table id="keys" class="cards">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Type</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Revoked</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {keys.data.data.map((record) => (
                  <KeyRow
                    key={`${record.id}:${record.revokedAt ?? ''}:${record.name}:${record.scope}`}
                    session={session}
                    record={record}
                    canWrite={canWrite}
                    onChanged={keys.reload}
                    onSignOut={onSignOut}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </>
  );
}
