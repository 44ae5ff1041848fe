#!/usr/bin/env node
// A stdio MCP server for the elicitation tests (test/elicitation-voice.e2e):
// its one tool, pick_environment, asks the client for a choice
// (elicitation/create, a form of one enum field) and returns what came back,
// as JSON, for the test to read in the tool result the model saw.
// The SDK's own Server, as any third-party server would be.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'deploy', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'pick_environment',
      description: 'Asks the user which environment to deploy to.',
      inputSchema: { type: 'object', properties: {} },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async () => {
  const answer = await server.elicitInput({
    message: 'Which environment?',
    requestedSchema: {
      type: 'object',
      properties: { environment: { type: 'string', enum: ['staging', 'production'] } },
      required: ['environment'],
    },
  });
  return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
});
await server.connect(new StdioServerTransport());
