/**
 * The type test of the orval client (run.sh compiles it with tsc --strict): each
 * @ts-expect-error line must be an error, or tsc fails with "Unused '@ts-expect-error' directive".
 */
import { type GetSnapshot200InputsItem, placeCall, provisionNumber, sendMessage, transferCall } from './generated/orval/client';

export function bodies(): void {
  // What the server takes compiles: one call, a campaign.
  void placeCall({ to: '+14155550123', from: '+14155550100' });
  void placeCall({ to: '+14155550123', from: '+14155550100', ai_receptionist: true });
  void placeCall({ campaign: { to: ['+14155550123'], from: '+14155550100' } });

  // @ts-expect-error a missing `to`
  void placeCall({ from: '+14155550100' });
  // @ts-expect-error an empty body
  void placeCall({});
  // @ts-expect-error an unknown field
  void placeCall({ to: '+14155550123', from: '+14155550100', ai_recepcionist: true });
  // @ts-expect-error a wrong type
  void placeCall({ to: 14155550123, from: '+14155550100' });
  // @ts-expect-error a wrong type of an optional field
  void placeCall({ to: '+14155550123', from: '+14155550100', ai_receptionist: 'yes' });

  // The other either/or bodies: exactly one of agent or extension; text, template or media.
  void transferCall('call_0000000000000000', { agent: 'maria' });
  // @ts-expect-error neither agent nor extension
  void transferCall('call_0000000000000000', {});
  void sendMessage({ from: '+14155550100', to: '+14155550123', body: 'hi' });
  // @ts-expect-error a message with nothing to send
  void sendMessage({ from: '+14155550100', to: '+14155550123' });
  void provisionNumber({ kind: 'local', area_code: '415' });
  // @ts-expect-error a number without a number or a criterion
  void provisionNumber({ sms: { enabled: true } });
}

/** A snapshot's request header, as orval types it: a [name, value] pair (orval 8 compiled no union standing for the positions). */
type Pair = Extract<GetSnapshot200InputsItem, { kind: 'request' }>['headers'][number];

export function tuples(): void {
  const pair: Pair = ['authorization', 'Bearer SVC_TEST_x'];
  // @ts-expect-error a third item
  const three: Pair = ['authorization', 'Bearer SVC_TEST_x', 'more'];
  void [pair, three];
}
