// The console's one style sheet and one script, served from /console/ (no inline script or
// style anywhere: the Content-Security-Policy allows 'self' only).

export const CONSOLE_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0a58ca; --bad: #b42318; --ok: #146c2e; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: var(--ink); background: #fff; }
a { color: var(--accent); }
a:focus, button:focus, input:focus, select:focus { outline: 3px solid #ffbf47; outline-offset: 1px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px; }
header { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
header strong { margin-right: 1rem; }
nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; flex-wrap: wrap; }
nav a[aria-current="page"] { font-weight: 700; text-decoration: none; color: var(--ink); }
main { padding: 1rem 1.2rem; max-width: 72rem; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
th, td { text-align: left; border-bottom: 1px solid var(--line); padding: .35rem .5rem; vertical-align: top; }
form.inline { display: inline; }
details.inline { display: inline-block; margin-right: .3rem; } details.inline summary { cursor: pointer; }
label { display: block; margin: .4rem 0 .1rem; font-weight: 600; }
label.inline-label { display: inline; margin: 0 .3rem 0 0; }
input, select, textarea { font: inherit; padding: .3rem .4rem; border: 1px solid #6e7781; border-radius: 4px; }
button { font: inherit; padding: .3rem .8rem; border: 1px solid var(--accent); border-radius: 4px; background: var(--accent); color: #fff; cursor: pointer; }
button.quiet { background: #fff; color: var(--accent); }
.notice { padding: .5rem .8rem; border-left: 4px solid var(--accent); background: #f3f6fb; }
.error { border-left-color: var(--bad); background: #fdf0ef; }
.secret { font: 1.2rem/1.4 ui-monospace, monospace; padding: .4rem .6rem; background: #f6f8fa; border: 1px solid var(--line); display: inline-block; }
.muted { color: var(--muted); }
.qr svg { width: 14rem; height: 14rem; }
.pager { display: flex; gap: 1rem; }
`;

export const CONSOLE_JS = `
'use strict';
// Reveal: the password is shown for its countdown, then removed from the page; copy puts it on the clipboard.
document.querySelectorAll('[data-secret]').forEach(function (box) {
  var left = Number(box.getAttribute('data-seconds')) || 30;
  var clock = document.getElementById('secret-clock');
  var copy = document.getElementById('secret-copy');
  var value = box.textContent;
  function tick() {
    if (clock) clock.textContent = left + ' s';
    if (left-- <= 0) {
      box.textContent = 'Hidden. Reveal it again if you need it.';
      box.removeAttribute('data-secret');
      if (copy) copy.remove();
      value = '';
      return;
    }
    setTimeout(tick, 1000);
  }
  if (copy) copy.addEventListener('click', function () {
    if (navigator.clipboard && value) navigator.clipboard.writeText(value).then(function () { copy.textContent = 'Copied'; });
  });
  tick();
});
`;
