import { customRandom } from 'nanoid';
import { describe, expect, it } from 'vitest';
import { SeededRandom, type IdPrefix } from './random.js';

/**
 * The id maker gives, byte for byte, what nanoid's `customRandom` gives from the same seeded
 * bytes: a seed names the same ids it did when nanoid built them, so a user's recorded ids and
 * this project's documented examples stay true.
 */
describe('SeededRandom.id', () => {
  it('equals nanoid customRandom over the same stream, for every prefix and 2,000 draws each', () => {
    const ours = new SeededRandom(42);
    const reference = new SeededRandom(42);
    const prefixes: IdPrefix[] = ['call', 'msg', 'evt', 'req', 'dlv', 'whsec'];
    for (const prefix of prefixes) {
      const next = reference.stream(`id:${prefix}`);
      const theirs = customRandom('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 16, (size) => {
        const bytes = new Uint8Array(size);
        for (let i = 0; i < size; i++) bytes[i] = next() & 0xff;
        return bytes;
      });
      for (let i = 0; i < 2000; i++) expect(ours.id(prefix)).toBe(`${prefix}_${theirs()}`);
    }
  });

  it('streams are independent per prefix and start again after reset', () => {
    const a = new SeededRandom(7);
    const first = a.id('call');
    a.id('req');
    a.id('req');
    const second = a.id('call');
    const b = new SeededRandom(7);
    expect([b.id('call'), b.id('call')]).toEqual([first, second]);
    a.reset();
    expect(a.id('call')).toBe(first);
    expect(first).toMatch(/^call_[0-9A-Za-z]{16}$/);
  });
});
