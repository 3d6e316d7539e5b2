// A stand-in SQS-triggered function for the event source mapping's rules, told by each message's
// body what to do: `ok` succeeds, `fail` is reported in batchItemFailures, `throw` fails the whole
// invocation, `invalid` answers with a failure that names no message, `slow` takes a second.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const bodies = event.Records.map(({ body }) => body);
  if (bodies.includes('throw')) throw new Error('the function failed');
  if (bodies.includes('invalid')) return { batchItemFailures: [{ itemIdentifier: '' }] };
  if (bodies.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 1_000));
  return {
    batchItemFailures: event.Records.filter(({ body }) => body === 'fail').map(({ messageId }) => ({
      itemIdentifier: messageId,
    })),
  };
};
