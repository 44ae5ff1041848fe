/** The worker thread of TextPreparer (preparer.ts): prepares one text at a time, in the order sent. */
import { parentPort } from 'node:worker_threads';

import { prepareText, type PrepareReply, type PrepareRequest } from './preparer.js';

parentPort!.on('message', ({ id, text, options }: PrepareRequest) => {
  let reply: PrepareReply;
  try {
    reply = { id, prepared: prepareText(text, options) };
  } catch (err) {
    reply = { id, error: (err as Error).message };
  }
  parentPort!.postMessage(reply);
});
