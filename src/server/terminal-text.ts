/**
 * Text from a file, an argument or an answer made fit for a terminal: every control character
 * (C0, DEL and C1: what starts an escape sequence, moves the cursor or rewrites a line) written
 * as a `\u00XX` escape, so a snapshot's `version` or a file's name can say anything but cannot
 * drive the terminal it is printed on. Everything the CLI prints that it did not write itself
 * goes through it.
 *
 * @example
 * terminalText('0.1.0\u001b[2J'); // '0.1.0\\u001b[2J'
 */
export function terminalText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
