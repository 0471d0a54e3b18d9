import { getGlobalSymbol, InterceptorReadyState, type HttpRequestEventMap, type Interceptor } from '@mswjs/interceptors';
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest';
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest';

/**
 * How the sandbox shares @mswjs/interceptors with other users of the process (a user's msw):
 * the one module that knows the library's singleton model. It is pinned to 0.41.9 exactly
 * (package.json); `test/sandbox/interceptors-contract.test.ts` fails, naming the member and
 * the version, if anything relied on here moves or changes shape.
 *
 * The model: each kind of interceptor (node:http, XHR, fetch) has one running instance per
 * process, stored under the kind's public static `symbol` and read with the exported
 * `getGlobalSymbol`. Whoever applies second joins the first. Public API covers joining a
 * running instance (`on`/`off` on it), owning one (`apply`/`dispose`), and seeing which runs.
 * Three things have no public API, and are kept here:
 *
 * - Counting and watching an owned instance's listeners, and listening to it after
 *   `dispose()`: the protected `emitter`, reached through a subclass ({@link withOwnership}),
 *   so the type check notices if it is renamed.
 * - Undoing an owned instance's patches after a joiner's `dispose()` has deleted its global
 *   symbol (0.41's `dispose()` of a joined interceptor deletes the owner's symbol, and the
 *   owner's own `dispose()` then skips its patches): the protected `subscriptions`.
 * - Noticing that the instance the sandbox joined is being disposed, to take over with an
 *   instance of its own: no event says so, so the joined instance's public `dispose` method
 *   is wrapped while the sandbox listens to it, and put back when it stops.
 */

export type RequestEvent = HttpRequestEventMap['request'][0];
export type Tombstone = (event: RequestEvent) => Promise<void>;
type Running = Interceptor<HttpRequestEventMap>;

/** A kind's class with the protected members this module needs, type-checked against the installed version. */
// biome-ignore lint/suspicious/noExplicitAny: a mixin's base must take `...args: any[]` (TypeScript requires exactly that, TS2545).
function withOwnership<Base extends new (...args: any[]) => Running>(base: Base, symbol: symbol) {
  return class Owned extends base {
    static readonly kindSymbol = symbol;

    /** How many `request` listeners this instance has, joiners' included. */
    requestListeners(): number {
      return this.emitter.listenerCount('request');
    }

    /** Whether a `request` listener other than `except` is on this instance. */
    heardByOthersThan(except: Tombstone): boolean {
      return this.emitter.listeners('request').some((listener) => listener !== except);
    }

    /** Calls `fn` after any listener leaves (a joiner's `dispose()` removes its listeners one by one). */
    onListenerRemoved(fn: () => void): void {
      this.emitter.on('removeListener', fn);
    }

    /** `on()` refuses listeners once disposed, but a node:http request made just before emits here a tick later. */
    listenAfterDispose(fn: Tombstone): void {
      this.emitter.on('request', fn);
    }

    /** `dispose()`, also when a joiner's `dispose()` has already deleted this instance's global symbol. */
    restore(): void {
      if (getGlobalSymbol(symbol) === this) {
        this.dispose();
        return;
      }
      for (const undo of this.subscriptions.splice(0)) undo();
      this.emitter.removeAllListeners();
      this.readyState = InterceptorReadyState.DISPOSED;
    }
  };
}

const KINDS = [
  withOwnership(ClientRequestInterceptor, ClientRequestInterceptor.symbol),
  withOwnership(XMLHttpRequestInterceptor, XMLHttpRequestInterceptor.symbol),
  withOwnership(FetchInterceptor, FetchInterceptor.symbol),
];
type Kind = (typeof KINDS)[number];
type Owned = InstanceType<Kind>;

/** Running instances that already carry the tombstone (see `release`): one is enough. */
const tombstoned = new WeakSet<Running>();

/**
 * The sandbox's listener on one kind of interceptor: on an instance of its own, or on the
 * instance another party runs.
 */
