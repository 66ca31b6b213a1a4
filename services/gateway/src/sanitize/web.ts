import { phpTrim, stripTags, toPhpString, truncateChars } from './php-builtins.js';

// PW `email()`, `url()` and `httpUrl()` with their default options: a valid value, or ''.

const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const LOCAL_PART = `(?:${ATEXT}+(?:\\.${ATEXT}+)*|"(?:[\\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\[\\x20-\\x7E])*")`;
const DOMAIN_LABEL = '(?:xn--)?[A-Za-z0-9]+(?:-+[A-Za-z0-9]+)*';
const TOP_LEVEL = '(?:[A-Za-z][A-Za-z0-9]*|xn--[A-Za-z0-9]+)(?:-+[A-Za-z0-9]+)*';
/** PHP's FILTER_VALIDATE_EMAIL without the Unicode flag or IP-literal domains. */
const EMAIL = new RegExp(`^(${LOCAL_PART})@((?:${DOMAIN_LABEL}\\.)+${TOP_LEVEL})$`);

const MAX_EMAIL_CHARS = 254;
const MAX_LOCAL_PART_CHARS = 64;
const MAX_DOMAIN_LABEL_CHARS = 63;
const MAX_URL_CHARS = 4096;

/** Schemes `url` refuses: PW's defaults (file, javascript) plus the other script-carrying ones. */
const BLOCKED_SCHEMES = new Set(['javascript', 'vbscript', 'data', 'file']);
/** Schemes whose URLs need `//` and a host. */
const HOST_SCHEMES = new Set(['http', 'https', 'ftp', 'ws', 'wss']);

/** A scheme prefix, unless the colon starts a port ("example.com:8080/x" has no scheme). */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):(?!\d+(?:[/?#]|$))/;
/** PW's test for "most likely a domain name" in a URL given without a scheme. */
const BARE_DOMAIN = /^([^\s_.]+\.)?[^-_\s.][^\s_.]+\.([a-z]{2,6})([./:#]|$)/i;
/** A host PHP's FILTER_VALIDATE_URL accepts (underscores allowed, as PW patches in). */
const HOSTNAME =
  /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?)$/;

function isValidEmail(s: string): boolean {
  const m = EMAIL.exec(s);
  if (m?.[1] === undefined || m[2] === undefined) return false;
  return (
    s.length <= MAX_EMAIL_CHARS &&
    m[1].length <= MAX_LOCAL_PART_CHARS &&
    m[2].split('.').every((label) => label.length <= MAX_DOMAIN_LABEL_CHARS)
  );
}

/**
 * A valid address or ''. Surrounding whitespace, dots and `@` are trimmed and spaces removed first;
 * `John Smith <js@example.com>` gives `js@example.com`. Internationalised domains are refused.
 */
export function email(value: unknown): string {
  if (value === '0' || !bool(value)) return '';
  const s = phpTrim(phpTrim(toPhpString(value)), '.@').replaceAll(' ', '');
  if (s.indexOf('@') <= 0) return '';
  if (isValidEmail(s)) return s;
  const open = s.indexOf('<');
  if (open >= 0 && s.indexOf('>') > open + 3) {
    return email(s.slice(open + 1).split('>')[0]);
  }
  return '';
}

/** PHP truthiness, for `empty()` checks. */
function bool(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return value !== '' && Boolean(value);
}

/**
 * PW `text()` with `newlineReplacement: true` (first line only, tags stripped, trimmed), then quotes and
 * control characters removed. Spaces stay: URL validation refuses them in a host, keeps them in a path.
 */
function prepareUrl(value: unknown): string {
  const firstLine = toPhpString(value).replaceAll('\r', '\n').split('\n')[0] ?? '';
  const s = truncateChars(phpTrim(stripTags(firstLine)), MAX_URL_CHARS);
  return s.replace(/["']|%2[27]/gi, '').replace(/\p{Cc}/gu, '');
}

function isValidAbsoluteUrl(s: string, scheme: string): boolean {
  if (!URL.canParse(s)) return false;
  if (!HOST_SCHEMES.has(scheme)) return true;
  const authority = /^[^:]+:\/\/([^/?#]*)/.exec(s)?.[1];
  // no host, or a non-ASCII one: PW's url() refuses internationalised domains by default
  if (authority === undefined || authority === '' || !/^[\x21-\x7E]+$/.test(authority)) return false;
  return HOSTNAME.test(new URL(s).hostname);
}

function withLowerCaseScheme(s: string, scheme: string): string {
  return scheme.toLowerCase() + s.slice(scheme.length);
}

/**
 * A valid URL or ''. Only the first line is read; tags, quotes and control characters are removed.
 * `javascript:`, `vbscript:`, `data:` and `file:` URLs give ''. A bare domain gets `http://`
 * ("example.com/a" → "http://example.com/a"); other values without a scheme are kept as relative URLs.
 */
export function url(value: unknown): string {
  let s = prepareUrl(value);
  if (s === '') return '';
  const scheme = SCHEME.exec(s)?.[1];
  if (scheme !== undefined) {
    const lower = scheme.toLowerCase();
    if (BLOCKED_SCHEMES.has(lower)) return '';
    s = withLowerCaseScheme(s, scheme);
    return isValidAbsoluteUrl(s, lower) ? s : '';
  }
  // an unrecognised scheme ("://example.com") is dropped, as in PW
  if (s.includes('://')) s = s.replace(/^[^?]*?:\/\//, '');
  const dot = s.indexOf('.');
  const slash = s.includes('/') ? s.indexOf('/') : dot + 1;
  if (dot > 0 && slash > dot && BARE_DOMAIN.test(s)) {
    const absolute = `http://${s}`;
    return isValidAbsoluteUrl(absolute, 'http') ? absolute : '';
  }
  return (s.startsWith('/') ? '/' : '') + s.replace(/^\/+/, '');
}

/** Like `url`, but only http and https: a value without a scheme gets `http://`; relative URLs give ''. */
export function httpUrl(value: unknown): string {
  const s = prepareUrl(value);
  if (s === '') return '';
  const scheme = SCHEME.exec(s)?.[1];
  if (scheme !== undefined) {
    const lower = scheme.toLowerCase();
    if (lower !== 'http' && lower !== 'https') return '';
    const absolute = withLowerCaseScheme(s, scheme);
    return isValidAbsoluteUrl(absolute, lower) ? absolute : '';
  }
  if (s.startsWith('/')) return '';
  const absolute = `http://${s}`;
  return isValidAbsoluteUrl(absolute, 'http') ? absolute : '';
}
