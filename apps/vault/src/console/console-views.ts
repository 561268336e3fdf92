import { PasswordRelease } from '../passwords/password-reader';
import { AccountState, MyRequest, RotationRow } from './console-reads';
import { csrfField, layout, notice, PageContext, pager } from './console-pages';
import { html, Html } from './html';

const REVEAL_SECONDS = 30;

function when(date: Date | string | null | undefined): string {
  return date ? new Date(date).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '';
}

export function accountsPage(ctx: PageContext, q: string, page: number, rows: Record<string, string>[], total: number, size: number): string {
  return layout(
    'Accounts',
    ctx,
    html`<p><a href="/console/resources/new">Add a resource</a></p>
<form method="get" action="/console/accounts" role="search">
  <label for="q">Search resources, accounts or DNS names</label>
  <input id="q" name="q" value="${q}" type="search"> <button type="submit">Search</button>
</form>
<table><caption>${total} resource(s)${q ? html` matching “${q}”` : ''}</caption>
<thead><tr><th scope="col">Resource</th><th scope="col">Type</th><th scope="col">Description</th><th scope="col">Accounts</th></tr></thead>
<tbody>${rows.map(
      (r) => html`<tr><td><a href="/console/resources/${r['RESOURCE ID']}">${r['RESOURCE NAME']}</a></td><td>${r['RESOURCE TYPE']}</td><td>${r['RESOURCE DESCRIPTION']}</td><td>${r.NOOFACCOUNTS}</td></tr>`,
    )}</tbody></table>
${pager('/console/accounts', page, page * size < total, q ? { q } : {})}`,
  );
}

function stateOf(s: AccountState | undefined): Html {
  if (!s) return html``;
  const parts: (Html | string)[] = [];
  if (s.holder) parts.push(`Checked out by ${s.holder} until ${when(s.holderUntil)}`);
  else if (s.controlled) parts.push('Available on request');
  else parts.push('Available');
  const window = s.myFrom ? ` for ${when(s.myFrom)} to ${when(s.myUntil)}` : '';
  if (s.myStatus === 'waiting') parts.push(`your request${window} waits for approval`);
  if (s.myStatus === 'approved') parts.push(window ? `your request is approved${window}` : `your request is approved until ${when(s.myUntil)}`);
  if (s.myStatus === 'checked_out') parts.push(`checked out by you until ${when(s.myUntil)}`);
  if (s.passwordStatus) parts.push(`last verified: ${s.passwordStatus}${s.lastVerifiedAt ? ` (${when(s.lastVerifiedAt)})` : ''}`);
  if (s.lastRotatedAt) parts.push(`last rotated ${when(s.lastRotatedAt)}`);
  return html`${parts.join('; ')}`;
}

function accountActions(ctx: PageContext, rid: string, aid: string, s: AccountState | undefined): Html {
  const base = `/console/resources/${rid}/accounts/${aid}`;
  const form = (action: string, label: string, withReason: boolean, quiet = false) => html`<form class="inline" method="post" action="${base}/${action}">${csrfField(ctx)}${
    withReason ? html`<label for="${action}-reason-${aid}">Reason</label><input id="${action}-reason-${aid}" name="reason" size="18"> <label for="${action}-ticket-${aid}">Ticket</label><input id="${action}-ticket-${aid}" name="ticket" size="8"> ` : ''
  }<button type="submit"${quiet ? html` class="quiet"` : ''}>${label}</button></form>`;
  // Accounts under remote reset (verified at least once) can be verified now and reconciled.
  const remote = s?.passwordStatus ? html`${form('verify', 'Verify now', false, true)}${form('reconcile', 'Reconcile', false, true)}` : '';
  if (!s?.controlled || s.myStatus === 'checked_out') {
    return html`${form('reveal', 'Reveal password', true)}${s?.myStatus === 'checked_out' ? form('checkin', 'Check in', false, true) : ''}${remote}`;
  }
  if (s.myStatus === 'approved') return s.myFrom ? html`<span class="muted">Check out from ${when(s.myFrom)}</span>` : form('checkout', 'Check out', true);
  if (s.myStatus === 'waiting') return html`<span class="muted">Waiting for approval</span>`;
  return requestForm(ctx, base, aid);
}

/** Reason, ticket, and a window for later (empty: now, for the access-control setting's time). */
function requestForm(ctx: PageContext, base: string, aid: string): Html {
  const field = (name: string, label: string, attrs: Html) => html`<label for="request-${name}-${aid}">${label}</label><input id="request-${name}-${aid}" name="${name}" ${attrs}> `;
  return html`<form class="inline" method="post" action="${base}/request">${csrfField(ctx)}${field('reason', 'Reason', html`size="18"`)}${field('ticket', 'Ticket', html`size="8"`)}<details class="inline"><summary>Later</summary>${field(
    'from',
    'From',
    html`type="datetime-local"`,
  )}${field('until', 'Until', html`type="datetime-local"`)}</details><button type="submit">Request access</button></form>`;
}

