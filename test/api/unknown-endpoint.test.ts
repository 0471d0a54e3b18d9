import { describe, expect, it } from '../fixture.js';

/**
 * A 404 for a path no route has names the nearest documented endpoint, not a folder of this
 * repository: a Python or Go client has the server, not docs/.
 */
describe('unknown endpoints', () => {
  it.for<[string, string, string]>([
    ['GET', '/v1/call', 'No endpoint GET /v1/call. Did you mean GET /v1/calls?'],
    ['POST', '/v1/mesages', 'No endpoint POST /v1/mesages. Did you mean POST /v1/messages?'],
    ['GET', '/v1/webhook', 'No endpoint GET /v1/webhook. Did you mean GET /v1/webhooks?'],
    ['GET', '/v1/transcripts', 'No endpoint GET /v1/transcripts. Did you mean GET /v1/transcripts/{id}?'],
    ['GET', '/calls', 'No endpoint GET /calls. Every endpoint is under /v1/: did you mean GET /v1/calls?'],
  ])('%s %s names the nearest endpoint', async ([method, path, message], { api }) => {
    const res = await api.send(method, path);
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 'not_found', message });
  });

  it('lists the resources when no endpoint is near, and never points to docs/', async ({ api }) => {
    const res = await api.get('/v1/xyzzyplugh/abc');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(
      'No endpoint GET /v1/xyzzyplugh/abc. The endpoints are under /v1/calls, /v1/numbers, /v1/messages, /v1/recordings, /v1/transcripts, /v1/webhooks.',
    );
    expect(res.body.error.message).not.toMatch(/docs\//);
  });
});