export class Share {
  private owned: Owned | undefined;
  private joined: Running | undefined;
  private unwrapDispose: (() => void) | undefined;
  private readonly listener = (event: RequestEvent): Promise<void> => this.handle(event, this);

  private constructor(
    private readonly kind: Kind,
    private readonly handle: (event: RequestEvent, share: Share) => Promise<void>,
    private readonly tombstone: Tombstone,
    private readonly onRestored: () => void,
  ) {}

  /**
   * Starts listening on every kind: `handle` gets each request, `tombstone` takes over from it
   * when the sandbox stops, and `onRestored` runs whenever an instance of the sandbox's own
   * has been disposed (so the process globals can be put back).
   */
  static all(handle: (event: RequestEvent, share: Share) => Promise<void>, tombstone: Tombstone, onRestored: () => void): Share[] {
    return KINDS.map((kind) => {
      const share = new Share(kind, handle, tombstone, onRestored);
      share.start();
      return share;
    });
  }

  /** Whether a listener other than the sandbox's hears requests on this kind (it may read the request after the sandbox). */
  shared(): boolean {
    return this.joined !== undefined || (this.owned !== undefined && this.owned.requestListeners() > 1);
  }

  private start(): void {
    const running = getGlobalSymbol<Running>(this.kind.kindSymbol);
    if (running) {
      this.join(running);
      return;
    }
    const ours = new this.kind();
    ours.apply();
    // Not applicable here (XHR without a DOM): nothing to listen to.
    if (getGlobalSymbol(this.kind.kindSymbol) !== ours) return;
    ours.on('request', this.listener);
    this.owned = ours;
  }

  private join(running: Running): void {
    // biome-ignore lint/nursery/noMisusedPromises: @mswjs/interceptors awaits request listeners in turn (emitAsync), though typed void.
    running.on('request', this.listener);
    this.joined = running;
    const hadOwn = Object.hasOwn(running, 'dispose');
    const dispose = running.dispose;
    const wrapped = (): void => {
      dispose.call(running);
      // Disposed by its owner while the sandbox listens: take over with an instance of its own.
      if (this.joined !== running) return;
      this.joined = undefined;
      this.unwrapDispose?.();
      this.start();
    };
    running.dispose = wrapped;
    this.unwrapDispose = () => {
      this.unwrapDispose = undefined;
      if (running.dispose !== wrapped) return;
      if (hadOwn) running.dispose = dispose;
      else Reflect.deleteProperty(running, 'dispose');
    };
  }

  /**
   * Stops the sandbox's listening. An instance another party runs keeps running (only the
   * sandbox's listener leaves it); one of the sandbox's own is disposed at once, or, while
   * someone else still listens to it, when their last listener leaves. Either way the
   * tombstone answers what still arrives for a closed base URL.
   */
  release(): void {
    const { joined, owned } = this;
    this.joined = this.owned = undefined;
    if (joined) {
      this.unwrapDispose?.();
      // biome-ignore lint/nursery/noMisusedPromises: off() removes the very listener on() added; nothing is called.
      joined.off('request', this.listener);
      if (!tombstoned.has(joined)) {
        tombstoned.add(joined);
        // biome-ignore lint/nursery/noMisusedPromises: @mswjs/interceptors awaits request listeners in turn (emitAsync), though typed void.
        joined.on('request', this.tombstone);
      }
      return;
    }
    if (!owned) return;
    owned.off('request', this.listener);
    if (!owned.heardByOthersThan(this.tombstone)) {
      this.dispose(owned);
      return;
    }
    owned.on('request', this.tombstone);
    tombstoned.add(owned);
    let done = false;
    owned.onListenerRemoved(() => {
      if (done || owned.heardByOthersThan(this.tombstone)) return;
      done = true;
      this.dispose(owned);
    });
  }

  private dispose(owned: Owned): void {
    owned.restore();
    owned.listenAfterDispose(this.tombstone);
    this.onRestored();
  }
}