export function resourcePage(ctx: PageContext, details: Record<string, unknown>, states: Map<number, AccountState>, done?: string): string {
  const rid = String(details['RESOURCE ID']);
  const accounts = (details['ACCOUNT LIST'] as Record<string, string>[]) ?? [];
  return layout(
    `Resource ${details['RESOURCE NAME']}`,
    ctx,
    html`${notice(done)}
<p class="muted">${details['RESOURCE TYPE']}${details['DNS NAME'] ? html` · ${details['DNS NAME']}` : ''}${details['RESOURCE DESCRIPTION'] ? html` · ${details['RESOURCE DESCRIPTION']}` : ''}</p>
<table><caption>Accounts</caption>
<thead><tr><th scope="col">Account</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
<tbody>${accounts.map((a) => {
      const state = states.get(Number(a['ACCOUNT ID']));
      return html`<tr><td>${a['ACCOUNT NAME']}</td><td>${stateOf(state)}</td><td>${accountActions(ctx, rid, a['ACCOUNT ID'], state)}</td></tr>`;
    })}</tbody></table>
${manageSection(ctx, rid, accounts)}
<p><a href="/console/accounts">All resources</a></p>`,
  );
}

export function revealPage(ctx: PageContext, names: { resource: string; account: string }, rid: string, release: PasswordRelease): string {
  const body =
    'password' in release
      ? html`<p>Password of <strong>${names.account}</strong>${release.memberName ? html` (log in as <strong>${release.memberName}</strong>)` : ''}, shown for <span id="secret-clock">${REVEAL_SECONDS} s</span>:</p>
<p><output class="secret" data-secret data-seconds="${REVEAL_SECONDS}" aria-live="polite">${release.password}</output> <button id="secret-copy" type="button" class="quiet">Copy</button></p>
<p class="muted">This read is in the audit trail.</p>`
      : html`${notice(release.message, 'error')}`;
  return layout(`${names.resource} / ${names.account}`, ctx, html`${body}<p><a href="/console/resources/${rid}">Back to ${names.resource}</a></p>`);
}

export function approvalsPage(ctx: PageContext, groups: Record<string, unknown>[], done?: string): string {
  const rows = groups.flatMap((g) =>
    ((g.PASSWORDREQUESTLIST as Record<string, string>[]) ?? []).map((r): Record<string, string> => ({ ...r, requester: String(g['REQUESTED BY']), requesterId: String(g['REQUESTER USERID']) })),
  );
  return layout(
    'Approvals',
    ctx,
    html`${notice(done)}
<table><caption>${rows.length} request(s) waiting for your decision</caption>
<thead><tr><th scope="col">Requested by</th><th scope="col">Resource / account</th><th scope="col">Reason</th><th scope="col">Requested</th><th scope="col">Decision</th></tr></thead>
<tbody>${rows.map(
      (r) => html`<tr id="request-${r['REQUEST ID']}"><td>${r.requester}</td><td>${r['RESOURCE NAME']} / ${r['ACCOUNT NAME']}</td><td>${r.REASON}</td><td>${r['REQUESTED TIME']}</td><td>
<form class="inline" method="post" action="/console/approvals/${r['ACCOUNT ID']}/${r.requesterId}/approve">${csrfField(ctx)}<button type="submit">Approve</button></form>
<form class="inline" method="post" action="/console/approvals/${r['ACCOUNT ID']}/${r.requesterId}/reject">${csrfField(ctx)}<label for="comment-${r['REQUEST ID']}">Comment</label><input id="comment-${r['REQUEST ID']}" name="comment" size="16"> <button type="submit" class="quiet">Reject</button></form>
</td></tr>`,
    )}</tbody></table>`,
  );
}

export function checkoutsPage(ctx: PageContext, requests: MyRequest[], done?: string): string {
  const label: Record<string, string> = { waiting: 'Waiting for approval', approved: 'Approved: check it out before', checked_out: 'Checked out until' };
  return layout(
    'My check-outs',
    ctx,
    html`${notice(done)}
<table><caption>Your open requests and check-outs</caption>
<thead><tr><th scope="col">Resource / account</th><th scope="col">State</th><th scope="col">Action</th></tr></thead>
<tbody>${requests.map(
      (r) => html`<tr><td><a href="/console/resources/${r.resourceId}">${r.resourceName}</a> / ${r.accountName}</td><td>${label[r.status] ?? r.status} ${r.status === 'waiting' ? '' : when(r.until)}${r.from ? ` (window from ${when(r.from)})` : ''}</td><td>${
        r.status === 'checked_out'
          ? html`<form class="inline" method="post" action="/console/resources/${r.resourceId}/accounts/${r.accountId}/checkin">${csrfField(ctx)}<button type="submit">Check in now</button></form>`
          : ''
      }</td></tr>`,
    )}</tbody></table>`,
  );
}

