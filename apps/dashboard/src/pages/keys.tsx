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

function KeyRow({
  session,
  record,
  canWrite,
  onChanged,
}: {
  session: Session;
  record: KeyRecord;
  canWrite: boolean;
  onChanged: () => void;
}) {
  const [mode, setMode] = useState<'view' | 'edit' | 'revoke'>('view');
  const [name, setName] = useState(record.name);
  const [scope, setScope] = useState<Scope>(record.scope);
  const [error, setError] = useState<unknown>(null);
  const act = async (run: () => Promise<unknown>) => {
    setError(null);
    try {
      await run();
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
    <tr data-key={record.prefix}>
      <td>
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
      </td>
      <td class="mono">{record.prefix}…</td>
      <td>
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
      <td>{record.type}</td>
      <td>{when(record.createdAt)}</td>
      <td>{when(record.lastUsedAt)}</td>
      <td>{revoked ? when(record.revokedAt) : 'active'}</td>
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
            <span>Revoke "{record.name}"? It stops working at once.</span>
            <button
              type="button"
              class="danger"
              onClick={() => void act(() => call(session.key, 'DELETE', `/keys/${record.id}`))}
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

export function Keys({ session }: { session: Session }) {
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
          <div class="scroll">
            <table id="keys">
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
