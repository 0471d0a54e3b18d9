// orval's configuration for test/generators/run.sh: a fetch client in one file, from the
// server's document, whose requests go through orval-fetch.ts (the base URL and the key are
// set at run time there, as an application would).
module.exports = {
  sandbox: {
    input: { target: './generated/openapi.json' },
    output: {
      target: './generated/orval/client.ts',
      client: 'fetch',
      mode: 'single',
      override: { mutator: { path: './orval-fetch.ts', name: 'sandboxFetch' } },
    },
  },
};