export function auditPage(
  ctx: PageContext,
  f: { type: string; user: string; operation: string; resource: string; from: string; to: string },
  rows: Record<string, string>[],
  total: number,
  chain: { sealedRows: string; lastId: string; unsealed: number; sealedAt: Date | null },
): string {
  const last = rows[rows.length - 1];
  const query = new URLSearchParams(Object.entries(f).filter(([, v]) => v)).toString();
  return layout(
    'Audit',
    ctx,
    html`<p class="notice" role="status">Hash chain: ${chain.sealedRows} rows sealed up to id ${chain.lastId}${chain.sealedAt ? html` (${when(chain.sealedAt)})` : ''}; ${chain.unsealed} newer row(s) wait to be sealed. <span class="muted">npm run admin -- verify-audit checks every link.</span></p>
<form method="get" action="/console/audit"><label for="type">Trail</label>
<select id="type" name="type"><option value="Resource"${f.type === 'Resource' ? html` selected` : ''}>Resources and passwords</option><option value="User"${f.type === 'User' ? html` selected` : ''}>Users and sign-ins</option></select>
<label for="f-user">By user</label><input id="f-user" name="user" value="${f.user}">
<label for="f-operation">Operation (exact, e.g. Password Retrieved)</label><input id="f-operation" name="operation" value="${f.operation}">
<label for="f-resource">Resource name contains</label><input id="f-resource" name="resource" value="${f.resource}">
<label for="f-from">From (YYYY-MM-DD)</label><input id="f-from" name="from" value="${f.from}">
<label for="f-to">To (YYYY-MM-DD)</label><input id="f-to" name="to" value="${f.to}">
<p><button type="submit">Show</button> <a href="/console/audit.csv?${query}">Download CSV</a></p></form>
<table><caption>${total}${total >= 10_000 ? '+' : ''} entries, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Operation</th><th scope="col">By</th><th scope="col">Resource / account</th><th scope="col">Outcome</th><th scope="col">Reason</th></tr></thead>
<tbody>${rows.map(
      (r) => html`<tr><td>${r.LASTACCESSEDTIME}</td><td>${r.OPERATIONTYPE}</td><td>${r.OPERATEDBY}</td><td>${r.RESOURCENAME}${r.ACCOUNTNAME ? html` / ${r.ACCOUNTNAME}` : ''}</td><td>${r.STATUS}</td><td>${r.REASON}</td></tr>`,
    )}</tbody></table>
${last && rows.length >= 50 ? html`<p><a href="/console/audit?${query}${query ? '&' : ''}before=${last.AUDITID}">Older entries</a></p>` : ''}`,
  );
}

export function certificatesPage(ctx: PageContext, days: number, rows: Record<string, unknown>[]): string {
  return layout(
    'Certificates',
    ctx,
    html`<form method="get" action="/console/certificates"><label for="days">Expiring within (days)</label><input id="days" name="days" type="number" min="0" max="3650" value="${days}"> <button type="submit">Show</button></form>
<table><caption>${rows.length} certificate(s) expiring within ${days} days</caption>
<thead><tr><th scope="col">Common name</th><th scope="col">Issuer</th><th scope="col">Expires</th><th scope="col">Created by</th><th scope="col">Download</th></tr></thead>
<tbody>${rows.map(
      (c) => html`<tr><td>${c['Common Name']}</td><td>${c.Issuer}</td><td>${c.ExpiryDate}</td><td>${c['Created By']}</td><td><a href="/console/certificates/download?${new URLSearchParams({ cn: String(c['Common Name']), serial: String(c.serialNumber) }).toString()}">Certificate and chain (PEM)</a></td></tr>`,
    )}</tbody></table>`,
  );
}

export function passwordPage(ctx: PageContext, done?: string): string {
  return layout(
    'My password',
    ctx,
    html`${notice(done)}
<form method="post" action="/console/password">${csrfField(ctx)}
<label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required>
<label for="next">New password (12 characters or more)</label><input id="next" name="next" type="password" autocomplete="new-password" minlength="12" required>
<label for="again">New password again</label><input id="again" name="again" type="password" autocomplete="new-password" minlength="12" required>
<p><button type="submit">Change my password</button></p></form>
<h2>API token</h2>
<p>A token lets your scripts call the API as you (the <code>AUTHTOKEN</code> header). A new one replaces every token you had.</p>
<form method="post" action="/console/token">${csrfField(ctx)}<p><button type="submit" class="quiet">Create a new API token</button></p></form>`,
  );
}

