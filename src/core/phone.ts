/** E.164: `+`, then 2 to 15 digits, the first not 0 (docs/contract.md). */
export const E164 = /^\+[1-9]\d{1,14}$/;
