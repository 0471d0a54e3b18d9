// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clock, copyId, copyShort, day, h, longStamp, plural, seconds, shorten, span, stamp, time } from '../../console/dom.js';
import { XSS } from './fixtures.js';

const at = (text: string) => Date.parse(text);

describe("the console's formatters (console/dom.js)", () => {
  it("print a virtual instant in UTC, the sandbox clock's zone, whatever the offset it was written with", () => {
    expect(clock(at('2026-01-01T00:01:05Z'))).toBe('00:01:05');
    expect(clock(at('2026-01-01T00:01:05.250Z'))).toBe('00:01:05.250');
    expect(clock(at('2026-01-01T23:59:59.007Z'))).toBe('23:59:59.007');
    expect(day(at('2026-12-31T12:00:00Z'))).toBe('Dec 31');
    expect(stamp('2026-01-01T00:01:05.000Z')).toBe('Jan 1 00:01:05');
    expect(stamp('2026-01-02T01:00:00.000Z')).toBe('Jan 2 01:00:00');
    expect(stamp('2026-03-01T01:30:00+02:00')).toBe('Feb 28 23:30:00');
    expect(longStamp('2026-01-02T01:00:00.000Z')).toBe('2026-01-02 01:00:00');
    expect(longStamp('2026-01-01T00:00:00.500Z')).toBe('2026-01-01 00:00:00.500');
    // What is not an instant is printed as it is.
    expect(stamp('soon')).toBe('soon');
    expect(longStamp('')).toBe('');
  });

  it('print a span of milliseconds compactly: two units at most, none that is zero after the first', () => {
    expect(span(0)).toBe('0 ms');
    expect(span(850)).toBe('850 ms');
    expect(span(12.4)).toBe('12 ms');
    expect(span(1000)).toBe('1 s');
    expect(span(5000)).toBe('5 s');
    expect(span(59_499)).toBe('59 s');
    expect(span(60_000)).toBe('1 m');
    expect(span(65_000)).toBe('1 m 5 s');
    expect(span(3600_000)).toBe('1 h');
    expect(span(61_410_000)).toBe('17 h 3 m');
    expect(span(25 * 3600_000)).toBe('25 h');
    expect(span(47 * 3600_000 + 59 * 60_000)).toBe('47 h 59 m');
    expect(span(2 * 86_400_000 + 3600_000)).toBe('2 d 1 h');
    expect(span(7 * 86_400_000)).toBe('7 d');
  });

  it("print a call's duration in seconds up to 2 minutes, as a span after; nothing while it has none", () => {
    expect(seconds(0)).toBe('0 s');
    expect(seconds(60)).toBe('60 s');
    expect(seconds(119)).toBe('119 s');
    expect(seconds(120)).toBe('2 m');
    expect(seconds(3725)).toBe('1 h 2 m');
    expect(seconds(null)).toBe('');
    expect(seconds(undefined)).toBe('');
  });

  it('count things in words', () => {
    expect(plural(1, 'attempt')).toBe('1 attempt');
    expect(plural(0, 'attempt')).toBe('0 attempts');
    expect(plural(12, 'attempt')).toBe('12 attempts');
    expect(plural(2, 'reply', 'replies')).toBe('2 replies');
  });

  it('make a <time> of a virtual instant', () => {
    const el = time('2026-01-01T17:04:35.000Z');
    expect(el.outerHTML).toBe('<time datetime="2026-01-01T17:04:35.000Z" class="ts">Jan 1 17:04:35</time>');
    expect(time('2026-01-01T00:00:00.000Z', 'big').className).toBe('big');
  });
});

describe("the console's element builder h() (console/dom.js)", () => {
  it('sets attributes, skips null, undefined and false, writes true as present, listens to on* and sets CSS custom properties', () => {
    const onclick = vi.fn();
    const el = h(
      'button',
      {
        class: 'replay',
        'aria-label': 'Replay',
        'data-replayed': true,
        hidden: false,
        title: null,
        'data-x': undefined,
        tabindex: 0,
        onclick,
        vars: { '--x': '12.500%', '--w': '3.000%' },
      },
      'Replay',
    );
    expect(el.getAttribute('class')).toBe('replay');
    expect(el.getAttribute('aria-label')).toBe('Replay');
    expect(el.getAttribute('data-replayed')).toBe('');
    expect(el.getAttribute('tabindex')).toBe('0');
    for (const absent of ['hidden', 'title', 'data-x', 'onclick', 'vars']) expect(el.hasAttribute(absent), absent).toBe(false);
    expect(el.style.getPropertyValue('--x')).toBe('12.500%');
    expect(el.style.getPropertyValue('--w')).toBe('3.000%');
    el.click();
    expect(onclick).toHaveBeenCalledOnce();
  });

  it('appends children: nodes, strings and numbers as text, arrays flattened, null, undefined and false skipped', () => {
    const el = h('ul', null, [h('li', null, 'a'), [h('li', null, 'b'), null]], false, undefined, h('li', null, 3, ' ', 0));
    expect(el.outerHTML).toBe('<ul><li>a</li><li>b</li><li>3 0</li></ul>');
  });

  it('writes untrusted text as text and untrusted attribute values as values, never as markup', () => {
    const el = h('p', { title: `"><script>alert(1)</script>`, 'data-id': XSS }, XSS, ' and ', '<b>bold</b>');
    expect(el.children).toHaveLength(0);
    expect(el.textContent).toBe(`${XSS} and <b>bold</b>`);
    expect(el.getAttribute('title')).toBe(`"><script>alert(1)</script>`);
    expect(el.getAttribute('data-id')).toBe(XSS);
    expect(el.innerHTML).toBe('&lt;img src=x onerror=alert(1)&gt; and &lt;b&gt;bold&lt;/b&gt;');
  });
});

