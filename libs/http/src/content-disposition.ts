/**
 * `attachment` with the file's name as RFC 6266 asks: a plain ASCII `filename` for old
 * clients and `filename*` (RFC 5987, UTF-8) with the exact name. Whatever the stored name
 * holds (control characters, right-to-left overrides, emoji, lone surrogates) the result is
 * a valid header value: visible ASCII only, so setting it can never fail once a secret is released.
 */
export function attachmentDisposition(fileName: string): string {
  const fallback = asciiFallback(fileName);
  const exact = rfc5987(fileName);
  const plain = fallback === fileName && exact === fileName;
  return plain ? `attachment; filename="${fallback}"` : `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/** Visible ASCII but for the quote, the backslash and the percent sign; anything else becomes `_`. */
function asciiFallback(fileName: string): string {
  const text = [...fileName].map((c) => (/^[\x20-\x7e]$/.test(c) && !/["\\%]/.test(c) ? c : '_')).join('');
  return text.trim() === '' ? 'download' : text;
}

/** RFC 5987 attr-char kept, every other UTF-8 byte percent-encoded (a lone surrogate as U+FFFD). */
function rfc5987(fileName: string): string {
  let out = '';
  for (const byte of Buffer.from(fileName, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9!#$&+.^_`|~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out || 'download';
}