export function tokenPage(ctx: PageContext, token: string): string {
  return layout(
    'Your new API token',
    ctx,
    html`<p>Shown once; every earlier token of yours has stopped working.</p>
<p><output class="secret" id="new-token">${token}</output></p>
<p class="muted">Send it as the <code>AUTHTOKEN</code> header. This creation is in the audit trail.</p>
<p><a href="/console/password">Back</a></p>`,
  );
}

export function rotationPage(ctx: PageContext, rows: RotationRow[]): string {
  return layout(
    'Rotation',
    ctx,
    html`<p>Resource groups whose passwords the server rotates on a schedule. Verify or reconcile an account on its resource's page.</p>
<table><caption>${rows.length} schedule(s)</caption>
<thead><tr><th scope="col">Resource group</th><th scope="col">Every</th><th scope="col">Next run</th><th scope="col">Last run</th><th scope="col">Last result</th></tr></thead>
<tbody>${rows.map(
      (r) => html`<tr><td>${r.group}</td><td>${r.enabled ? r.every : 'disabled'}</td><td>${when(r.nextRun)}</td><td>${when(r.lastRun)}</td><td>${
        r.lastRun ? html`${r.done} rotated, ${r.failed} failed${r.lastFailure ? html`: ${r.lastFailure}` : ''}` : ''
      }</td></tr>`,
    )}</tbody></table>`,
  );
}

export function usersPage(ctx: PageContext, users: { username: string; role: string; locked: boolean; api: boolean }[], done?: string): string {
  return layout(
    'Users',
    ctx,
    html`${notice(done)}
<table><caption>${users.length} user(s) of ${ctx.actor?.orgName}</caption>
<thead><tr><th scope="col">User</th><th scope="col">Role</th><th scope="col">Kind</th><th scope="col">State</th><th scope="col">Action</th></tr></thead>
<tbody>${users.map(
      (u) => html`<tr><td>${u.username}</td><td>${u.role}</td><td>${u.api ? 'API user' : 'person'}</td><td>${u.locked ? 'locked' : 'active'}</td><td>
<form class="inline" method="post" action="/console/users/${encodeURIComponent(u.username)}/${u.locked ? 'unlock' : 'lock'}">${csrfField(ctx)}<button type="submit" class="quiet">${u.locked ? 'Unlock' : 'Lock'}</button></form></td></tr>`,
    )}</tbody></table>`,
  );
}

/** What an owner or administrator does to a resource: share it, put an account under access control. */
export function manageSection(ctx: PageContext, rid: string, accounts: Record<string, string>[]): Html {
  return html`<details><summary>Share this resource, or put an account under access control</summary>
<form method="post" action="/console/resources/${rid}/share">${csrfField(ctx)}
<label for="grantee">User or user group name</label><input id="grantee" name="grantee" required>
<label for="kind">Is a</label><select id="kind" name="kind"><option value="user">user</option><option value="group">user group</option></select>
<label for="access">Access</label><select id="access" name="access"><option>view</option><option>modify</option><option>fullaccess</option><option>revoke</option></select>
<p><button type="submit">Share</button></p></form>
<form method="post" action="/console/resources/${rid}/accesscontrol">${csrfField(ctx)}
<label for="ac-account">Account</label><select id="ac-account" name="account">${accounts.map((a) => html`<option value="${a['ACCOUNT ID']}">${a['ACCOUNT NAME']}</option>`)}</select>
<label for="ac-approvers">Approvers needed</label><select id="ac-approvers" name="approvers"><option>1</option><option>2</option></select>
<label for="ac-users">Approvers (user names, comma separated; empty: the administrators)</label><input id="ac-users" name="approverUsers">
<label for="ac-minutes">Check-out minutes</label><input id="ac-minutes" name="minutes" type="number" min="1" value="60">
<p><button type="submit">Put under access control</button></p></form></details>`;
}

export function newResourcePage(ctx: PageContext, error?: string): string {
  return layout(
    'Add a resource',
    ctx,
    html`${notice(error, 'error')}
<form method="post" action="/console/resources/new">${csrfField(ctx)}
<label for="name">Resource name</label><input id="name" name="name" required>
<label for="type">Type</label><input id="type" name="type" value="Linux" required>
<label for="dns">DNS name</label><input id="dns" name="dns">
<label for="account">Account</label><input id="account" name="account" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" required>
<p><button type="submit">Add</button></p></form>`,
  );
}
