import { CALLBACK_PATH } from '../observability/ui/ui-sign-in.ts';
import { OperatorConfigError, type SettingReader } from './setting-reader.ts';
import {
  findSecretSetting,
  readSecretSetting,
  type BlankSecret,
  type SecretSetting,
} from './secret-setting.ts';

/** KADDON_UI_OIDC_* and KADDON_UI_SESSION_*: sign-in to the status page (docs/ui.md "Signing in"). */
export interface UiSignInConfig {
  readonly issuer: URL;
  readonly clientId: string;
  /** None: a public client, PKCE alone. */
  readonly clientSecret: SecretSetting | undefined;
  readonly redirectUrl: URL;
  readonly scopes: string;
  readonly usernameClaim: string;
  readonly usernamePrefix: string;
  readonly groupsClaim: string;
  readonly groupsPrefix: string;
  /** None: a random key at each start, so a restart ends every session. */
  readonly sessionKey: SecretSetting | undefined;
  readonly sessionTtlMs: number;
}

const DEFAULT_SESSION_TTL_MS = 8 * 3_600_000;

/** What a blank client secret or session key is refused with, at the start and at each read. */
export const CLIENT_SECRET_BLANK: BlankSecret = {
  why: 'a client secret of nothing is no secret; leave it unset for a public client',
  hint: 'Put the client secret the provider gave there, or unset both settings for a public client (PKCE alone).',
};
export const SESSION_KEY_BLANK: BlankSecret = {
  why: 'a session key of nothing lets anyone make a session',
  hint: 'Put at least 32 random bytes there (for example the output of `openssl rand -hex 32`).',
};
/** A session key shorter than this is guessable in principle; HMAC-SHA256 wants 32 bytes. */
const MIN_SESSION_KEY_BYTES = 32;

/** Sign-in is on when KADDON_UI_OIDC_ISSUER is set; then the client and the way back must be too. */
export function uiSignInConfig(
  read: SettingReader,
  uiAuth: 'kubernetes' | 'off',
): UiSignInConfig | undefined {
  const issuerSetting = read.find('uiOidcIssuer');
  if (issuerSetting === undefined) {
    const stray = (
      ['uiOidcClientId', 'uiOidcRedirectUrl', 'uiOidcClientSecret', 'uiOidcClientSecretFile'] as const
    )
      .map((key) => read.find(key))
      .find((found) => found !== undefined);
    if (stray !== undefined)
      throw new OperatorConfigError(
        stray.name,
        'is set but KADDON_UI_OIDC_ISSUER is not: sign-in needs the provider',
        "Set KADDON_UI_OIDC_ISSUER to the provider's issuer URL, or unset the other KADDON_UI_OIDC_ settings.",
      );
    return undefined;
  }
  if (uiAuth === 'off')
    throw new OperatorConfigError(
      issuerSetting.name,
      'is set with KADDON_UI_AUTH=off: with no access check there is nothing to sign in to',
      'Unset KADDON_UI_AUTH (kubernetes is the default), or unset the KADDON_UI_OIDC_ settings.',
    );
  const issuer = url(issuerSetting.name, issuerSetting.value);
  requireTls(issuerSetting.name, issuer);
  const clientId = read.find('uiOidcClientId');
  if (clientId === undefined)
    throw new OperatorConfigError(
      'KADDON_UI_OIDC_CLIENT_ID',
      'is not set, and KADDON_UI_OIDC_ISSUER is',
      'Set it to the client ID the provider gave the status page.',
    );
  const redirect = read.find('uiOidcRedirectUrl');
  if (redirect === undefined)
    throw new OperatorConfigError(
      'KADDON_UI_OIDC_REDIRECT_URL',
      'is not set, and KADDON_UI_OIDC_ISSUER is',
      `Set it to the page's address as users reach it, ending in ${CALLBACK_PATH} (for example https://kaddon.example.com${CALLBACK_PATH}), and register it with the provider.`,
    );
  const redirectUrl = url(redirect.name, redirect.value);
  if (redirectUrl.pathname !== CALLBACK_PATH || redirectUrl.search !== '' || redirectUrl.hash !== '')
    throw new OperatorConfigError(
      redirect.name,
      `'${redirect.value}' does not end in ${CALLBACK_PATH}: the provider must send the browser back to the page's own callback`,
      `Use https://HOST${CALLBACK_PATH}, with the host users reach the page at; the page must be served at /ui/ there.`,
    );
  requireTls(redirect.name, redirectUrl);
  return {
    issuer,
    clientId: clientId.value,
    clientSecret: findSecretSetting(
      read,
      'uiOidcClientSecret',
      'uiOidcClientSecretFile',
      CLIENT_SECRET_BLANK,
    ),
    redirectUrl,
    scopes: scopes(read),
    usernameClaim: read.text('uiOidcUsernameClaim', 'sub'),
    usernamePrefix: read.text('uiOidcUsernamePrefix', ''),
    groupsClaim: read.text('uiOidcGroupsClaim', 'groups'),
    groupsPrefix: read.text('uiOidcGroupsPrefix', ''),
    sessionKey: sessionKey(read),
    sessionTtlMs: read.durationMs('uiSessionTtl', DEFAULT_SESSION_TTL_MS),
  };
}

function url(setting: string, value: string): URL {
  try {
    const parsed = new URL(value);
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') return parsed;
  } catch {
    // Said below.
  }
  throw new OperatorConfigError(
    setting,
    `'${value}' is not an http(s) URL`,
    'Write it like https://login.example.com/.',
  );
}

/** Plain http only to this machine (a test's provider): anywhere else a session could be read on the way. */
function requireTls(setting: string, value: URL): void {
  if (value.protocol === 'https:' || ['127.0.0.1', 'localhost', '[::1]'].includes(value.hostname)) return;
  throw new OperatorConfigError(
    setting,
    `'${value.href}' is plain http to another host: sign-in needs https`,
    'Use the https:// address; plain http is accepted only for 127.0.0.1, localhost and [::1].',
  );
}

/** `openid` is always asked for: without it there is no ID token. */
function scopes(read: SettingReader): string {
  const listed = read
    .text('uiOidcScopes', 'openid profile email')
    .split(/[\s,]+/u)
    .filter((scope) => scope !== '');
  return [...new Set(['openid', ...listed])].join(' ');
}

function sessionKey(read: SettingReader): SecretSetting | undefined {
  const secret = findSecretSetting(read, 'uiSessionKey', 'uiSessionKeyFile', SESSION_KEY_BLANK);
  if (
    secret !== undefined &&
    Buffer.byteLength(readSecretSetting(secret, SESSION_KEY_BLANK)) < MIN_SESSION_KEY_BYTES
  )
    throw new OperatorConfigError(
      secret.setting,
      `holds fewer than ${String(MIN_SESSION_KEY_BYTES)} bytes: a short key can be guessed`,
      'Put at least 32 random bytes there (for example the output of `openssl rand -hex 32`).',
    );
  return secret;
}
