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
