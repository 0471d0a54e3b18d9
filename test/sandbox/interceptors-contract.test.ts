import { readFileSync } from 'node:fs';
import http from 'node:http';
import { BatchInterceptor, getGlobalSymbol, InterceptorReadyState, type HttpRequestEventMap } from '@mswjs/interceptors';
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest';
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DISPATCHER_SLOTS } from '../../src/intercept/dispatcher.js';

/**
 * What src/intercept/instances.ts, src/intercept/allow-hosts.ts and src/intercept/dispatcher.ts rely on beyond the public
 * API of @mswjs/interceptors and undici. Each failure names the member and the installed
 * version: an upgrade that moves one fails here, not in a user's test run. No sandbox listens
 * in this file; each test disposes what it applies.
 */

const read = (path: string): { version: string } => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
const INTERCEPTORS = read('../../node_modules/@mswjs/interceptors/package.json').version;
const UNDICI = read('../../node_modules/undici/package.json').version;
const pinned = read('../../package.json') as { version: string; dependencies: Record<string, string> };

const broken = (member: string) =>
  `@mswjs/interceptors ${INTERCEPTORS}: ${member} is not what src/intercept/instances.ts relies on (written against 0.41.9); re-read that file before changing the pin`;

type Listener = (...args: HttpRequestEventMap['request']) => Promise<void> | void;

/** The protected members instances.ts reaches through its subclass, reached the same way. */
class FetchProbe extends FetchInterceptor {
  get probe() {
    return { emitter: this.emitter, subscriptions: this.subscriptions };
  }
}
class ClientRequestProbe extends ClientRequestInterceptor {
  get probe() {
    return { emitter: this.emitter };
  }
}

const applied: Array<{ dispose(): void }> = [];
function apply<T extends { apply(): void; dispose(): void }>(interceptor: T): T {
  interceptor.apply();
  applied.push(interceptor);
  return interceptor;
}
afterEach(() => {
  // In order: an owner first, then its joiners (a joiner disposed first would unregister the owner, whose dispose() would then skip its patches).
  for (const interceptor of applied.splice(0)) interceptor.dispose();
});

const answer: Listener = ({ controller }) => controller.respondWith(new Response('answered'));

