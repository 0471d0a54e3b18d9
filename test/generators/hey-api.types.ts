/**
 * The type test of the @hey-api/openapi-ts client (run.sh compiles it with tsc --strict): each
 * @ts-expect-error line must be an error, or tsc fails with "Unused '@ts-expect-error' directive".
 */
import { type GetSnapshotResponse, placeCall, provisionNumber, sendMessage, transferCall } from './generated/hey-api';

export function bodies(): void {
  // What the server takes compiles: one call, a campaign.
  void placeCall({ body: { to: '+14155550123', from: '+14155550100' } });
  void placeCall({ body: { to: '+14155550123', from: '+14155550100', ai_receptionist: true } });
  void placeCall({ body: { campaign: { to: ['+14155550123'], from: '+14155550100' } } });

  // @ts-expect-error a missing `to`
  void placeCall({ body: { from: '+14155550100' } });
  // @ts-expect-error an empty body
  void placeCall({ body: {} });
  // @ts-expect-error an unknown field
  void placeCall({ body: { to: '+14155550123', from: '+14155550100', ai_recepcionist: true } });
  // @ts-expect-error a wrong type
  void placeCall({ body: { to: 14155550123, from: '+14155550100' } });
  // @ts-expect-error a wrong type of an optional field
  void placeCall({ body: { to: '+14155550123', from: '+14155550100', ai_receptionist: 'yes' } });

  // The other either/or bodies: exactly one of agent or extension; text, template or media.
  void transferCall({ path: { id: 'call_0000000000000000' }, body: { agent: 'maria' } });
  // @ts-expect-error neither agent nor extension
  void transferCall({ path: { id: 'call_0000000000000000' }, body: {} });
  void sendMessage({ body: { from: '+14155550100', to: '+14155550123', body: 'hi' } });
  // @ts-expect-error a message with nothing to send
  void sendMessage({ body: { from: '+14155550100', to: '+14155550123' } });
  void provisionNumber({ body: { kind: 'local', area_code: '415' } });
  // @ts-expect-error a number without a number or a criterion
  void provisionNumber({ body: { sms: { enabled: true } } });
}

/** A snapshot's request header, as openapi-ts types it: a [name, value] pair. */
type Pair = Extract<GetSnapshotResponse['inputs'][number], { kind: 'request' }>['headers'][number];

export function tuples(): void {
  const pair: Pair = ['authorization', 'Bearer SVC_TEST_x'];
  // @ts-expect-error a third item
  const three: Pair = ['authorization', 'Bearer SVC_TEST_x', 'more'];
  void [pair, three];
}
