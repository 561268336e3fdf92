import { Actor } from '@app/audit';
import { roleHas } from '@app/auth';
import { Html, html } from './html';

export interface PageContext {
  actor?: Actor;
  csrf?: string;
  /** The nav entry to mark as the current page. */
  current?: string;
  /** Organisations the user may act in (more than one: a switch is shown). */
  organisations?: string[];
}

// Each page, and the permission without which its link is not shown (the page refuses too).
const NAV: [string, string, string?][] = [
  ['accounts', 'Accounts'],
  ['approvals', 'Approvals'],
  ['checkouts', 'My check-outs'],
  ['rotation', 'Rotation'],
  ['audit', 'Audit', 'audit.read'],
  ['certificates', 'Certificates', 'pki.read'],
  ['users', 'Users', 'user.manage'],
  ['password', 'My password'],
];

/** Every page: one layout, one heading, a skip link, the navigation and the sign-out form. */
export function layout(title: string, ctx: PageContext, body: Html): string {
  const nav = ctx.actor
    ? html`<nav aria-label="Console"><ul>${NAV.filter(([, , permission]) => !permission || roleHas(ctx.actor!.role, permission)).map(
        ([path, label]) => html`<li><a href="/console/${path}"${ctx.current === path ? html` aria-current="page"` : ''}>${label}</a></li>`,
      )}</ul></nav>
      ${orgSwitch(ctx)}
      <form class="inline" method="post" action="/console/sign-out">${csrfField(ctx)}<button class="quiet" type="submit">Sign out ${ctx.actor.username}</button></form>`
    : '';
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Credential Vault</title><link rel="stylesheet" href="/console/app.css"><script src="/console/app.js" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>
<header><strong>Credential Vault</strong>${nav}</header>
<main id="main"><h1>${title}</h1>${body}</main></body></html>`.text;
}

/** A provider user who may act in other organisations switches here (the API's orgName). */
function orgSwitch(ctx: PageContext): Html {
  if (!ctx.actor || (ctx.organisations?.length ?? 0) < 2) return html``;
  return html`<form class="inline" method="post" action="/console/organisation">${csrfField(ctx)}<label for="org" class="inline-label">Organisation</label>
<select id="org" name="organisation">${ctx.organisations!.map((o) => html`<option${o === ctx.actor!.orgName ? html` selected` : ''}>${o}</option>`)}</select>
<button class="quiet" type="submit">Switch</button></form>`;
}

export function csrfField(ctx: PageContext): Html {
  return ctx.csrf ? html`<input type="hidden" name="csrf" value="${ctx.csrf}">` : html``;
}

export function notice(text: string | undefined, kind: 'ok' | 'error' = 'ok'): Html {
  return text ? html`<p class="notice${kind === 'error' ? ' error' : ''}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>` : html``;
}

export function signInPage(error?: string): string {
  return layout(
    'Sign in',
    {},
    html`${notice(error, 'error')}
<form method="post" action="/console/sign-in">
  <label for="username">User name</label><input id="username" name="username" autocomplete="username" required autofocus>
  <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
  <label for="organisation">Organisation <span class="muted">(only when your user name exists in several)</span></label><input id="organisation" name="organisation" autocomplete="organization">
  <p><button type="submit">Sign in</button></p>
</form>`,
  );
}

export function totpPage(ctx: PageContext, error?: string): string {
  return layout(
    'Second factor',
    ctx,
    html`${notice(error, 'error')}
<form method="post" action="/console/totp">${csrfField(ctx)}
  <label for="code">Code from your authenticator app</label>
  <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus>
  <p><button type="submit">Continue</button></p>
</form>`,
  );
}

export function enrolPage(ctx: PageContext, secret: string, qrSvg: string, error?: string): string {
  return layout(
    'Set up your second factor',
    ctx,
    html`${notice(error, 'error')}
<p>Your account needs a time-based one-time code (TOTP) at every sign-in. Scan the code with an authenticator app, or type the secret into it.</p>
<div class="qr" aria-hidden="true">${new Html(qrSvg)}</div>
<p>Secret: <code id="totp-secret">${secret}</code></p>
<form method="post" action="/console/totp/enrol">${csrfField(ctx)}
  <label for="code">Code the app shows now</label>
  <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
  <p><button type="submit">Confirm</button></p>
</form>`,
  );
}

export function errorPage(ctx: PageContext, status: number, message: string): string {
  return layout(status === 404 ? 'Not found' : 'Something went wrong', ctx, html`${notice(message, 'error')}<p><a href="/console/accounts">Back to the accounts</a></p>`);
}

export function pager(base: string, page: number, hasNext: boolean, query: Record<string, string>): Html {
  const link = (p: number, label: string) => html`<a href="${base}?${new URLSearchParams({ ...query, page: String(p) }).toString()}">${label}</a>`;
  return html`<nav class="pager" aria-label="Pages">${page > 1 ? link(page - 1, 'Previous page') : ''}<span>Page ${page}</span>${hasNext ? link(page + 1, 'Next page') : ''}</nav>`;
}
