/** E.164: `+`, then 2 to 15 digits, the first not 0 (CONTRACT §4). */
export const E164 = /^\+[1-9]\d{1,14}$/;
