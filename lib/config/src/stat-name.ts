// upstream's `ipv4Regex` (src/utils/utilities.go): octets unchecked, matched anywhere, leftmost first
const DOTTED_IPV4 = /\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/g;

/**
 * A statistic's name as upstream's `SanitizeStatName` writes it: `:` and `|` become `_`, and so do the dots of
 * every dotted IPv4 address in it (`remote_address_50.0.0.5` → `remote_address_50_0_0_5`, so that statsd
 * does not read the address as four levels). Upstream applies it to `<domain>.<descriptor>` as a whole, so an
 * address may straddle the two. The result is as long as `name`: its parts can be cut out by position.
 */
export function sanitizeStatName(name: string): string {
  return name.replace(/[:|]/g, '_').replace(DOTTED_IPV4, (ip) => ip.replaceAll('.', '_'));
}

/**
 * The statistics name of the rule `<descriptor>` (`key_value.key2…`) of `domain`, sanitised whole, and the
 * two parts the ratelimit service labels its `/metrics` series with and the operator's shadow report reads:
 * the domain sanitised alone, the descriptor cut from the whole name.
 */
export function ruleStatName(
  domain: string,
  descriptor: string,
): { name: string; domain: string; descriptor: string } {
  const name = sanitizeStatName(`${domain}.${descriptor}`);
  return { name, domain: sanitizeStatName(domain), descriptor: name.slice(domain.length + 1) };
}
