import { array, custom, invalid, show, string, type Schema } from '../core/schema.js';

/**
 * What a message may carry (docs/messaging.md), for messages sent through the API and
 * inbound messages a test delivers alike: one rule, written once.
 */

/** The most characters a message body may have. */
export const MAX_BODY_CHARS = 1600;
/** Most attachments of one MMS. */
export const MAX_MEDIA = 10;

/** A message's text: free text, line breaks allowed (docs/errors.md, "Text"). */
export const messageText = string({ description: 'The text', max: MAX_BODY_CHARS, multiline: true });

const urlText = string({ description: 'An https URL of the attachment', max: 2048, example: 'https://example.com/cat.jpg', format: 'uri' });

/** An https URL, as carriers fetch MMS media. */
export const mediaUrl: Schema<string> = custom({
  hint: 'an https URL, e.g. "https://example.com/cat.jpg"',
  parse(value, path) {
    const url = urlText.parse(value, path); // refuses control characters, which the URL parser would drop silently
    if (!URL.canParse(url) || new URL(url).protocol !== 'https:') {
      throw invalid(`\`${path}\` must be an https URL, e.g. "https://example.com/cat.jpg" (got ${show(url)}).`, path);
    }
    return url;
  },
  openapi: () => ({ ...urlText.openapi(), pattern: '^[Hh][Tt][Tt][Pp][Ss]://[^\\x00-\\x1f\\x7f]+$' }),
});

/** The attachments of an MMS. */
export const mediaUrls = array(mediaUrl, { description: 'Attachments; any makes the message an MMS.', max: MAX_MEDIA });
