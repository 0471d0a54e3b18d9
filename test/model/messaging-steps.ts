import fc from 'fast-check';
import { CONFIGS, CONTENTS, CRITERIA, DESTINATIONS, INBOUND_CONTENTS, REMOTES, SEARCHES } from './messaging-reference.js';

/**
 * The steps of messaging-model.test.ts and how often each comes: indexes into the tables of
 * messaging-reference.ts, keys by index, and `pick`s that choose among what the model knows.
 * Weights favour accepted inputs and a key's own numbers, so most runs build up real traffic.
 * messaging-commands.ts makes each step a fast-check command.
 */

type Pick = { pick: number };
/** Who inbound traffic goes to: a number the model knows, the latest provisioned one, any pool number, or one outside the pool. */
export type Target = 'number' | 'latest' | 'pool' | 'outside';
export type Step =
  | { kind: 'search'; key: number; search: number; limit: number }
  | { kind: 'searchMore'; key: number; limit: number; as: number }
  | ({
      kind: 'provision';
      key: number;
      how: 'pool' | 'held' | 'released' | 'outside' | 'both' | 'criteria';
      criteria: number;
      config?: number;
    } & Pick)
  | ({ kind: 'update'; key: number; mine: boolean; config: number } & Pick)
  | ({ kind: 'release'; key: number; mine: boolean } & Pick)
  | ({ kind: 'send'; key: number; from: 'own' | 'latest' | 'any' | 'outside'; to: number; content: number } & Pick)
  | ({ kind: 'inboundMessage'; target: Target; from: number; content: number } & Pick)
  | ({ kind: 'inboundCall'; target: Target; apiKey?: number } & Pick)
  | ({ kind: 'fetchCall'; key: number; mine: boolean } & Pick)
  | ({
      kind: 'listMessages';
      key: number;
      limit: number;
      direction?: string;
      channel?: string;
      status?: string;
      conversation: boolean;
      after?: number;
      before?: number;
    } & Pick)
  | { kind: 'messagesPage'; key: number; limit: number; fresh: boolean; direction?: string; status?: string }
  | { kind: 'listNumbers'; key: number; limit: number; numberKind?: string; after?: number }
  | { kind: 'messageBehavior'; to: number; how: 'set' | 'queue' | 'clear' | 'clearAll'; outcome: 'delivered' | 'failed' }
  | { kind: 'advance'; ms: number };

const key = fc.nat(2);
const pick = fc.nat();
const target = fc.constantFrom(...(['number', 'number', 'latest', 'latest', 'pool', 'outside'] as const));
/** Absent three times in four: filters that are always there would leave most pages empty. */
const rarely = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
/** An index into `table`, `odds` times likelier to be an accepted entry than a refused one. */
const mostlyAccepted = (table: ReadonlyArray<{ refused?: unknown }>, odds = 4) => {
  const indexes = (refused: boolean) => table.flatMap((row, i) => (Boolean(row.refused) === refused ? [i] : []));
  return fc.oneof(
    { weight: odds, arbitrary: fc.constantFrom(...indexes(false)) },
    { weight: 1, arbitrary: fc.constantFrom(...indexes(true)) },
  );
};
const mostlyMine = fc.constantFrom(true, true, true, false);
export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('search' as const),
      key,
      search: fc.nat(SEARCHES.length - 1),
      limit: fc.integer({ min: 1, max: 60 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('searchMore' as const),
      key,
      limit: fc.integer({ min: 1, max: 60 }),
      as: fc.constantFrom(0, 0, 0, 0, 1, 2),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('provision' as const),
      key,
      how: fc.constantFrom(
        ...(['pool', 'held', 'released', 'released', 'released', 'outside', 'both', 'criteria', 'criteria', 'criteria'] as const),
      ),
      criteria: mostlyAccepted(CRITERIA),
      config: fc.option(mostlyAccepted(CONFIGS), { nil: undefined, freq: 2 }),
      pick,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('update' as const), key, mine: mostlyMine, config: mostlyAccepted(CONFIGS, 2), pick }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), key, mine: mostlyMine, pick }) },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      key,
      from: fc.constantFrom(...(['own', 'own', 'own', 'latest', 'latest', 'any', 'outside'] as const)),
      to: mostlyAccepted(DESTINATIONS),
      content: mostlyAccepted(CONTENTS),
      pick,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('inboundMessage' as const),
      target,
      from: fc.nat(REMOTES.length - 1),
      content: fc.nat(INBOUND_CONTENTS.length - 1),
      pick,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('inboundCall' as const), target, apiKey: rarely(key), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fetchCall' as const), key, mine: mostlyMine, pick }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('listMessages' as const),
      key,
      limit: fc.integer({ min: 2, max: 40 }),
      direction: rarely(fc.constantFrom('outbound', 'inbound')),
      channel: rarely(fc.constantFrom('sms', 'mms')),
      status: rarely(fc.constantFrom('queued', 'sent', 'delivered', 'failed', 'received')),
      conversation: rarely(fc.constant(true)).map(Boolean),
      after: rarely(fc.constantFrom(0, 1_000, 60_000)),
      before: rarely(fc.constantFrom(0, 1_000, 3_600_000)),
      pick,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('messagesPage' as const),
      key,
      limit: fc.integer({ min: 1, max: 5 }),
      fresh: fc.boolean(),
      direction: rarely(fc.constantFrom('outbound', 'inbound')),
      status: rarely(fc.constantFrom('queued', 'sent', 'delivered', 'received')),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('listNumbers' as const),
      key,
      limit: fc.integer({ min: 1, max: 20 }),
      numberKind: rarely(fc.constantFrom('local', 'toll_free', 'international')),
      after: rarely(fc.constantFrom(0, 5_000, 3_600_000)),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('messageBehavior' as const),
      // Only destinations that are fixed numbers: HELD and SELF change from run to run.
      to: fc.constantFrom(...DESTINATIONS.flatMap((d, i) => (d.to.startsWith('+') && !d.refused ? [i] : []))),
      how: fc.constantFrom(...(['set', 'queue', 'queue', 'clear', 'clearAll'] as const)),
      outcome: fc.constantFrom(...(['delivered', 'failed'] as const)),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(0, 1, 999, 1_000, 1_001, 2_000, 2_999, 3_000, 5_000, 65_000, 3_600_000),
    }),
  },
);