describe('an id, whole and copyable in one click (copyId, console/dom.js)', () => {
  const ID = 'dlv_3Mm4Nn5Pp6Qq7Rr8';
  afterEach(() => {
    vi.restoreAllMocks();
    // The no-clipboard case shadows the navigator's getter with an own property.
    delete (navigator as { clipboard?: unknown }).clipboard;
    document.body.replaceChildren();
    getSelection()?.removeAllRanges();
  });

  it('is a button whose text is the whole id', () => {
    const button = copyId(ID, 'subject');
    expect(button.tagName).toBe('BUTTON');
    expect(button.getAttribute('type')).toBe('button');
    expect(button.className).toBe('id subject');
    expect(button.textContent).toBe(ID);
    expect(button.getAttribute('data-copy')).toBe(ID);
    // Its name is the id itself ("Copy" its description): no aria-label a test's getByLabel could find.
    expect(button.hasAttribute('aria-label')).toBe(false);
    expect(button.getAttribute('title')).toBe('Copy');
    expect(button.getAttribute('data-key')).toBe(`copy:${ID}:subject`);
    expect(copyId(ID).className).toBe('id');
  });

  it('copies the id to the clipboard on a click, and tells the page with a bubbling `copied` event', async () => {
    const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue(undefined);
    const button = copyId(ID);
    document.body.append(h('div', null, button));
    const copied = new Promise<CustomEvent>((resolve) =>
      document.addEventListener('copied', (e) => resolve(e as CustomEvent), { once: true }),
    );
    button.click();
    expect(writeText).toHaveBeenCalledWith(ID);
    expect((await copied).detail).toEqual({ id: ID, ok: true });
  });

  it('selects the id where copying is not allowed, and says it was not copied', async () => {
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('NotAllowedError'));
    const button = copyId(ID);
    document.body.append(button);
    const copied = new Promise<CustomEvent>((resolve) =>
      document.addEventListener('copied', (e) => resolve(e as CustomEvent), { once: true }),
    );
    button.click();
    expect((await copied).detail).toEqual({ id: ID, ok: false });
    expect(getSelection()?.toString()).toBe(ID);
  });

  it('selects the id where there is no clipboard at all (an insecure origin)', () => {
    Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true });
    const button = copyId(ID);
    document.body.append(button);
    const details: unknown[] = [];
    document.addEventListener('copied', (e) => details.push((e as CustomEvent).detail), { once: true });
    button.click();
    expect(details).toEqual([{ id: ID, ok: false }]);
    expect(getSelection()?.toString()).toBe(ID);
  });
});

describe('a long value, shortened and copied whole (copyShort, console/dom.js)', () => {
  const KEY = 'SVC_TEST_ses_4kT9wQ2mX7bN1cRz_8Hd3Lp6Vs0Yf5JuA';
  afterEach(() => {
    vi.restoreAllMocks();
    document.body.replaceChildren();
    getSelection()?.removeAllRanges();
  });

  it('keeps the start and the end of a long value, and a short one whole', () => {
    expect(shorten(KEY)).toBe('SVC_TEST_ses_4kT9…5JuA');
    expect(shorten('SVC_TEST_console')).toBe('SVC_TEST_console');
    expect(shorten('x'.repeat(22))).toBe('x'.repeat(22));
    expect(shorten('x'.repeat(23))).toBe(`${'x'.repeat(17)}…xxxx`);
  });

  it('copies the whole value; where copying is not allowed, shows it whole and selects it', async () => {
    const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('NotAllowedError'));
    const button = copyShort(KEY);
    expect(button.className).toBe('copy-short');
    document.body.append(button);
    const copied = new Promise<CustomEvent>((resolve) =>
      document.addEventListener('copied', (e) => resolve(e as CustomEvent), { once: true }),
    );
    button.click();
    expect(writeText).toHaveBeenCalledWith(KEY);
    expect((await copied).detail).toEqual({ id: KEY, ok: false });
    expect(button.textContent).toBe(KEY);
    expect(getSelection()?.toString()).toBe(KEY);
  });
});
