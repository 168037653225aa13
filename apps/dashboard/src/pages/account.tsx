import { useState } from 'preact/hooks';
import {
  call,
  rights,
  type AuditEntry,
  type Member,
  type Page,
  type Role,
  type Session,
  type SessionRecord,
} from '../api';
import { Pager, Problem, useAction, useLoad, when } from '../ui';

const ROLES: Role[] = ['admin', 'developer', 'billing'];

function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setDone(false);
    try {
      await call(null, 'POST', '//auth/password', { body: { currentPassword: current, password: next } });
      setCurrent('');
      setNext('');
      setDone(true);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <form onSubmit={submit}>
        <label for="current-password">Current password</label>
        <input
          id="current-password"
          type="password"
          required
          autoComplete="current-password"
          value={current}
          onInput={(event) => setCurrent(event.currentTarget.value)}
        />
        <label for="new-password">New password</label>
        <input
          id="new-password"
          type="password"
          required
          minLength={10}
          autoComplete="new-password"
          value={next}
          onInput={(event) => setNext(event.currentTarget.value)}
        />
        <button type="submit">Change password</button>
      </form>
      <Problem error={error} />
      {done && <p role="status">Your password has been changed.</p>}
    </section>
  );
}

function Sessions() {
  const sessions = useLoad(() => call<{ data: SessionRecord[] }>(null, 'GET', '//auth/sessions'), []);
  const { error, act } = useAction(sessions.reload);
  const end = (id: string) => act(() => call(null, 'DELETE', `//auth/sessions/${encodeURIComponent(id)}`));
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <Problem error={sessions.error ?? error} onRetry={sessions.reload} />
      {sessions.data && (
        <table id="sessions" class="cards">
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Address</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.data.map((record) => (
              <tr key={record.id}>
                <td data-label="Device">
                  {record.device ?? 'unknown device'}
                  {record.current && <strong> (this one)</strong>}
                </td>
                <td data-label="Address">{record.address ?? '—'}</td>
                <td data-label="Signed in">{when(record.createdAt)}</td>
                <td data-label="Last seen">{when(record.lastSeenAt ?? null)}</td>
                <td>
                  {!record.current && (
                    <button type="button" class="danger" onClick={() => void end(record.id)}>
                      Sign out this session
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Members() {
  const members = useLoad(() => call<{ data: Member[] }>(null, 'GET', '//auth/members'), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const { error, act } = useAction(members.reload);
  const [invited, setInvited] = useState<string | null>(null);
  const invite = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      await call(null, 'POST', '//auth/members', { body: { email: email.trim(), role } });
      setInvited(email.trim());
      setEmail('');
    });
  };
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <form onSubmit={invite} class="inline">
        <label for="member-email">Email</label>
        <input
          id="member-email"
          type="email"
          required
          value={email}
          onInput={(event) => setEmail(event.currentTarget.value)}
        />
        <label for="member-role">Role</label>
        <select id="member-role" value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
          {ROLES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
        <button type="submit">Invite</button>
      </form>
      <p class="hint">
        admin: everything but deleting the account; developer: keys, checks, lists and the widget; billing: credits and
        usage only.
      </p>
      {invited && <p role="status">An invitation is on its way to {invited}.</p>}
      <Problem error={members.error ?? error} onRetry={members.reload} />
      {members.data && (
        <table id="members" class="cards">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data.data.map((member) => (
              <tr key={member.id}>
                <td data-label="Email">{member.email}</td>
                <td data-label="Role">{member.role}</td>
                <td data-label="Status">{member.acceptedAt ? 'active' : 'invited'}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Remove ${member.email}`}
                    onClick={() =>
                      void act(() => call(null, 'DELETE', `//auth/members/${encodeURIComponent(member.id)}`))
                    }
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Audit() {
  const [page, setPage] = useState(1);
  const audit = useLoad(() => call<Page<AuditEntry>>(null, 'GET', `//auth/audit?page=${page}&limit=20`), [page]);
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <Problem error={audit.error} onRetry={audit.reload} />
      {audit.data && (
        <>
          <table id="audit" class="cards">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Target</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {audit.data.data.map((entry) => (
                <tr key={entry.id}>
                  <td data-label="When">{when(entry.createdAt)}</td>
                  <td data-label="Who">{entry.actor ?? '—'}</td>
                  <td data-label="What">{entry.action}</td>
                  <td data-label="Target">{entry.target ?? '—'}</td>
                  <td data-label="From">{entry.address ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager
            label="Audit pages"
            page={audit.data.page}
            limit={audit.data.limit}
            total={audit.data.total}
            onPage={setPage}
          />
        </>
      )}
    </section>
  );
}

/** A password session's own account: its password and sessions; the owner and admins also see members and audit. */
export function Account({ session }: { session: Session & { kind: 'login' } }) {
  const admin = rights(session).admin;
  return (
    <>
      <h1>Account</h1>
      <p>
        Signed in as <strong>{session.account.email}</strong>
        {session.account.role ? `, ${session.account.role}` : ', owner'}.
      </p>
      <ChangePassword />
      <Sessions />
      {admin && <Members />}
      {admin && <Audit />}
    </>
  );
}
