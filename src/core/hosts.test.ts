import { describe, expect, it } from 'vitest';
import { isLinkLocalOrMetadata } from './hosts.js';

// Regression: IPv4-compatible (`[::169.254.169.254]`) and NAT64 (`[64:ff9b::169.254.169.254]`) spellings of the
// metadata address were accepted as webhook receivers.
describe('isLinkLocalOrMetadata, on hosts as the URL parser writes them', () => {
  const host = (url: string) => new URL(url).hostname;

  it.each([
    ['https://169.254.169.254/', 'the metadata address'],
    ['https://169.254.0.1/', 'link-local IPv4'],
    ['http://2852039166/', 'one decimal number'],
    ['http://0xa9.0xfe.0xa9.0xfe/', 'hexadecimal parts'],
    ['http://0251.0376.0251.0376/', 'octal parts'],
    ['http://169.254.43518/', 'three parts, the last 16 bits'],
    ['https://169.254.169.254./', 'a trailing dot'],
    ['https://[::ffff:169.254.169.254]/', 'IPv4-mapped'],
    ['https://[::ffff:a9fe:a9fe]/', 'IPv4-mapped, in hex'],
    ['https://[::169.254.169.254]/', 'IPv4-compatible'],
    ['https://[0:0:0:0:0:0:169.254.169.254]/', 'IPv4-compatible, uncompressed'],
    ['https://[::ffff:0:a9fe:a9fe]/', 'IPv4-translated (SIIT)'],
    ['https://[64:ff9b::169.254.169.254]/', 'NAT64 well-known prefix'],
    ['https://[64:ff9b::a9fe:a9fe]/', 'NAT64 well-known prefix, in hex'],
    ['https://[64:ff9b:1::a9fe:a9fe]/', 'NAT64 local-use prefix'],
    ['https://[2002:a9fe:a9fe::]/', '6to4'],
    ['https://[2002:a9fe:a9fe:1::1]/', '6to4, a host inside the /48'],
    ['https://[2001:0:a9fe:a9fe::1]/', 'Teredo, the server'],
    ['https://[2001:0:4136:e378:8000:63bf:5601:5601]/', 'Teredo, the client (bits inverted)'],
    ['https://[fe80::1]/', 'link-local IPv6'],
    ['https://[febf:ffff::1]/', 'the top of fe80::/10'],
    ['https://[fd00:ec2::254]/', "AWS's IPv6 metadata"],
    ['https://100.100.100.200/', "Alibaba Cloud's metadata"],
    ['https://[::ffff:100.100.100.200]/', "Alibaba Cloud's metadata, IPv4-mapped"],
    ['https://metadata.google.internal/', "Google Cloud's metadata name"],
    ['https://metadata.google.internal./', 'with a trailing dot'],
  ])('refuses %s (%s)', (url) => {
    expect(isLinkLocalOrMetadata(host(url))).toBe(true);
  });

  it.each([
    ['https://[::1]/', 'IPv6 loopback (::0.0.0.1 in IPv4-compatible terms)'],
    ['https://[::]/', 'the unspecified address'],
    ['https://127.0.0.1/', 'IPv4 loopback'],
    ['https://10.0.0.1/', 'a private address'],
    ['https://169.253.255.255/', 'just below 169.254/16'],
    ['https://169.255.0.1/', 'just above 169.254/16'],
    ['https://100.100.100.201/', "beside Alibaba Cloud's metadata"],
    ['https://[64:ff9b::8.8.8.8]/', 'NAT64 of a public address'],
    ['https://[64:ff9b:2::a9fe:a9fe]/', 'outside both NAT64 prefixes'],
    ['https://[2002:808:808::]/', '6to4 of a public address'],
    ['https://[2003:a9fe:a9fe::]/', 'outside 2002::/16'],
    ['https://[2001:db8::a9fe:a9fe]/', 'documentation prefix, not Teredo'],
    ['https://[fec0::1]/', 'just above fe80::/10'],
    ['https://[fd00:ec2::253]/', "beside AWS's IPv6 metadata"],
    ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
    ['https://example.com/', 'a name'],
    ['https://metadata.google.internal.example.com/', 'a name that only starts like it'],
  ])('allows %s (%s)', (url) => {
    expect(isLinkLocalOrMetadata(host(url))).toBe(false);
  });
});
