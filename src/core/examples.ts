/**
 * The example a schema was written with, where a document or another example is built from it.
 * Every resource schema of the sandbox is written with one; a schema without is the sandbox's own
 * bug, found at start-up, so it throws instead of building a document with a hole in it.
 *
 * @example
 * writtenExample(callSchema).id // 'call_7mQ2xK9pR4tLw8Zb'
 */
export function writtenExample<T>(schema: { readonly example: T | undefined }): T {
  if (schema.example === undefined) throw new Error('writtenExample: this schema was written without an example');
  return schema.example;
}
