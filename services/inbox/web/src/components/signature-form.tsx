import { useState } from 'preact/hooks';
import { ErrorText } from './error-text.js';
import { callApi, endpointPath, type EndpointView, type SignatureView } from '../api.js';

const PROVIDERS = {
  github: 'GitHub (X-Hub-Signature-256)',
  stripe: 'Stripe (Stripe-Signature)',
  slack: 'Slack (X-Slack-Signature v0)',
  shopify: 'Shopify (X-Shopify-Hmac-Sha256)',
  'standard-webhooks': 'Standard Webhooks / Svix',
  hmac: 'Generic HMAC',
} as const;
type Provider = keyof typeof PROVIDERS;
const TIMED = new Set<Provider>(['stripe', 'slack', 'standard-webhooks']);

/**
 * The endpoint's signature preset: which provider's scheme each capture is checked against, with the
 * secret (write-only: the inbox never shows it back). Managed endpoints take theirs from the resource.
 */
export function SignatureForm(p: {
  endpoint: EndpointView;
  token: string | undefined;
  onChanged: (signature: SignatureView | null) => void;
}) {
  const current = p.endpoint.signature;
  const [open, setOpen] = useState(false);
  const [provider, setProvider] = useState<Provider>(current?.provider ?? 'github');
  const [secret, setSecret] = useState('');
  const [tolerance, setTolerance] = useState('300');
  const [header, setHeader] = useState('X-Signature');
  const [algorithm, setAlgorithm] = useState('sha256');
  const [encoding, setEncoding] = useState('hex');
  const [prefix, setPrefix] = useState('');
  const [error, setError] = useState('');
  const path = endpointPath(p.endpoint.id, '/signature');

  const run = async (change: () => Promise<SignatureView | null>) => {
    try {
      p.onChanged(await change());
      setOpen(false);
      setSecret('');
      setError('');
    } catch (err: unknown) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const save = () =>
    run(() =>
      callApi<SignatureView>('PUT', path, {
        token: p.token,
        body: {
          provider,
          secret,
          ...(TIMED.has(provider) ? { toleranceSeconds: Number(tolerance) } : {}),
          ...(provider === 'hmac' ? { header, algorithm, encoding, prefix } : {}),
        },
      }),
    );
  const remove = () => run(() => callApi<null>('DELETE', path, { token: p.token }).then(() => null));

  const summary = current ? `Signatures: ${PROVIDERS[current.provider]}` : 'Signatures: not checked';
  if (p.endpoint.kind === 'managed') return <span class="sig-setting">{summary}</span>;
  if (!open) {
    return (
      <span class="sig-setting">
        {summary}{' '}
        <button type="button" class="link" onClick={() => setOpen(true)}>
          {current ? 'Change' : 'Set up'}
        </button>
      </span>
    );
  }
  return (
    <form
      class="sig-form"
      aria-label="Signature verification"
      onSubmit={(ev) => {
        ev.preventDefault();
        void save();
      }}
    >
      <label>
        Provider
        <select value={provider} onChange={(ev) => setProvider(ev.currentTarget.value as Provider)}>
          {Object.entries(PROVIDERS).map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </label>
      <label>
        Secret
        <input
          type="password"
          autoComplete="off"
          required
          maxLength={1024}
          value={secret}
          onInput={(ev) => setSecret(ev.currentTarget.value)}
        />
      </label>
      {TIMED.has(provider) && (
        <label>
          Tolerance (s)
          <input
            type="number"
            min={1}
            max={86400}
            value={tolerance}
            onInput={(ev) => setTolerance(ev.currentTarget.value)}
          />
        </label>
      )}
      {provider === 'hmac' && (
        <>
          <label>
            Header
            <input value={header} onInput={(ev) => setHeader(ev.currentTarget.value)} />
          </label>
          <label>
            Algorithm
            <select value={algorithm} onChange={(ev) => setAlgorithm(ev.currentTarget.value)}>
              <option>sha1</option>
              <option>sha256</option>
              <option>sha512</option>
            </select>
          </label>
          <label>
            Encoding
            <select value={encoding} onChange={(ev) => setEncoding(ev.currentTarget.value)}>
              <option>hex</option>
              <option>base64</option>
            </select>
          </label>
          <label>
            Prefix
            <input value={prefix} placeholder="sha256=" onInput={(ev) => setPrefix(ev.currentTarget.value)} />
          </label>
        </>
      )}
      <button type="submit" class="primary">
        Save
      </button>
      {current && (
        <button type="button" onClick={() => void remove()}>
          Stop checking
        </button>
      )}
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <ErrorText text={error} />
    </form>
  );
}
