/**
 * Host names as the WHATWG URL parser writes them (lower case, IPv4 in dotted decimal, IPv6 in
 * brackets and compressed), sorted by what they reach. The parser has already turned other
 * spellings (`http://2130706433/`, `0x7f.1`, `LOCALHOST`, `[0:0:0:0:0:0:0:1]`) into these forms.
 */

/** 127.0.0.0/8, `[::1]` and IPv4-mapped loopback (`[::ffff:7f00:1]`). */
export function isLoopbackAddress(hostname: string): boolean {
  return (
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname) || hostname === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname)
  );
}

/**
 * A host that reaches this machine: a loopback address, `localhost` or a name under
 * `.localhost` (a trailing dot ignored), or the unspecified address (`0.0.0.0`, `[::]`), which
 * connects to this machine on Linux and macOS.
 */
export function isThisMachine(hostname: string): boolean {
  const name = hostname.replace(/\.$/, '');
  return (
    isLoopbackAddress(name) ||
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '0.0.0.0' ||
    name === '[::]' ||
    name === '[::ffff:0:0]'
  );
}

/** A DNS host name as a user writes one (`api.svc.com`, `DevBox.local.`): labels of letters, digits and inner hyphens. */
export const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?$/;

/** The eight 16-bit groups of an IPv6 address. */
type Groups = [number, number, number, number, number, number, number, number];

/** An IPv6 host as the URL parser writes it (`[64:ff9b::a9fe:a9fe]`): its eight 16-bit groups, or null. */
function ipv6Groups(hostname: string): Groups | null {
  const inner = /^\[([0-9a-f:]+)\]$/.exec(hostname)?.[1];
  if (inner === undefined) return null;
  const [head, tail, more] = inner.split('::');
  if (more !== undefined) return null;
  const words = (part: string | undefined) => (part ? part.split(':').map((word) => Number.parseInt(word, 16)) : []);
  const front = words(head);
  const back = tail === undefined ? [] : words(tail);
  const groups = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return isGroups(groups) && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

const isGroups = (words: number[]): words is Groups => words.length === 8;

/** Two 16-bit groups as an IPv4 address. */
const v4 = (hi: number, lo: number): number[] => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];

/**
 * The IPv4 addresses an IPv6 address carries, by the standards that embed one (each reaches, or
 * is translated to, that IPv4 host):
 *
 * | form | prefix | where the IPv4 address sits |
 * | --- | --- | --- |
 * | IPv4-compatible (RFC 4291, deprecated) | `::/96` | the last 32 bits |
 * | IPv4-mapped (RFC 4291) | `::ffff:0:0/96` | the last 32 bits |
 * | IPv4-translated (RFC 2765) | `::ffff:0:0:0/96` | the last 32 bits |
 * | NAT64, well-known and local-use (RFC 6052, RFC 8215) | `64:ff9b::/96`, `64:ff9b:1::/48` | the last 32 bits (the /96 form) |
 * | 6to4 (RFC 3056) | `2002::/16` | bits 16 to 47 |
 * | Teredo (RFC 4380) | `2001:0::/32` | the server in bits 32 to 63, the client in the last 32 bits, inverted |
 */
function embeddedIpv4(g: Groups): number[][] {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const last = v4(g[6], g[7]);
  if (zeros(0, 6) || (zeros(0, 5) && g[5] === 0xffff) || (zeros(0, 4) && g[4] === 0xffff && g[5] === 0)) return [last];
  if (g[0] === 0x64 && g[1] === 0xff9b && (g[2] === 0 || g[2] === 1)) return [last];
  if (g[0] === 0x2002) return [v4(g[1], g[2])];
  if (g[0] === 0x2001 && g[1] === 0) return [v4(g[2], g[3]), v4(g[6] ^ 0xffff, g[7] ^ 0xffff)];
  return [];
}

/** The IPv4 address a hostname names, dotted or inside an IPv6 address (see {@link embeddedIpv4}). */
function ipv4sOf(hostname: string): number[][] {
  const dotted = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  if (dotted) return [dotted.slice(1).map(Number)];
  const groups = ipv6Groups(hostname);
  return groups ? embeddedIpv4(groups) : [];
}

/** Link-local IPv4 (`169.254.0.0/16`, which holds most clouds' metadata service), and Alibaba Cloud's metadata address. */
const isLinkLocalOrMetadataV4 = ([a, b, c, d]: number[]) => (a === 169 && b === 254) || (a === 100 && b === 100 && c === 100 && d === 200);

/** `fd00:ec2::254`, AWS's instance metadata service over IPv6. */
const AWS_METADATA_V6 = [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254];

/**
 * Link-local and cloud-metadata addresses: a sandbox that runs in CI must never be the
 * way a test (or a hostile input) reaches a machine's instance metadata. The URL parser has
 * already turned other IPv4 spellings (`http://2852039166/`, `0xa9.0xfe...`, `0251.0376...`)
 * into dotted decimal and IPv6 into compressed hex; an IPv6 address that embeds such an IPv4
 * address (`[::a9fe:a9fe]`, `[64:ff9b::a9fe:a9fe]`, `[2002:a9fe:a9fe::]`) is refused with it.
 * The one rule for every URL the package sends to: webhook subscriptions and check-receiver.
 */
export function isLinkLocalOrMetadata(hostname: string): boolean {
  if (ipv4sOf(hostname).some(isLinkLocalOrMetadataV4)) return true;
  const groups = ipv6Groups(hostname);
  // fe80::/10, the IPv6 link-local block.
  if (groups) return (groups[0] & 0xffc0) === 0xfe80 || groups.every((g, i) => g === AWS_METADATA_V6[i]);
  return hostname === 'metadata.google.internal' || hostname === 'metadata.google.internal.';
}
