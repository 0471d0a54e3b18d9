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

/** The IPv4 address a hostname names, also inside an IPv4-mapped IPv6 address (`[::ffff:a9fe:a9fe]`). */
function ipv4Of(hostname: string): number[] | null {
  const dotted = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  if (dotted) return dotted.slice(1).map(Number);
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(hostname);
  if (!mapped) return null;
  const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

/**
 * Link-local and cloud-metadata addresses: a sandbox that runs in CI must never be the
 * way a test (or a hostile input) reaches a machine's instance metadata. The URL parser has
 * already turned other spellings (`http://2852039166/`, `0xa9.0xfe...`) into these forms.
 * The one rule for every URL the package sends to: webhook subscriptions and check-receiver.
 */
export function isLinkLocalOrMetadata(hostname: string): boolean {
  const v4 = ipv4Of(hostname);
  if (v4) return v4[0] === 169 && v4[1] === 254;
  const v6 = /^\[([0-9a-f:.]+)\]$/.exec(hostname)?.[1];
  if (v6) return /^fe[89ab][0-9a-f]?:/.test(v6) || v6 === 'fd00:ec2::254';
  return hostname === 'metadata.google.internal' || hostname === 'metadata.google.internal.';
}