describe(`@mswjs/interceptors ${INTERCEPTORS}`, () => {
  it('is pinned exactly to the version instances.ts was written against', () => {
    expect(pinned.dependencies['@mswjs/interceptors'], 'package.json must pin @mswjs/interceptors exactly (no ^ or ~)').toBe('0.41.9');
    expect(INTERCEPTORS, broken('the installed version')).toBe('0.41.9');
  });

  it('static `symbol` and `getGlobalSymbol()`: the one running instance of each kind', () => {
    for (const kind of [ClientRequestInterceptor, XMLHttpRequestInterceptor, FetchInterceptor]) {
      expect(typeof kind.symbol, broken(`${kind.name}.symbol`)).toBe('symbol');
    }
    const original = globalThis.fetch;
    const owner = apply(new FetchInterceptor());
    expect(getGlobalSymbol(FetchInterceptor.symbol), broken('getGlobalSymbol(FetchInterceptor.symbol) after apply()')).toBe(owner);
    expect(owner.readyState, broken('readyState after apply()')).toBe(InterceptorReadyState.APPLIED);
    owner.dispose();
    expect(getGlobalSymbol(FetchInterceptor.symbol), broken('getGlobalSymbol() after dispose()')).toBeUndefined();
    expect(globalThis.fetch, broken('dispose() restoring fetch')).toBe(original);
  });

  it('a second apply() joins the running instance, whose public on() and off() add and remove listeners', async () => {
    const owner = apply(new FetchProbe());
    const joiner = apply(new FetchInterceptor());
    expect(getGlobalSymbol(FetchInterceptor.symbol), broken('apply() joining a running instance')).toBe(owner);
    expect(joiner.readyState, broken('readyState of a joined interceptor')).toBe(InterceptorReadyState.APPLIED);
    // biome-ignore lint/nursery/noMisusedPromises: @mswjs/interceptors awaits request listeners in turn (emitAsync), though typed void.
    owner.on('request', answer);
    expect(await (await fetch('https://contract.svc.test/')).text(), broken('a listener added with on() on the running instance')).toBe(
      'answered',
    );
    joiner.on('request', () => undefined);
    expect(owner.probe.emitter.listenerCount('request'), broken('a joiner’s on() adding to the owner’s protected `emitter`')).toBe(2);
    expect(owner.probe.emitter.listeners('request')[0], broken('emitter.listeners()')).toBe(answer);
    // biome-ignore lint/nursery/noMisusedPromises: off() removes the very listener on() added; nothing is called.
    owner.off('request', answer);
    expect(owner.probe.emitter.listenerCount('request'), broken('off() on the running instance')).toBe(1);
  });

  it('protected `emitter` and `subscriptions`: a joiner’s dispose() removes its listener with a `removeListener` event and deletes the owner’s symbol', () => {
    const original = globalThis.fetch;
    const owner = apply(new FetchProbe());
    const joiner = apply(new FetchInterceptor());
    const { emitter, subscriptions } = owner.probe;
    expect(typeof emitter.listenerCount, broken('emitter.listenerCount')).toBe('function');
    joiner.on('request', () => undefined);
    const removed: unknown[] = [];
    emitter.on('removeListener', (event) => removed.push(event));
    joiner.dispose();
    expect(removed, broken('the emitter’s `removeListener` event on a joiner’s dispose()')).toEqual(['request']);
    // The 0.41 behaviour instances.ts works round (Owned.restore): the owner still runs, unregistered.
    expect(getGlobalSymbol(FetchInterceptor.symbol), broken('a joiner’s dispose() deleting the owner’s global symbol')).toBeUndefined();
    expect(owner.readyState).toBe(InterceptorReadyState.APPLIED);
    expect(globalThis.fetch).not.toBe(original);
    expect(
      Array.isArray(subscriptions) && subscriptions.every((undo) => typeof undo === 'function'),
      broken('subscriptions (an array of undo functions)'),
    ).toBe(true);
    for (const undo of subscriptions.splice(0)) undo();
    expect(globalThis.fetch, broken('running `subscriptions` undoing the patches')).toBe(original);
  });

  it('protected `emitter` still hears a node:http request made just before dispose(), where on() is refused', async () => {
    const interceptor = apply(new ClientRequestProbe());
    const request = http.get('http://contract.svc.test/');
    interceptor.dispose();
    // biome-ignore lint/nursery/noMisusedPromises: @mswjs/interceptors awaits request listeners in turn (emitAsync), though typed void.
    interceptor.on('request', answer);
    expect(interceptor.probe.emitter.listenerCount('request'), broken('on() after dispose() being refused')).toBe(0);
    interceptor.probe.emitter.on('request', answer);
    const body = await new Promise<string>((resolve, reject) => {
      request.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(text));
      });
      request.on('error', reject);
    });
    expect(body, broken('a request in flight at dispose() emitting on the protected `emitter`')).toBe('answered');
  });

  it('`controller.passthrough()` is called, on the instance, once every listener has had its turn and none answered (allow-hosts.ts refuses there)', async () => {
    for (const kind of [FetchInterceptor, ClientRequestInterceptor]) {
      const interceptor = apply(new kind());
      const order: string[] = [];
      interceptor.on('request', ({ controller }) => {
        order.push('first');
        controller.passthrough = async () => {
          order.push('passthrough');
          controller.errorWith(new Error('refused at passthrough'));
        };
      });
      interceptor.on('request', () => void order.push('second'));
      const failed =
        kind === FetchInterceptor
          ? await fetch('http://contract.svc.test/').then(
              () => null,
              (error: Error) => error,
            )
          : await new Promise<Error | null>((resolve) => {
              http.get('http://contract.svc.test/', () => resolve(null)).on('error', resolve);
            });
      expect(failed?.message, broken(`${kind.name}: a request none answered going to controller.passthrough()`)).toBe(
        'refused at passthrough',
      );
      expect(order, broken(`${kind.name}: the order of listeners and passthrough()`)).toEqual(['first', 'second', 'passthrough']);
      interceptor.dispose();
      applied.splice(applied.indexOf(interceptor), 1);
    }
  });

  it('BatchInterceptor (as msw uses it) disposes each interceptor through its `dispose` property, so a wrapper on the instance is seen', () => {
    const child = new FetchInterceptor();
    const batch = apply(new BatchInterceptor({ name: 'svc-sandbox-contract', interceptors: [child] }));
    let seen = 0;
    const dispose = child.dispose;
    child.dispose = () => {
      seen += 1;
      dispose.call(child);
    };
    batch.dispose();
    expect(seen, broken('BatchInterceptor#dispose() calling interceptor.dispose()')).toBe(1);
  });
});

describe(`undici ${UNDICI} (and Node's bundled ${process.versions.undici})`, () => {
  it('the global dispatcher lives in the slot dispatcher.ts reads and writes, for the package and for Node’s fetch', () => {
    void globalThis.Response; // Node's bundled undici creates its default dispatcher on first use
    const [slot] = DISPATCHER_SLOTS;
    const nodes = Reflect.get(globalThis, slot!);
    expect(
      typeof Reflect.get(Object(nodes), 'dispatch'),
      `Node ${process.version}: no dispatcher in Symbol.for('undici.globalDispatcher.1'); src/intercept/dispatcher.ts would install nothing`,
    ).toBe('function');
    expect(getGlobalDispatcher(), `undici ${UNDICI}: getGlobalDispatcher() does not read Symbol.for('undici.globalDispatcher.1')`).toBe(
      nodes,
    );
    const agent = new Agent();
    try {
      setGlobalDispatcher(agent);
      expect(
        Reflect.get(globalThis, slot!),
        `undici ${UNDICI}: setGlobalDispatcher() does not write Symbol.for('undici.globalDispatcher.1')`,
      ).toBe(agent);
    } finally {
      Reflect.set(globalThis, slot!, nodes);
      void agent.close();
    }
  });
});
